// The pack / unpack kernels on the device: core/kernels.hpp's bodies launched on a stream (a GPU's,
// kernels.cu; or the emulated device's). Pointers, index lists and the destination groups (where a
// destination repeats) are device memory. Each call only enqueues work on the stream.
#pragma once

#include <cstddef>

#include "core/kernels.hpp"

namespace sfr::exec::cuda {

struct Launch {
  void* stream = nullptr;  // the device's stream (cudaStream_t on a GPU)
};

void pack(const Launch& l, core::Unit u, int bs, const std::byte* src, const core::IndexView& idx, core::Index n, std::byte* dst);
void unpack(const Launch& l, core::Unit u, int bs, core::MpiOp op, const std::byte* src, const core::IndexView& idx, core::Index n,
            std::byte* dst, const core::Groups& groups);
void fetch_and_op(const Launch& l, core::Unit u, int bs, core::MpiOp op, const std::byte* src, const core::IndexView& idx, core::Index n,
                  std::byte* root, std::byte* fetched, const core::Groups& groups);
// The self part, both sides in device memory: dst[didx(k)] OP= src[sidx(k)], and its fetch-and-op.
void local(const Launch& l, core::Unit u, int bs, core::MpiOp op, const std::byte* src, const core::IndexView& sidx, std::byte* dst,
           const core::IndexView& didx, core::Index n, const core::Groups& groups);
void fetch_local(const Launch& l, core::Unit u, int bs, core::MpiOp op, std::byte* root, const core::IndexView& ridx, const std::byte* leaf,
                 const core::IndexView& lidx, core::Index n, std::byte* upd, const core::Groups& groups);

}  // namespace sfr::exec::cuda
