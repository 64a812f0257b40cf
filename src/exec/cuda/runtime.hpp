// The device runtime, as much as the executor uses, behind plain C++ types (no CUDA header here, so
// host-only code can hold device buffers). Each call goes to the process's device (device_api.hpp):
// the CUDA runtime, or the emulated device when SFR_EMULATE_DEVICE=SEED is set. Every failing call
// throws std::runtime_error with one line: what was called and the device's own message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace sfr::exec::cuda {

// GPUs this process sees; 0 when there is no driver or no device (never throws).
int device_count();
// Why there is no usable GPU ("" when there is one): the line a GPU-only path refuses with.
std::string no_gpu_reason();
// Makes GPU local_rank % count this process's device (ranks of a node spread over its GPUs).
void select_device(int local_rank);
// The device's name, e.g. "NVIDIA H100 80GB HBM3".
std::string device_name();
// This process's GPU, unique on its node (PCI bus id; "emulated" for the emulated device).
std::string device_id();
// Whether the device is the emulated one (SFR_EMULATE_DEVICE).
bool emulated_device();
// Whether the CUDA MPS control daemon appears to run for this user (its pipe directory's control
// socket exists): several processes' kernels then share the GPU instead of time-slicing it.
bool mps_running();

// Memory the CUDA runtime allocates, freed with the object: device memory (cudaMalloc) or
// page-locked host memory (cudaMallocHost: staging buffers).
enum class MemoryKind { device, pinned };
template <MemoryKind K>
class CudaMemory {
public:
  CudaMemory() = default;
  explicit CudaMemory(std::size_t bytes);
  ~CudaMemory();
  CudaMemory(CudaMemory&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  CudaMemory& operator=(CudaMemory&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    return *this;
  }
  CudaMemory(const CudaMemory&) = delete;
  CudaMemory& operator=(const CudaMemory&) = delete;
  std::byte* data() const { return p_; }
  std::size_t size() const { return n_; }

private:
  std::byte* p_ = nullptr;
  std::size_t n_ = 0;
};
using DeviceMemory = CudaMemory<MemoryKind::device>;
using PinnedMemory = CudaMemory<MemoryKind::pinned>;

// A non-blocking stream (one per star forest) and events on it.
class Stream {
public:
  Stream();
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  void* get() const { return s_; }
  void sync() const;

private:
  void* s_ = nullptr;
};

class Event {
public:
  Event();
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  void record(const Stream& s);
  void sync() const;

private:
  void* e_ = nullptr;
};

// Asynchronous copy on `s`; the direction is taken from the pointers (unified addressing).
void copy_async(void* dst, const void* src, std::size_t bytes, const Stream& s);
// A synchronous copy between host and device memory: complete, and seen by every stream, when it
// returns (cudaMemcpy alone is neither: it runs on the legacy stream, which the executor's
// non-blocking streams do not wait for, and from pageable memory it may return before the data
// are on the device).
void copy(void* dst, const void* src, std::size_t bytes);
void zero_async(void* dst, std::size_t bytes, const Stream& s);

// What this process has asked of its device so far, counted in the wrappers of this file, where
// every call of either implementation (the CUDA runtime, the emulated device) passes: kernel
// launches; synchronisations of a stream, an event or the whole device; copies by direction
// (device memory: this process's allocations and the peers' buffers it mapped through IPC; host:
// anything else, pinned buffers included) and their bytes; memsets. Counted with relaxed atomics: a call costs an increment.
struct DeviceCounts {
  std::int64_t launches = 0, stream_syncs = 0, event_syncs = 0, device_syncs = 0, memsets = 0;
  std::int64_t h2d = 0, h2d_bytes = 0, d2h = 0, d2h_bytes = 0, d2d = 0, d2d_bytes = 0;
  DeviceCounts operator-(const DeviceCounts& o) const;
  bool operator==(const DeviceCounts&) const = default;
};
DeviceCounts device_counts();

// CUDA IPC: a device allocation made visible to another process on the node.
inline constexpr std::size_t kIpcHandleBytes = 64;
struct IpcHandle {
  unsigned char bytes[kIpcHandleBytes];
};
IpcHandle ipc_handle(const void* device_ptr);
// Maps a peer's allocation of `bytes` (what its owner allocated: counted as device memory);
// close it with ipc_close.
std::byte* ipc_open(const IpcHandle& h, std::size_t bytes);
void ipc_close(std::byte* p);

}  // namespace sfr::exec::cuda
