// A rank's lists as kernels where its data live: the index lists of both sides and of the self part
// (and their destination groups, core/kernels.hpp) uploaded to device memory once, and pack /
// unpack / fetch-and-op / self-part calls that run on the device for a side in device memory and
// with the host launcher (the same kernel bodies) for a side in host memory. All device work goes
// on one stream. Shared by the CUDA transports (device_sf.cpp) and the host backends' driver
// (exec/mpi/star_forest.cpp) when a call's buffers are device memory.
#pragma once

#include "core/kernels.hpp"
#include "core/op_spec.hpp"
#include "core/peer_lists.hpp"
#include "exec/cuda/runtime.hpp"
#include "exec/sf.hpp"

namespace sfr::exec::cuda {

class ListKernels {
public:
  // `plan` must outlive this object.
  explicit ListKernels(const core::RankLists& plan);
  ListKernels(const ListKernels&) = delete;
  ListKernels& operator=(const ListKernels&) = delete;

  const Stream& stream() const { return stream_; }
  void sync() const { stream_.sync(); }

  // One side of the plan (plan.root_side or plan.leaf_side) as a whole concatenated list.
  // pack: dst[k] = src[list[k]]; dst is in the same memory as src.
  void pack(const core::PeerLists& side, core::Unit u, int bs, Data src, std::byte* dst) const;
  // unpack: dst[list[k]] OP= src[k] in list order; src is in the same memory as dst. Roots repeat
  // on the root side only (several leaves on one root), where the groups keep PETSc's order.
  void unpack(const core::PeerLists& side, core::Unit u, int bs, core::MpiOp op, const std::byte* src, Data dst) const;
  // The root side's fetch-and-op: root[list[k]] OP= src[k], fetched[k] = the value before; src and
  // fetched are in the root's memory.
  void fetch(core::Unit u, int bs, core::MpiOp op, const std::byte* src, Data root, std::byte* fetched) const;
  // The self part of an op (self_leaves[k] <- self_roots[k]), each side where it lives; mixed
  // memtypes go through `dself` / `hself` (2 * self count * vertex bytes each, device / host).
  // Synchronous when the memtypes are mixed, enqueued otherwise.
  void self_part(core::Motion kind, core::Unit u, int bs, core::MpiOp op, Data root, Data leaf, Data update, std::byte* dself,
                 std::byte* hself) const;

private:
  struct At {
    core::IndexView dev, host;
  };
  struct GroupsAt {
    core::Groups dev, host;
  };
  At side_view(const core::PeerLists& side) const;

  const core::RankLists& lists_;
  Stream stream_;
  DeviceMemory root_idx_, leaf_idx_, self_root_idx_, self_leaf_idx_;
  core::GroupLists root_groups_, self_groups_;
  DeviceMemory root_groups_dev_[2], self_groups_dev_[2];  // starts, order
  GroupsAt root_at_, self_at_;
};

}  // namespace sfr::exec::cuda
