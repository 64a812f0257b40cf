// core/kernels.hpp's bodies on the GPU: a grid-stride launcher and the device access policy
// (native atomics where CUDA has them, compare-and-swap loops for the other 4- and 8-byte
// elements, striped vertex locks for the rest).
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
#include <type_traits>

#include "exec/cuda/device_api.hpp"

namespace sfr::exec::cuda {

using core::Index;

namespace {

template <class F>
__global__ void each(Index n, F f) {
  for (Index t = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; t < n; t += static_cast<Index>(gridDim.x) * blockDim.x) f(t);
}

template <class W, class T>
__device__ W bits_of(const T& v) {
  W w;
  memcpy(&w, &v, sizeof w);
  return w;
}
template <class T, class W>
__device__ T value_of(W w) {
  T v;
  memcpy(&v, &w, sizeof v);
  return v;
}

// d = d OP s as one compare-and-swap loop on the element's 4 or 8 bytes.
template <class O, class T>
__device__ void cas_apply(T* d, const T& s) {
  using W = std::conditional_t<sizeof(T) == 4, unsigned int, unsigned long long>;
  W* a = reinterpret_cast<W*>(d);
  W old = *reinterpret_cast<volatile W*>(a), assumed;
  do {
    assumed = old;
    T v = value_of<T>(assumed);
    O::apply(v, s);
    const W w = bits_of<W>(v);
    if (w == assumed) return;
    old = atomicCAS(a, assumed, w);
  } while (old != assumed);
}

struct DeviceAccess {
  template <class T, class O>
  static constexpr bool can_apply = sizeof(T) == 4 || sizeof(T) == 8 ||
                                    (std::is_same_v<T, core::Complex128> && std::is_same_v<O, core::OpSum>);

  template <class O, class T>
  SFR_HD static void apply(T* d, const T& s) {
#if defined(__CUDA_ARCH__)
    if constexpr (std::is_same_v<T, core::Complex128>) {
      atomicAdd(&d->re, s.re);  // sum only (can_apply): each part is a sum of its own
      atomicAdd(&d->im, s.im);
    } else if constexpr (std::is_same_v<O, core::OpSum> && std::is_same_v<T, std::int32_t>) {
      atomicAdd(reinterpret_cast<int*>(d), static_cast<int>(s));
    } else if constexpr (std::is_same_v<O, core::OpSum> && std::is_same_v<T, std::int64_t>) {
      atomicAdd(reinterpret_cast<unsigned long long*>(d), static_cast<unsigned long long>(s));  // wraps as MPI's sum does
    } else if constexpr (std::is_same_v<O, core::OpSum> && (std::is_same_v<T, float> || std::is_same_v<T, double>)) {
      atomicAdd(d, s);
    } else if constexpr (std::is_same_v<O, core::OpReplace>) {
      using W = std::conditional_t<sizeof(T) == 4, unsigned int, unsigned long long>;
      atomicExch(reinterpret_cast<W*>(d), bits_of<W>(s));
    } else {
      cas_apply<O>(d, s);
    }
#else
    (void)d;
    (void)s;
#endif
  }
  SFR_HD static void lock(unsigned* locks, Index i) {
#if defined(__CUDA_ARCH__)
    unsigned* w = locks + core::lock_stripe(i);
    while (atomicCAS(w, 0u, 1u) != 0u) __nanosleep(32);
    __threadfence();
#else
    (void)locks;
    (void)i;
#endif
  }
  SFR_HD static void unlock(unsigned* locks, Index i) {
#if defined(__CUDA_ARCH__)
    __threadfence();
    atomicExch(locks + core::lock_stripe(i), 0u);
#else
    (void)locks;
    (void)i;
#endif
  }
  // Inside a lock: past the L1 cache (another SM may have written the vertex last).
  template <class T>
  SFR_HD static T load(const T* p) {
    static_assert(sizeof(T) % 4 == 0);
    unsigned w[sizeof(T) / 4];
    const volatile unsigned* s = reinterpret_cast<const volatile unsigned*>(p);
    for (unsigned i = 0; i < sizeof(T) / 4; ++i) w[i] = s[i];
    T v;
    memcpy(&v, w, sizeof v);
    return v;
  }
  template <class T>
  SFR_HD static void store(T* p, const T& v) {
    unsigned w[sizeof(T) / 4];
    memcpy(w, &v, sizeof v);
    volatile unsigned* d = reinterpret_cast<volatile unsigned*>(p);
    for (unsigned i = 0; i < sizeof(T) / 4; ++i) d[i] = w[i];
  }
};

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

struct DeviceLauncher {
  using Access = DeviceAccess;
  cudaStream_t stream;
  unsigned* lock_words;
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
  unsigned* locks() { return lock_words; }
};
using DeviceKernels = core::Kernels<DeviceLauncher>;

DeviceLauncher launcher(const Launch& l) { return {static_cast<cudaStream_t>(l.stream), l.locks}; }

}  // namespace

namespace gpu {

void pack(const Launch& l, core::Unit u, int bs, const std::byte* src, const core::IndexView& idx, Index n, std::byte* dst) {
  DeviceLauncher L = launcher(l);
  DeviceKernels::pack(L, u, bs, src, idx, n, dst);
}
void unpack(const Launch& l, core::Unit u, int bs, core::MpiOp op, const std::byte* src, const core::IndexView& idx, Index n,
            std::byte* dst, bool repeats) {
  DeviceLauncher L = launcher(l);
  DeviceKernels::unpack(L, u, bs, op, src, idx, n, dst, repeats);
}
void fetch_and_op(const Launch& l, core::Unit u, int bs, core::MpiOp op, const std::byte* src, const core::IndexView& idx, Index n,
                  std::byte* root, std::byte* fetched, bool repeats) {
  DeviceLauncher L = launcher(l);
  DeviceKernels::fetch_and_op(L, u, bs, op, src, idx, n, root, fetched, repeats);
}
void local(const Launch& l, core::Unit u, int bs, core::MpiOp op, const std::byte* src, const core::IndexView& sidx, std::byte* dst,
           const core::IndexView& didx, Index n, bool repeats) {
  DeviceLauncher L = launcher(l);
  DeviceKernels::local(L, u, bs, op, src, sidx, dst, didx, n, repeats);
}
void fetch_local(const Launch& l, core::Unit u, int bs, core::MpiOp op, std::byte* root, const core::IndexView& ridx, const std::byte* leaf,
                 const core::IndexView& lidx, Index n, std::byte* upd, bool repeats) {
  DeviceLauncher L = launcher(l);
  DeviceKernels::fetch_local(L, u, bs, op, root, ridx, leaf, lidx, n, upd, repeats);
}

}  // namespace gpu

}  // namespace sfr::exec::cuda
