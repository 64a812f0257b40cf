// The device interface under the CUDA executor (internal): everything the transports and the
// runtime wrappers (runtime.hpp, kernels.hpp) ask of a GPU, with two implementations:
//   cuda_api.cpp   the CUDA runtime (built where nvcc was found at configure time);
//   emulated.cpp   an emulated device, in every build: device memory is host memory in a shared-
//                  memory segment of the node (so that "IPC" maps it into another process), and a
//                  stream is a worker thread that runs its queued copies and kernels (the host
//                  launcher of core/kernels.hpp) later, in order, each after a seeded random delay;
//                  events and synchronisation behave as CUDA defines them.
// device_api() picks one, once per process: SFR_EMULATE_DEVICE=SEED (an unsigned integer) selects
// the emulated device; unset, the CUDA runtime where this build has one, else no device at all.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "exec/cuda/kernels.hpp"
#include "exec/cuda/runtime.hpp"

namespace sfr::exec::cuda {

class DeviceApi {
public:
  virtual ~DeviceApi() = default;
  virtual bool emulated() const = 0;
  virtual int device_count() = 0;
  virtual std::string no_gpu_reason() = 0;
  virtual void select_device(int local_rank) = 0;
  virtual std::string device_name() = 0;
  // Names this process's GPU uniquely on its node (PCI bus id), to count the ranks sharing it.
  virtual std::string device_id() = 0;

  virtual void* allocate(std::size_t bytes, MemoryKind k) = 0;
  virtual void release(void* p, MemoryKind k) noexcept = 0;
  virtual void* stream_create() = 0;
  virtual void stream_destroy(void* s) noexcept = 0;
  virtual void stream_sync(void* s) = 0;
  virtual void* event_create() = 0;
  virtual void event_destroy(void* e) noexcept = 0;
  virtual void event_record(void* e, void* s) = 0;
  virtual void event_sync(void* e) = 0;
  // cudaMemcpyAsync / cudaMemsetAsync on stream s.
  virtual void copy_async(void* dst, const void* src, std::size_t bytes, void* s) = 0;
  virtual void zero_async(void* dst, std::size_t bytes, void* s) = 0;
  // cudaMemcpy as CUDA defines it: on the legacy default stream, which the executor's non-blocking
  // streams do not wait for, and (host to device from pageable memory) it may return before the
  // data are in device memory. runtime.hpp's copy() adds the device_sync() that makes it safe.
  virtual void copy_raw(void* dst, const void* src, std::size_t bytes) = 0;
  // cudaDeviceSynchronize: every stream of this process, the legacy one included.
  virtual void device_sync() = 0;
  virtual IpcHandle ipc_handle(const void* p) = 0;
  virtual std::byte* ipc_open(const IpcHandle& h) = 0;
  virtual void ipc_close(std::byte* p) noexcept = 0;

  // core/kernels.hpp's entry points, enqueued on l.stream.
  virtual void pack(const Launch& l, core::Unit u, int bs, const std::byte* src, const core::IndexView& idx, core::Index n,
                    std::byte* dst) = 0;
  virtual void unpack(const Launch& l, core::Unit u, int bs, core::MpiOp op, const std::byte* src, const core::IndexView& idx,
                      core::Index n, std::byte* dst, const core::Groups& groups) = 0;
  virtual void fetch_and_op(const Launch& l, core::Unit u, int bs, core::MpiOp op, const std::byte* src, const core::IndexView& idx,
                            core::Index n, std::byte* root, std::byte* fetched, const core::Groups& groups) = 0;
  virtual void local(const Launch& l, core::Unit u, int bs, core::MpiOp op, const std::byte* src, const core::IndexView& sidx,
                     std::byte* dst, const core::IndexView& didx, core::Index n, const core::Groups& groups) = 0;
  virtual void fetch_local(const Launch& l, core::Unit u, int bs, core::MpiOp op, std::byte* root, const core::IndexView& ridx,
                           const std::byte* leaf, const core::IndexView& lidx, core::Index n, std::byte* upd, const core::Groups& groups) = 0;
};

// The kernels on a GPU (kernels.cu, in CUDA builds only): core/kernels.hpp's bodies as grids.
namespace gpu {
void pack(const Launch& l, core::Unit u, int bs, const std::byte* src, const core::IndexView& idx, core::Index n, std::byte* dst);
void unpack(const Launch& l, core::Unit u, int bs, core::MpiOp op, const std::byte* src, const core::IndexView& idx, core::Index n,
            std::byte* dst, const core::Groups& groups);
void fetch_and_op(const Launch& l, core::Unit u, int bs, core::MpiOp op, const std::byte* src, const core::IndexView& idx, core::Index n,
                  std::byte* root, std::byte* fetched, const core::Groups& groups);
void local(const Launch& l, core::Unit u, int bs, core::MpiOp op, const std::byte* src, const core::IndexView& sidx, std::byte* dst,
           const core::IndexView& didx, core::Index n, const core::Groups& groups);
void fetch_local(const Launch& l, core::Unit u, int bs, core::MpiOp op, std::byte* root, const core::IndexView& ridx, const std::byte* leaf,
                 const core::IndexView& lidx, core::Index n, std::byte* upd, const core::Groups& groups);
}  // namespace gpu

// The process's device (chosen on first use; throws InputError for a malformed SFR_EMULATE_DEVICE).
DeviceApi& device_api();
// The emulated device with its delay seed (emulated.cpp).
std::unique_ptr<DeviceApi> make_emulated_api(std::uint64_t seed);
// The CUDA runtime (cuda_api.cpp), or nullptr in a build without CUDA.
std::unique_ptr<DeviceApi> make_cuda_api();

}  // namespace sfr::exec::cuda
