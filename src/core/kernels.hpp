// The executor's pack / unpack kernels, written once. Each body is a functor whose
// operator()(Index t) does one thread's share of the work; it is SFR_HD, so the CUDA launcher
// (src/exec/cuda/kernels.cu) runs it as a grid and the host launcher below as a loop, and the host
// tests check the very index and op logic the GPU runs.
//
// A launcher L provides:
//   L::run(n, body)             run body(t) for t in [0, n)
//   L::copy(dst, src, bytes)    a plain copy (contiguous pack / replace unpack: no kernel)
//   L::Access                   how a body touches memory several threads may hit at once:
//     Access::template apply<O>(T* d, T s)       d = d OP s, atomically where that matters
//     Access::template can_apply<T, O>           whether apply is atomic for this element (else
//                                                the vertex is done under a lock)
//     Access::lock(locks, i) / unlock(locks, i)  a vertex lock (striped)
//     Access::load(p) / store(p, v)              element access inside a lock
//   L::locks()                  the lock words (kLockStripes of them)
// "repeats" says whether a destination index can occur more than once in a list (several leaves
// on one root); without repeats every body writes its own vertex and no atomic is needed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "core/ops.hpp"
#include "core/plan.hpp"
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
    const double ac = a * c, bd = b * d, ad = a * d, bc = b * c;
    double x = ac - bd, y = ad + bc;
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
        x = inf * (a * c - b * d);
        y = inf * (a * d + b * c);
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

inline constexpr unsigned kLockStripes = 4096;
SFR_HD inline unsigned lock_stripe(Index i) {
  return static_cast<unsigned>(static_cast<std::uint64_t>(i) * 0x9E3779B1u >> 7) % kLockStripes;
}

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

// dst[didx(k)*bs + c] OP= src[sidx(k)*bs + c], one thread per component (no repeats, or an atomic
// apply). An unpack is this with sidx the identity; the self part uses both lists.
template <class T, class O, class A>
struct LocalBody {
  const T* src;
  IndexView sidx;
  IndexView didx;
  Index bs;
  T* dst;
  bool atomic;
  SFR_HD void operator()(Index t) const {
    const Index k = quotient(t, bs), c = t - k * bs;
    T* d = dst + didx.at(k) * bs + c;
    const T s = src[sidx.at(k) * bs + c];
    if (atomic)
      A::template apply<O>(d, s);
    else
      O::apply(*d, s);
  }
};
// The same with whole vertices under the destination's lock: several leaves meet one root and an
// element-wise atomic cannot keep a vertex's components from one leaf (replace with bs > 1), or
// the element has no atomic (complex products).
template <class T, class O, class A>
struct LocalLockedBody {
  const T* src;
  IndexView sidx;
  IndexView didx;
  Index bs;
  T* dst;
  unsigned* locks;
  SFR_HD void operator()(Index k) const {
    const Index i = didx.at(k), j = sidx.at(k);
    A::lock(locks, i);
    for (Index c = 0; c < bs; ++c) {
      T v = A::load(dst + i * bs + c);
      O::apply(v, src[j * bs + c]);
      A::store(dst + i * bs + c, v);
    }
    A::unlock(locks, i);
  }
};
// Fetch-and-op: upd[lidx(k)] = root[ridx(k)]; root[ridx(k)] OP= leaf[lidx(k)], a whole vertex at a
// time (locked when roots repeat, so each leaf sees the root as one serial order left it). At the
// roots of received blocks lidx is the identity (the fetched values go back in arrival order).
template <class T, class O, class A>
struct FetchLocalBody {
  T* root;
  IndexView ridx;
  const T* leaf;
  IndexView lidx;
  Index bs;
  T* upd;
  unsigned* locks;
  SFR_HD void operator()(Index k) const {
    const Index i = ridx.at(k), j = lidx.at(k);
    if (locks) A::lock(locks, i);
    for (Index c = 0; c < bs; ++c) {
      T v = locks ? A::load(root + i * bs + c) : root[i * bs + c];
      upd[j * bs + c] = v;
      O::apply(v, leaf[j * bs + c]);
      if (locks)
        A::store(root + i * bs + c, v);
      else
        root[i * bs + c] = v;
    }
    if (locks) A::unlock(locks, i);
  }
};

// The launchers' entry points: one dispatch for host and device. Each picks the body by unit and
// op (an op MPI does not define on the unit throws std::invalid_argument).
template <class L>
struct Kernels {
  using A = typename L::Access;

