#include "exec/cuda/runtime.hpp"

#include <cuda_runtime_api.h>

#include <cstring>
#include <stdexcept>
#include <utility>

namespace sfr::exec::cuda {

namespace {
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
}  // namespace

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();  // clear the sticky "no device" error
    return 0;
  }
  return n;
}

std::string no_gpu_reason() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return std::string("no CUDA device is usable here (") + cudaGetErrorString(e) + ")";
  }
  return n > 0 ? "" : "no CUDA device is visible to this process";
}

void select_device(int local_rank) {
  const int n = device_count();
  if (n > 0) check(cudaSetDevice(local_rank % n), "cudaSetDevice");
}

std::string device_name() {
  int dev = 0;
  check(cudaGetDevice(&dev), "cudaGetDevice");
  cudaDeviceProp p{};
  check(cudaGetDeviceProperties(&p, dev), "cudaGetDeviceProperties");
  return p.name;
}

template <MemoryKind K>
CudaMemory<K>::CudaMemory(std::size_t bytes) : n_(bytes) {
  if (bytes == 0) return;
  void* p = nullptr;
  const bool dev = K == MemoryKind::device;
  check(dev ? cudaMalloc(&p, bytes) : cudaMallocHost(&p, bytes),
        ((dev ? "cudaMalloc of " : "cudaMallocHost of ") + std::to_string(bytes) + " bytes").c_str());
  p_ = static_cast<std::byte*>(p);
}
template <MemoryKind K>
CudaMemory<K>::~CudaMemory() {
  if (p_) (void)(K == MemoryKind::device ? cudaFree(p_) : cudaFreeHost(p_));
}
template class CudaMemory<MemoryKind::device>;
template class CudaMemory<MemoryKind::pinned>;

Stream::Stream() {
  cudaStream_t s = nullptr;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  s_ = s;
}
Stream::~Stream() {
  if (s_) (void)cudaStreamDestroy(static_cast<cudaStream_t>(s_));
}
void Stream::sync() const { check(cudaStreamSynchronize(static_cast<cudaStream_t>(s_)), "cudaStreamSynchronize"); }

Event::Event() {
  cudaEvent_t e = nullptr;
  check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreateWithFlags");
  e_ = e;
}
Event::~Event() {
  if (e_) (void)cudaEventDestroy(static_cast<cudaEvent_t>(e_));
}
void Event::record(const Stream& s) {
  check(cudaEventRecord(static_cast<cudaEvent_t>(e_), static_cast<cudaStream_t>(s.get())), "cudaEventRecord");
}
void Event::sync() const { check(cudaEventSynchronize(static_cast<cudaEvent_t>(e_)), "cudaEventSynchronize"); }

void copy_async(void* dst, const void* src, std::size_t bytes, const Stream& s) {
  if (bytes == 0) return;
  check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, static_cast<cudaStream_t>(s.get())), "cudaMemcpyAsync");
}
void copy(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  check(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault), "cudaMemcpy");
}
void zero_async(void* dst, std::size_t bytes, const Stream& s) {
  if (bytes == 0) return;
  check(cudaMemsetAsync(dst, 0, bytes, static_cast<cudaStream_t>(s.get())), "cudaMemsetAsync");
}

static_assert(sizeof(cudaIpcMemHandle_t) == kIpcHandleBytes);
IpcHandle ipc_handle(const void* device_ptr) {
  cudaIpcMemHandle_t h{};
  check(cudaIpcGetMemHandle(&h, const_cast<void*>(device_ptr)), "cudaIpcGetMemHandle");
  IpcHandle out{};
  std::memcpy(out.bytes, &h, sizeof h);
  return out;
}
std::byte* ipc_open(const IpcHandle& h) {
  cudaIpcMemHandle_t c{};
  std::memcpy(&c, h.bytes, sizeof c);
  void* p = nullptr;
  check(cudaIpcOpenMemHandle(&p, c, cudaIpcMemLazyEnablePeerAccess), "cudaIpcOpenMemHandle");
  return static_cast<std::byte*>(p);
}
void ipc_close(std::byte* p) {
  if (p) (void)cudaIpcCloseMemHandle(p);
}

}  // namespace sfr::exec::cuda
