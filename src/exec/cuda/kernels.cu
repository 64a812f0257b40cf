// core/kernels.hpp's bodies on the GPU: a grid-stride launcher. No body needs an atomic or a lock
// (repeated destinations are grouped, one thread per destination: core/kernels.hpp's Groups).
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "exec/cuda/device_api.hpp"

namespace sfr::exec::cuda {

using core::Index;

namespace {

template <class F>
__global__ void each(Index n, F f) {
  for (Index t = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; t < n; t += static_cast<Index>(gridDim.x) * blockDim.x) f(t);
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

struct DeviceLauncher {
  cudaStream_t stream;
  template <class F>
  void run(Index n, const F& f) {
    if (n <= 0) return;
    constexpr int kBlock = 256;
    const Index blocks = (n + kBlock - 1) / kBlock;
    const unsigned grid = static_cast<unsigned>(blocks < 65536 ? blocks : 65536);
    each<<<grid, kBlock, 0, stream>>>(n, f);
    check(cudaGetLastError(), "kernel launch");
  }
  void copy(std::byte* dst, const std::byte* src, std::size_t bytes) {
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync (device to device)");
  }
};
using DeviceKernels = core::Kernels<DeviceLauncher>;

DeviceLauncher launcher(const Launch& l) { return {static_cast<cudaStream_t>(l.stream)}; }

}  // namespace

namespace gpu {

void pack(const Launch& l, core::Unit u, int bs, const std::byte* src, const core::IndexView& idx, Index n, std::byte* dst) {
  DeviceLauncher L = launcher(l);
  DeviceKernels::pack(L, u, bs, src, idx, n, dst);
}
void unpack(const Launch& l, core::Unit u, int bs, core::MpiOp op, const std::byte* src, const core::IndexView& idx, Index n,
            std::byte* dst, const core::Groups& groups) {
  DeviceLauncher L = launcher(l);
  DeviceKernels::unpack(L, u, bs, op, src, idx, n, dst, groups);
}
void fetch_and_op(const Launch& l, core::Unit u, int bs, core::MpiOp op, const std::byte* src, const core::IndexView& idx, Index n,
                  std::byte* root, std::byte* fetched, const core::Groups& groups) {
  DeviceLauncher L = launcher(l);
  DeviceKernels::fetch_and_op(L, u, bs, op, src, idx, n, root, fetched, groups);
}
void local(const Launch& l, core::Unit u, int bs, core::MpiOp op, const std::byte* src, const core::IndexView& sidx, std::byte* dst,
           const core::IndexView& didx, Index n, const core::Groups& groups) {
  DeviceLauncher L = launcher(l);
  DeviceKernels::local(L, u, bs, op, src, sidx, dst, didx, n, groups);
}
void fetch_local(const Launch& l, core::Unit u, int bs, core::MpiOp op, std::byte* root, const core::IndexView& ridx, const std::byte* leaf,
                 const core::IndexView& lidx, Index n, std::byte* upd, const core::Groups& groups) {
  DeviceLauncher L = launcher(l);
  DeviceKernels::fetch_local(L, u, bs, op, root, ridx, leaf, lidx, n, upd, groups);
}

}  // namespace gpu

}  // namespace sfr::exec::cuda