  // Positions 0, 1, 2, ... (a packed buffer).
  static IndexView identity() {
    IndexView v;
    v.kind = IndexShape::contiguous;
    return v;
  }
  // Whether a list with repeats needs whole-vertex locks for this (unit, bs, op).
  template <class T, class O>
  static constexpr bool needs_lock(Index bs) {
    return !A::template can_apply<T, O> || (bs > 1 && std::is_same_v<O, OpReplace>);
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

  static void unpack(L& l, Unit unit, int bs, MpiOp op, const std::byte* src, const IndexView& idx, Index n, std::byte* dst, bool repeats) {
    if (n == 0) return;
    const std::size_t vb = unit_size(unit) * static_cast<std::size_t>(bs);
    if (op == MpiOp::replace && idx.kind == IndexShape::contiguous)
      return l.copy(dst + static_cast<std::size_t>(idx.start) * vb, src, static_cast<std::size_t>(n) * vb);
    visit_unit_op<Complex128>(unit, op, [&]<class T, class O>() {
      const T* s = reinterpret_cast<const T*>(src);
      T* d = reinterpret_cast<T*>(dst);
      if (repeats && needs_lock<T, O>(bs))
        l.run(n, LocalLockedBody<T, O, A>{s, identity(), idx, bs, d, l.locks()});
      else
        l.run(n * bs, LocalBody<T, O, A>{s, identity(), idx, bs, d, repeats});
    });
  }

  static void fetch_and_op(L& l, Unit unit, int bs, MpiOp op, const std::byte* src, const IndexView& idx, Index n, std::byte* root,
                           std::byte* fetched, bool repeats) {
    if (n == 0) return;
    visit_unit_op<Complex128>(unit, op, [&]<class T, class O>() {
      l.run(n, FetchLocalBody<T, O, A>{reinterpret_cast<T*>(root), idx, reinterpret_cast<const T*>(src), identity(), bs,
                                       reinterpret_cast<T*>(fetched), repeats ? l.locks() : nullptr});
    });
  }

  static void local(L& l, Unit unit, int bs, MpiOp op, const std::byte* src, const IndexView& sidx, std::byte* dst, const IndexView& didx,
                    Index n, bool repeats) {
    if (n == 0) return;
    visit_unit_op<Complex128>(unit, op, [&]<class T, class O>() {
      const T* s = reinterpret_cast<const T*>(src);
      T* d = reinterpret_cast<T*>(dst);
      if (repeats && needs_lock<T, O>(bs))
        l.run(n, LocalLockedBody<T, O, A>{s, sidx, didx, bs, d, l.locks()});
      else
        l.run(n * bs, LocalBody<T, O, A>{s, sidx, didx, bs, d, repeats});
    });
  }

  static void fetch_local(L& l, Unit unit, int bs, MpiOp op, std::byte* root, const IndexView& ridx, const std::byte* leaf,
                          const IndexView& lidx, Index n, std::byte* upd, bool repeats) {
    if (n == 0) return;
    visit_unit_op<Complex128>(unit, op, [&]<class T, class O>() {
      l.run(n, FetchLocalBody<T, O, A>{reinterpret_cast<T*>(root), ridx, reinterpret_cast<const T*>(leaf), lidx, bs,
                                       reinterpret_cast<T*>(upd), repeats ? l.locks() : nullptr});
    });
  }
};

// The host launcher: a loop in index order (so repeats apply in list order, as the reference does).
struct HostLauncher {
  struct Access {
    template <class T, class O>
    static constexpr bool can_apply = true;
    template <class O, class T>
    static void apply(T* d, const T& s) {
      O::apply(*d, s);
    }
    static void lock(unsigned*, Index) {}
    static void unlock(unsigned*, Index) {}
    template <class T>
    static T load(const T* p) {
      return *p;
    }
    template <class T>
    static void store(T* p, const T& v) {
      *p = v;
    }
  };
  template <class F>
  void run(Index n, const F& f) {
    for (Index t = 0; t < n; ++t) f(t);
  }
  void copy(std::byte* dst, const std::byte* src, std::size_t bytes) { std::memcpy(dst, src, bytes); }
  unsigned* locks() { return lock_words; }
  unsigned lock_words[1] = {0};
};
using HostKernels = Kernels<HostLauncher>;

// Whether an index list names some index twice (several leaves on one root).
bool has_repeats(std::span<const Index> idx, Index space);

}  // namespace sfr::core
