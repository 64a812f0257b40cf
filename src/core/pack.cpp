#include "core/pack.hpp"

#include <stdexcept>
#include <string>

namespace sfr::core {

namespace {

// Calls f(copy) where copy(dst, src) moves one vertex of vbytes bytes. Common vertex sizes get a
// fixed-size memcpy the compiler turns into plain moves; a runtime-size memcpy per vertex is a
// library call each and made packing ~3x slower (SpMV bcast on bcspwr10: 16 vs 10 us per op).
template <class F>
void with_vertex_copy(std::size_t vbytes, F&& f) {
  auto fixed = [&]<std::size_t N>() { f([](std::byte* d, const std::byte* s) { std::memcpy(d, s, N); }); };
  switch (vbytes) {
    case 1: return fixed.template operator()<1>();
    case 2: return fixed.template operator()<2>();
    case 4: return fixed.template operator()<4>();
    case 8: return fixed.template operator()<8>();
    case 12: return fixed.template operator()<12>();
    case 16: return fixed.template operator()<16>();
    case 24: return fixed.template operator()<24>();
    case 32: return fixed.template operator()<32>();
    default: f([vbytes](std::byte* d, const std::byte* s) { std::memcpy(d, s, vbytes); });
  }
}

}  // namespace

void pack(const std::byte* src, std::span<const Index> idx, const IndexShape& shape, std::size_t vbytes, std::byte* dst) {
  if (shape.kind == IndexShape::contiguous) {
    std::memcpy(dst, src + static_cast<size_t>(shape.start) * vbytes, static_cast<size_t>(shape.count) * vbytes);
    return;
  }
  with_vertex_copy(vbytes, [&](auto copy) {
    for_each_index(idx, shape,
                   [&](Index k, Index i) { copy(dst + static_cast<size_t>(k) * vbytes, src + static_cast<size_t>(i) * vbytes); });
  });
}

void unpack(Unit unit, int bs, MpiOp op, const std::byte* src, std::span<const Index> idx, const IndexShape& shape, std::byte* dst) {
  const size_t vbytes = unit_size(unit) * static_cast<size_t>(bs);
  if (op == MpiOp::replace) {
    if (shape.kind == IndexShape::contiguous) {
      std::memcpy(dst + static_cast<size_t>(shape.start) * vbytes, src, static_cast<size_t>(shape.count) * vbytes);
      return;
    }
    with_vertex_copy(vbytes, [&](auto copy) {
      for_each_index(idx, shape,
                     [&](Index k, Index i) { copy(dst + static_cast<size_t>(i) * vbytes, src + static_cast<size_t>(k) * vbytes); });
    });
    return;
  }
  const auto b = static_cast<size_t>(bs);
  visit_unit_op(unit, op, [&]<class T, class O>() {
    const T* s = reinterpret_cast<const T*>(src);
    T* d = reinterpret_cast<T*>(dst);
    if (b == 1) {  // the common case (scalar fields) without the component loop
      for_each_index(idx, shape, [&](Index k, Index i) { O::apply(d[static_cast<size_t>(i)], s[static_cast<size_t>(k)]); });
      return;
    }
    for_each_index(idx, shape, [&](Index k, Index i) {
      for (size_t c = 0; c < b; ++c) O::apply(d[static_cast<size_t>(i) * b + c], s[static_cast<size_t>(k) * b + c]);
    });
  });
}

void fetch_and_op_unpack(Unit unit, int bs, MpiOp op, const std::byte* src, std::span<const Index> idx, const IndexShape& shape,
                         std::byte* root, std::byte* fetched) {
  const auto b = static_cast<size_t>(bs);
  visit_unit_op(unit, op, [&]<class T, class O>() {
    const T* s = reinterpret_cast<const T*>(src);
    T* r = reinterpret_cast<T*>(root);
    T* f = reinterpret_cast<T*>(fetched);
    for_each_index(idx, shape, [&](Index k, Index i) {
      for (size_t c = 0; c < b; ++c) {
        f[static_cast<size_t>(k) * b + c] = r[static_cast<size_t>(i) * b + c];
        O::apply(r[static_cast<size_t>(i) * b + c], s[static_cast<size_t>(k) * b + c]);
      }
    });
  });
}

void scatter_local(Unit unit, int bs, MpiOp op, const std::byte* src, std::span<const Index> sidx, std::byte* dst,
                   std::span<const Index> didx) {
  const auto b = static_cast<size_t>(bs);
  visit_unit_op(unit, op, [&]<class T, class O>() {
    const T* s = reinterpret_cast<const T*>(src);
    T* d = reinterpret_cast<T*>(dst);
    for (size_t k = 0; k < sidx.size(); ++k)
      for (size_t c = 0; c < b; ++c) O::apply(d[static_cast<size_t>(didx[k]) * b + c], s[static_cast<size_t>(sidx[k]) * b + c]);
  });
}

void fetch_and_op_local(Unit unit, int bs, MpiOp op, std::byte* root, std::span<const Index> ridx, const std::byte* leaf,
                        std::span<const Index> lidx, std::byte* upd) {
  const auto b = static_cast<size_t>(bs);
  visit_unit_op(unit, op, [&]<class T, class O>() {
    T* r = reinterpret_cast<T*>(root);
    const T* l = reinterpret_cast<const T*>(leaf);
    T* u = reinterpret_cast<T*>(upd);
    for (size_t k = 0; k < ridx.size(); ++k)
      for (size_t c = 0; c < b; ++c) {
        T& dst = r[static_cast<size_t>(ridx[k]) * b + c];
        u[static_cast<size_t>(lidx[k]) * b + c] = dst;
        O::apply(dst, l[static_cast<size_t>(lidx[k]) * b + c]);
      }
  });
}

}  // namespace sfr::core
