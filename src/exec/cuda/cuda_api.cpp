// The device interface on the CUDA runtime (CUDA builds only).
#include <cuda_runtime_api.h>

#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "exec/cuda/device_api.hpp"

namespace sfr::exec::cuda {

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
cudaStream_t stream_of(void* s) { return static_cast<cudaStream_t>(s); }

class CudaApi final : public DeviceApi {
public:
  bool emulated() const override { return false; }
  int device_count() override {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      (void)cudaGetLastError();  // clear the sticky "no device" error
      return 0;
    }
    return n;
  }
  std::string no_gpu_reason() override {
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      // Without a GPU the runtime finds no driver and calls it too old: say what is true.
      std::error_code ec;
      if (e == cudaErrorNoDevice || (e == cudaErrorInsufficientDriver && !std::filesystem::exists("/proc/driver/nvidia/version", ec)))
        return "no CUDA device: this machine has no GPU (no NVIDIA driver is loaded)";
      return std::string("no CUDA device is usable here (") + cudaGetErrorString(e) + ")";
    }
    return n > 0 ? "" : "no CUDA device is visible to this process";
  }
  void select_device(int local_rank) override {
    const int n = device_count();
    if (n > 0) check(cudaSetDevice(local_rank % n), "cudaSetDevice");
  }
  std::string device_name() override { return props().name; }
  std::string device_id() override {
    int dev = 0;
    check(cudaGetDevice(&dev), "cudaGetDevice");
    char bus[32] = {};
    check(cudaDeviceGetPCIBusId(bus, sizeof bus, dev), "cudaDeviceGetPCIBusId");
    return bus;
  }

  void* allocate(std::size_t bytes, MemoryKind k) override {
    void* p = nullptr;
    const bool dev = k == MemoryKind::device;
    check(dev ? cudaMalloc(&p, bytes) : cudaMallocHost(&p, bytes),
          ((dev ? "cudaMalloc of " : "cudaMallocHost of ") + std::to_string(bytes) + " bytes").c_str());
    return p;
  }
  void release(void* p, MemoryKind k) noexcept override { (void)(k == MemoryKind::device ? cudaFree(p) : cudaFreeHost(p)); }
  void* stream_create() override {
    cudaStream_t s = nullptr;
    check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    return s;
  }
  void stream_destroy(void* s) noexcept override { (void)cudaStreamDestroy(stream_of(s)); }
  void stream_sync(void* s) override { check(cudaStreamSynchronize(stream_of(s)), "cudaStreamSynchronize"); }
  void* event_create() override {
    cudaEvent_t e = nullptr;
    check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreateWithFlags");
    return e;
  }
  void event_destroy(void* e) noexcept override { (void)cudaEventDestroy(static_cast<cudaEvent_t>(e)); }
  void event_record(void* e, void* s) override { check(cudaEventRecord(static_cast<cudaEvent_t>(e), stream_of(s)), "cudaEventRecord"); }
  void event_sync(void* e) override { check(cudaEventSynchronize(static_cast<cudaEvent_t>(e)), "cudaEventSynchronize"); }
  void copy_async(void* dst, const void* src, std::size_t bytes, void* s) override {
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream_of(s)), "cudaMemcpyAsync");
  }
  void zero_async(void* dst, std::size_t bytes, void* s) override { check(cudaMemsetAsync(dst, 0, bytes, stream_of(s)), "cudaMemsetAsync"); }
  void copy_raw(void* dst, const void* src, std::size_t bytes) override { check(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault), "cudaMemcpy"); }
  void device_sync() override { check(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); }

  IpcHandle ipc_handle(const void* p) override {
    static_assert(sizeof(cudaIpcMemHandle_t) == kIpcHandleBytes);
    cudaIpcMemHandle_t h{};
    check(cudaIpcGetMemHandle(&h, const_cast<void*>(p)), "cudaIpcGetMemHandle");
    IpcHandle out{};
    std::memcpy(out.bytes, &h, sizeof h);
    return out;
  }
  std::byte* ipc_open(const IpcHandle& h) override {
    cudaIpcMemHandle_t c{};
    std::memcpy(&c, h.bytes, sizeof c);
    void* p = nullptr;
    check(cudaIpcOpenMemHandle(&p, c, cudaIpcMemLazyEnablePeerAccess), "cudaIpcOpenMemHandle");
    return static_cast<std::byte*>(p);
  }
  void ipc_close(std::byte* p) noexcept override { (void)cudaIpcCloseMemHandle(p); }

  void pack(const Launch& l, core::Unit u, int bs, const std::byte* src, const core::IndexView& idx, core::Index n, std::byte* dst) override {
    gpu::pack(l, u, bs, src, idx, n, dst);
  }
  void unpack(const Launch& l, core::Unit u, int bs, core::MpiOp op, const std::byte* src, const core::IndexView& idx, core::Index n,
              std::byte* dst, const core::Groups& groups) override {
    gpu::unpack(l, u, bs, op, src, idx, n, dst, groups);
  }
  void fetch_and_op(const Launch& l, core::Unit u, int bs, core::MpiOp op, const std::byte* src, const core::IndexView& idx, core::Index n,
                    std::byte* root, std::byte* fetched, const core::Groups& groups) override {
    gpu::fetch_and_op(l, u, bs, op, src, idx, n, root, fetched, groups);
  }
  void local(const Launch& l, core::Unit u, int bs, core::MpiOp op, const std::byte* src, const core::IndexView& sidx, std::byte* dst,
             const core::IndexView& didx, core::Index n, const core::Groups& groups) override {
    gpu::local(l, u, bs, op, src, sidx, dst, didx, n, groups);
  }
  void fetch_local(const Launch& l, core::Unit u, int bs, core::MpiOp op, std::byte* root, const core::IndexView& ridx, const std::byte* leaf,
                   const core::IndexView& lidx, core::Index n, std::byte* upd, const core::Groups& groups) override {
    gpu::fetch_local(l, u, bs, op, root, ridx, leaf, lidx, n, upd, groups);
  }

private:
  cudaDeviceProp props() {
    int dev = 0;
    check(cudaGetDevice(&dev), "cudaGetDevice");
    cudaDeviceProp p{};
    check(cudaGetDeviceProperties(&p, dev), "cudaGetDeviceProperties");
    return p;
  }
};

}  // namespace

std::unique_ptr<DeviceApi> make_cuda_api() { return std::make_unique<CudaApi>(); }

}  // namespace sfr::exec::cuda
