// The pack / unpack kernels on a GPU: core/kernels.hpp's bodies launched on a stream (kernels.cu).
// Pointers are device memory; `locks` is kLockStripes zeroed words of device memory (vertex locks
// for repeated roots). Each call only enqueues work on the stream.
#pragma once

#include <cstddef>

#include "core/kernels.hpp"

namespace sfr::exec::cuda {

struct Launch {
  void* stream = nullptr;  // cudaStream_t
  unsigned* locks = nullptr;
};

void pack(const Launch& l, core::Unit u, int bs, const std::byte* src, const core::IndexView& idx, core::Index n, std::byte* dst);
void unpack(const Launch& l, core::Unit u, int bs, core::MpiOp op, const std::byte* src, const core::IndexView& idx, core::Index n,
            std::byte* dst, bool repeats);
void fetch_and_op(const Launch& l, core::Unit u, int bs, core::MpiOp op, const std::byte* src, const core::IndexView& idx, core::Index n,
                  std::byte* root, std::byte* fetched, bool repeats);
// The self part, both sides in device memory: dst[didx(k)] OP= src[sidx(k)], and its fetch-and-op.
void local(const Launch& l, core::Unit u, int bs, core::MpiOp op, const std::byte* src, const core::IndexView& sidx, std::byte* dst,
           const core::IndexView& didx, core::Index n, bool repeats);
void fetch_local(const Launch& l, core::Unit u, int bs, core::MpiOp op, std::byte* root, const core::IndexView& ridx, const std::byte* leaf,
                 const core::IndexView& lidx, core::Index n, std::byte* upd, bool repeats);

}  // namespace sfr::exec::cuda
