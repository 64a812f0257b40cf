// The MPI executor's star forest: PetscSF-style begin/end pairs for every op on one rank of a
// communicator. Setup (plan, communicator, backend state) is done once per SF; buffers and
// (persistent) requests live in "links" that are reused, one per (direction, vertex size) in
// flight, so several ops on different buffers can be in flight at once.
//
// Every op is collective: all ranks call the same sequence of begins and ends (as with PetscSF).
// begin = pack -> local (self) part -> backend start; end = backend finish -> unpack.
//
// It implements the executors' one star-forest interface (exec/sf.hpp): each buffer of a call may
// be host or device memory. A side in device memory is packed and unpacked on the device
// (cuda::ListKernels); its blocks are staged through host memory for a host-only transport, or
// handed to MPI in device memory where the backend can (basic, neighbor) and the MPI library takes
// device pointers (cuda::cuda_aware_refusal() says when). The one-sided and collective backends,
// which read and write the user's arrays themselves, work on host copies of the device arrays.
#pragma once

#include <mpi.h>
#include <memory>
#include <string>
#include <vector>

#include "core/backends.hpp"
#include "core/graph.hpp"
#include "core/op_spec.hpp"
#include "core/ops.hpp"
#include "core/peer_lists.hpp"
#include "plan/rounds.hpp"
#include "core/units.hpp"
#include "exec/sf.hpp"

namespace sfr::exec::cuda {
class ListKernels;
}

namespace sfr::exec::mpi {

using core::Index;

using core::Direction;  // of a message round (core/op_spec.hpp)

struct Link;
class Backend;

struct InFlight;

// How many ranks of `comm` share this rank's memory (MPI_COMM_TYPE_SHARED): the node when no
// emulated nodes are given. Collective.
int ranks_sharing_memory(MPI_Comm comm);

class StarForest final : public Sf {
public:
  // `g` is the whole graph (every rank's part); `comm` must have g.nranks ranks. Collective.
  // Nodes (node-aware backends) are consecutive blocks of `ranks_per_node` ranks; 0: as many as
  // share this rank's memory (MPI_COMM_TYPE_SHARED).
  // `split_cap`: the split strategies' inter-node chunk (bytes), from the machine description
  // (sim/machine.hpp, split.message_cap; plan::RouteParams' default without one).
  StarForest(MPI_Comm comm, const core::Graph& g, core::BackendId backend, int ranks_per_node = 0,
             std::int64_t split_cap = plan::RouteParams{}.split_cap);
  ~StarForest();
  // Messages this rank's backend posted so far (its multi-SF's included); -1 where the backend
  // does not count them.
  std::int64_t messages_posted() const override;
  StarForest(const StarForest&) = delete;
  StarForest& operator=(const StarForest&) = delete;

  Handle bcast_begin(core::Unit u, int bs, core::MpiOp op, Data root, Data leaf) override;
  Handle reduce_begin(core::Unit u, int bs, core::MpiOp op, Data leaf, Data root) override;
  Handle fetch_and_op_begin(core::Unit u, int bs, core::MpiOp op, Data root, Data leaf, Data leafupdate) override;
  Handle gather_begin(core::Unit u, int bs, Data leaf, Data multiroot) override;
  Handle scatter_begin(core::Unit u, int bs, Data multiroot, Data leaf) override;
  void end(Handle h) override;

  // Root degrees of this rank (computed with a reduce through the backend).
  std::vector<std::int64_t> degree();

  const core::RankLists& lists() const { return lists_; }
  const core::Graph& graph() const { return graph_; }
  core::BackendId backend() const { return backend_; }
  // Benchmarks only (sfr_bench_mpi self-order): false puts the self part before the sends start,
  // to time the two orders side by side; the backend's row decides otherwise.
  void set_self_while_sending(bool on) { self_while_sending_ = on; }
  Index multi_nroots();  // number of multi-roots on this rank (builds the multi-SF)
  MPI_Comm comm() const { return comm_; }
  int rank() const { return rank_; }

private:
  Handle start(std::unique_ptr<InFlight> f);
  void self_part(InFlight& f);
  Link& acquire(Direction d, std::size_t vbytes);
  StarForest& multi();
  // Device-memory calls: the plan's kernels (made at the first such call) and the link's staging.
  const cuda::ListKernels& kernels();
  void stage(Link& l);
  bool device_direct();  // whether this backend hands device blocks to MPI here

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  const core::Graph& graph_;
  core::RankLists lists_;
  core::BackendId backend_;
  int ranks_per_node_ = 0;
  std::int64_t split_cap_ = plan::RouteParams{}.split_cap;
  std::unique_ptr<Backend> transport_;  // the backend's (registry.cpp)
  bool self_while_sending_ = false;  // the self part after the sends start (core::BackendInfo)
  std::vector<std::unique_ptr<Link>> links_;
  std::vector<std::unique_ptr<InFlight>> inflight_;
  std::unique_ptr<core::Graph> multi_graph_;
  std::unique_ptr<StarForest> multi_;
  int next_tag_ = 100;
  std::unique_ptr<cuda::ListKernels> kernels_;
  int device_direct_ = -1;  // unknown until the first device call

  friend class Backend;
};

}  // namespace sfr::exec::mpi
