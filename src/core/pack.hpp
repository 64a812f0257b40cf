// Pack / unpack kernels shared by every executor backend (host now; the element functions are
// SFR_HD so a CUDA backend can wrap them in kernels). A "vertex" is a block of bs components of
// one unit. Index lists come with their IndexShape so contiguous / strided / 3-D block lists skip
// the index loop.
#pragma once

#include <cstddef>
#include <cstring>
#include <span>

#include "core/ops.hpp"
#include "core/peer_lists.hpp"

namespace sfr::core {

// Visits the k-th index of a list (by shape when it has one), k ascending: the sequential walk
// (no divisions) of what IndexView::at (core/kernels.hpp) computes for one k, as a GPU thread needs.
template <class F>
inline void for_each_index(std::span<const Index> idx, const IndexShape& shape, F&& f) {
  switch (shape.kind) {
    case IndexShape::empty: return;
    case IndexShape::contiguous:
      for (Index k = 0; k < shape.count; ++k) f(k, shape.start + k);
      return;
    case IndexShape::strided:
      for (Index k = 0; k < shape.count; ++k) f(k, shape.start + k * shape.stride);
      return;
    case IndexShape::block3d: {
      Index k = 0;
      for (Index z = 0; z < shape.nz; ++z)
        for (Index y = 0; y < shape.ny; ++y) {
          const Index base = shape.start + y * shape.y_stride + z * shape.z_stride;
          for (Index x = 0; x < shape.nx; ++x) f(k++, base + x);
        }
      return;
    }
    case IndexShape::general:
      for (size_t k = 0; k < idx.size(); ++k) f(static_cast<Index>(k), idx[k]);
      return;
  }
}

// dst[k] = src[idx[k]] (vertex blocks of vbytes bytes).
void pack(const std::byte* src, std::span<const Index> idx, const IndexShape& shape, std::size_t vbytes, std::byte* dst);

// dst[idx[k]] = dst[idx[k]] OP src[k], k in list order (duplicates apply in order).
void unpack(Unit unit, int bs, MpiOp op, const std::byte* src, std::span<const Index> idx, const IndexShape& shape, std::byte* dst);

// Fetch-and-op at the root side: fetched[k] = root[idx[k]]; root[idx[k]] = root[idx[k]] OP src[k].
void fetch_and_op_unpack(Unit unit, int bs, MpiOp op, const std::byte* src, std::span<const Index> idx, const IndexShape& shape,
                         std::byte* root, std::byte* fetched);

// Local (self) part: dst[didx[k]] = dst[didx[k]] OP src[sidx[k]].
void scatter_local(Unit unit, int bs, MpiOp op, const std::byte* src, std::span<const Index> sidx, std::byte* dst,
                   std::span<const Index> didx);
// Local fetch-and-op: upd[lidx[k]] = root[ridx[k]]; root[ridx[k]] OP= leaf[lidx[k]].
void fetch_and_op_local(Unit unit, int bs, MpiOp op, std::byte* root, std::span<const Index> ridx, const std::byte* leaf,
                        std::span<const Index> lidx, std::byte* upd);

}  // namespace sfr::core
