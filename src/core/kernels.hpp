// The executor's pack / unpack kernels, written once. Each body is a functor whose
// operator()(Index t) does one thread's share of the work; it is SFR_HD, so the CUDA launcher
// (src/exec/cuda/kernels.cu) runs it as a grid and the host launcher below as a loop, and the host
// tests check the very index and op logic the GPU runs.
//
// A launcher L provides:
//   L::run(n, body)             run body(t) for t in [0, n)
//   L::copy(dst, src, bytes)    a plain copy (contiguous pack / replace unpack: no kernel)
// Every thread writes its own destination elements (Groups, below, where a destination repeats),
// so no body needs an atomic or a lock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "core/ops.hpp"
#include "core/peer_lists.hpp"
#include "core/units.hpp"

namespace sfr::core {

// IEEE helpers usable in device code too (no <cmath> there): NaN, infinity, sign bit.
SFR_HD inline bool is_nan(double v) { return v != v; }
SFR_HD inline bool is_inf(double v) { return v == v && !(v - v == 0); }
SFR_HD inline double with_sign_of(double magnitude, double s) {  // magnitude >= 0
  std::uint64_t b = 0;
  memcpy(&b, &s, sizeof b);
  return (b >> 63) ? -magnitude : magnitude;
}

// Each product and sum rounded on its own, as the host and the MPI library compute them. nvcc
// contracts `a * c - b * d` into a fused multiply-add by default, which rounds once and overflows
// elsewhere: an H100 ended the hot root's complex product of 12,000 factors in other infinities
// and NaNs than the reference (tests/core/test_kernels.cpp shows the two differ). The _rn
// intrinsics are never contracted.
SFR_HD inline double mul_rn(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
SFR_HD inline double add_rn(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
SFR_HD inline double sub_rn(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}

// complex128 inside kernels: std::complex's operators are host-only code. Same layout as
// std::complex<double> (real, imaginary), so buffers are reinterpreted, never converted.
struct Complex128 {
  double re, im;
  SFR_HD friend Complex128 operator+(const Complex128& a, const Complex128& b) { return {a.re + b.re, a.im + b.im}; }
  // The product as C99/C11 Annex G defines it (G.5.1's _Cmultd; what std::complex and the MPI
  // library's complex product compute): where the textbook formula gives NaN + NaN i because a
  // factor is infinite or a partial product overflowed, the result is recovered as an infinity,
  // so a product of many leaves that overflows ends the same whichever code computed it.
  SFR_HD friend Complex128 operator*(const Complex128& z, const Complex128& w) {
    double a = z.re, b = z.im, c = w.re, d = w.im;
    const double ac = mul_rn(a, c), bd = mul_rn(b, d), ad = mul_rn(a, d), bc = mul_rn(b, c);
    double x = sub_rn(ac, bd), y = add_rn(ad, bc);
    if (is_nan(x) && is_nan(y)) {
      bool recalc = false;
      if (is_inf(a) || is_inf(b)) {
        a = with_sign_of(is_inf(a) ? 1.0 : 0.0, a);
        b = with_sign_of(is_inf(b) ? 1.0 : 0.0, b);
        if (is_nan(c)) c = with_sign_of(0.0, c);
        if (is_nan(d)) d = with_sign_of(0.0, d);
        recalc = true;
      }
      if (is_inf(c) || is_inf(d)) {
        c = with_sign_of(is_inf(c) ? 1.0 : 0.0, c);
        d = with_sign_of(is_inf(d) ? 1.0 : 0.0, d);
        if (is_nan(a)) a = with_sign_of(0.0, a);
        if (is_nan(b)) b = with_sign_of(0.0, b);
        recalc = true;
      }
      if (!recalc && (is_inf(ac) || is_inf(bd) || is_inf(ad) || is_inf(bc))) {
        if (is_nan(a)) a = with_sign_of(0.0, a);
        if (is_nan(b)) b = with_sign_of(0.0, b);
        if (is_nan(c)) c = with_sign_of(0.0, c);
        if (is_nan(d)) d = with_sign_of(0.0, d);
        recalc = true;
      }
      if (recalc) {
        const double inf = 1e308 * 10.0;
        x = inf * sub_rn(mul_rn(a, c), mul_rn(b, d));
        y = inf * add_rn(mul_rn(a, d), mul_rn(b, c));
      }
    }
    return {x, y};
  }
};
template <>
inline constexpr bool is_complex_v<Complex128> = true;

// a / b for a >= 0, b >= 1. On a GPU a 64-bit division is a long instruction sequence, which
// would bound the memory-bound bodies; every thread of a launch takes the same branch here.
SFR_HD inline Index quotient(Index a, Index b) {
  if (b == 1) return a;
  if (a <= 0xffffffff && b <= 0xffffffff) return static_cast<Index>(static_cast<std::uint32_t>(a) / static_cast<std::uint32_t>(b));
  return a / b;
}

// An index list as kernels read it: by shape, or (general) from `list`, which lives where the
// kernel runs (device memory for the CUDA launcher).
struct IndexView {
  IndexShape::Kind kind = IndexShape::empty;
  Index start = 0, stride = 0, nx = 1, ny = 1, y_stride = 0, z_stride = 0;
  const Index* list = nullptr;

  SFR_HD Index at(Index k) const {
    switch (kind) {
      case IndexShape::contiguous: return start + k;
      case IndexShape::strided: return start + k * stride;
      case IndexShape::block3d: {
        const Index r = quotient(k, nx), z = quotient(r, ny), x = k - r * nx, y = r - z * ny;
        return start + x + y * y_stride + z * z_stride;
      }
      default: return list[k];
    }
  }
};
inline IndexView index_view(const IndexShape& s, const Index* list) {
  IndexView v;
  v.kind = s.kind;
  v.start = s.start;
  v.stride = s.stride;
  v.nx = s.nx > 0 ? s.nx : 1;
  v.ny = s.ny > 0 ? s.ny : 1;
  v.y_stride = s.y_stride;
  v.z_stride = s.z_stride;
  v.list = list;
  return v;
}
// A general list (the self part's lists).
inline IndexView index_view(const Index* list) {
  IndexView v;
  v.kind = IndexShape::general;
  v.list = list;
  return v;
}

// Where a list names some destination more than once (several leaves on one root): its positions
// grouped by destination, so that one thread applies all of a destination's values, in list
// order. No atomics and no locks: a root with thousands of leaves is one thread's loop, where
// element atomics (compare-and-swap loops) or a vertex lock would have thousands of threads
// contending for one word, and a vertex's components all see the same serial order. Built once
// per list on the host (group_by_destination) and copied where the kernel runs; `none` (no
// groups) where no destination repeats.
struct Groups {
  Index ngroups = 0;
  const Index* starts = nullptr;  // ngroups + 1 offsets into `order`
  const Index* order = nullptr;   // the list's positions by destination; list order within a destination
  SFR_HD bool any() const { return ngroups > 0; }
};
// The host arrays behind a Groups (empty where no destination repeats).
struct GroupLists {
  std::vector<Index> starts, order;
  bool any() const { return !order.empty(); }
  Groups view() const { return view(starts.data(), order.data()); }
  // The same groups with the arrays at other addresses (their copies in device memory).
  Groups view(const Index* s, const Index* o) const { return any() ? Groups{static_cast<Index>(starts.size()) - 1, s, o} : Groups{}; }
};
// Groups of `idx` (every index in [0, space)); empty where no index repeats.
GroupLists group_by_destination(std::span<const Index> idx, Index space);

// dst[k*bs + c] = src[idx(k)*bs + c], one thread per component.
template <class T>
struct PackBody {
  const T* src;
  IndexView idx;
  Index bs;
  T* dst;
  SFR_HD void operator()(Index t) const {
    const Index k = quotient(t, bs), c = t - k * bs;
    dst[t] = src[idx.at(k) * bs + c];
  }
};

// dst[didx(k)*bs + c] OP= src[sidx(k)*bs + c], one thread per component, where no destination
// repeats. An unpack is this with sidx the identity; the self part uses both lists.
template <class T, class O>
struct LocalBody {
  const T* src;
  IndexView sidx;
  IndexView didx;
  Index bs;
  T* dst;
  SFR_HD void operator()(Index t) const {
    const Index k = quotient(t, bs), c = t - k * bs;
    O::apply(dst[didx.at(k) * bs + c], src[sidx.at(k) * bs + c]);
  }
};
// The same where destinations repeat: one thread per (destination, component) applies the
// destination's values in list order.
template <class T, class O>
struct GroupedLocalBody {
  const T* src;
  IndexView sidx;
  IndexView didx;
  Index bs;
  T* dst;
  Groups g;
  SFR_HD void operator()(Index t) const {
    const Index grp = quotient(t, bs), c = t - grp * bs;
    const Index b = g.starts[grp], e = g.starts[grp + 1];
    T* d = dst + didx.at(g.order[b]) * bs + c;
    T v = *d;
    for (Index j = b; j < e; ++j) O::apply(v, src[sidx.at(g.order[j]) * bs + c]);
    *d = v;
  }
};
// Fetch-and-op: upd[lidx(k)] = root[ridx(k)]; root[ridx(k)] OP= leaf[lidx(k)], one thread per
// component; with groups, one thread per (root, component) walks the root's leaves in list order
// (so each leaf sees the root as one serial order left it, the same order for every component).
// At the roots of received blocks lidx is the identity (the fetched values go back in arrival order).
template <class T, class O>
struct FetchLocalBody {
  T* root;
  IndexView ridx;
  const T* leaf;
  IndexView lidx;
  Index bs;
  T* upd;
  Groups g;
  SFR_HD void apply(Index k, Index c) const {
    const Index i = ridx.at(k) * bs + c, j = lidx.at(k) * bs + c;
    T v = root[i];
    upd[j] = v;
    O::apply(v, leaf[j]);
    root[i] = v;
  }
  SFR_HD void operator()(Index t) const {
    const Index q = quotient(t, bs), c = t - q * bs;
    if (!g.any()) return apply(q, c);
    for (Index j = g.starts[q]; j < g.starts[q + 1]; ++j) apply(g.order[j], c);
  }
};

// The launchers' entry points: one dispatch for host and device. Each picks the body by unit and
// op (an op MPI does not define on the unit throws std::invalid_argument). `groups`: those of the
// destination list (unpack: idx; local: didx; fetch-and-op: the roots' list), or none.
template <class L>
struct Kernels {
  // Positions 0, 1, 2, ... (a packed buffer).
  static IndexView identity() {
    IndexView v;
    v.kind = IndexShape::contiguous;
    return v;
  }

  static void pack(L& l, Unit unit, int bs, const std::byte* src, const IndexView& idx, Index n, std::byte* dst) {
    if (n == 0) return;
    const std::size_t vb = unit_size(unit) * static_cast<std::size_t>(bs);
    if (idx.kind == IndexShape::contiguous)
      return l.copy(dst, src + static_cast<std::size_t>(idx.start) * vb, static_cast<std::size_t>(n) * vb);
    visit_unit<Complex128>(unit, [&]<class T>() {
      l.run(n * bs, PackBody<T>{reinterpret_cast<const T*>(src), idx, bs, reinterpret_cast<T*>(dst)});
    });
  }

  static void unpack(L& l, Unit unit, int bs, MpiOp op, const std::byte* src, const IndexView& idx, Index n, std::byte* dst,
                     const Groups& groups) {
    if (n == 0) return;
    const std::size_t vb = unit_size(unit) * static_cast<std::size_t>(bs);
    if (op == MpiOp::replace && idx.kind == IndexShape::contiguous)
      return l.copy(dst + static_cast<std::size_t>(idx.start) * vb, src, static_cast<std::size_t>(n) * vb);
    local(l, unit, bs, op, src, identity(), dst, idx, n, groups);
  }

  static void fetch_and_op(L& l, Unit unit, int bs, MpiOp op, const std::byte* src, const IndexView& idx, Index n, std::byte* root,
                           std::byte* fetched, const Groups& groups) {
    fetch_local(l, unit, bs, op, root, idx, src, identity(), n, fetched, groups);
  }

  static void local(L& l, Unit unit, int bs, MpiOp op, const std::byte* src, const IndexView& sidx, std::byte* dst, const IndexView& didx,
                    Index n, const Groups& groups) {
    if (n == 0) return;
    visit_unit_op<Complex128>(unit, op, [&]<class T, class O>() {
      const T* s = reinterpret_cast<const T*>(src);
      T* d = reinterpret_cast<T*>(dst);
      if (groups.any())
        l.run(groups.ngroups * bs, GroupedLocalBody<T, O>{s, sidx, didx, bs, d, groups});
      else
        l.run(n * bs, LocalBody<T, O>{s, sidx, didx, bs, d});
    });
  }

  static void fetch_local(L& l, Unit unit, int bs, MpiOp op, std::byte* root, const IndexView& ridx, const std::byte* leaf,
                          const IndexView& lidx, Index n, std::byte* upd, const Groups& groups) {
    if (n == 0) return;
    visit_unit_op<Complex128>(unit, op, [&]<class T, class O>() {
      l.run((groups.any() ? groups.ngroups : n) * bs, FetchLocalBody<T, O>{reinterpret_cast<T*>(root), ridx, reinterpret_cast<const T*>(leaf),
                                                                           lidx, bs, reinterpret_cast<T*>(upd), groups});
    });
  }
};

// The host launcher: a loop in index order.
struct HostLauncher {
  template <class F>
  void run(Index n, const F& f) {
    for (Index t = 0; t < n; ++t) f(t);
  }
  void copy(std::byte* dst, const std::byte* src, std::size_t bytes) { std::memcpy(dst, src, bytes); }
};
using HostKernels = Kernels<HostLauncher>;

// Whether an index list names some index twice (several leaves on one root).
bool has_repeats(std::span<const Index> idx, Index space);

}  // namespace sfr::core
