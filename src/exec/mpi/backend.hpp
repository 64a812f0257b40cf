// Internal: the transport step of one backend. The driver (star_forest.cpp) packs, does the self
// part and unpacks; a backend only moves link->sendbuf to the peers' link->recvbuf (two-sided), or
// does the one-sided equivalent and says so through InFlight::applied / fetched_in_back.
#pragma once

#include <memory>
#include <string>

#include "core/backends.hpp"
#include "exec/mpi/link.hpp"

namespace sfr::exec::mpi {

class Backend {
public:
  virtual ~Backend() = default;
  // Once per link, after its buffers are sized (collective).
  virtual void init_link(StarForest&, Link&) {}
  virtual void free_link(Link&) {}
  // Whether begin must pack the sending side into link.sendbuf.
  virtual bool wants_pack(const InFlight&) const { return true; }
  // Whether the backend can send / receive contiguous peers straight from / into user buffers.
  virtual bool direct_capable() const { return false; }
  // Device data (exec/sf.hpp): whether the backend hands the link's blocks to MPI wherever
  // send_block / recv_block put them (device memory too, where the MPI takes device pointers);
  // and whether it reads or writes the user's arrays itself (it then gets host copies of them).
  virtual bool device_blocks() const { return false; }
  virtual bool reads_user_arrays() const { return false; }
  // Called before the driver writes the link's send blocks for an op (once per op and link), and
  // after it has read the link's receive blocks of that op (shm: reuse of shared segments).
  virtual void before_pack(StarForest&, Link&) {}
  virtual void after_unpack(StarForest&, Link&) {}
  virtual void start(StarForest& sf, InFlight& f, Link& l) = 0;
  virtual void finish(StarForest& sf, InFlight& f, Link& l) = 0;
  // Rejects what the backend cannot do with a one-line reason (same answer on every rank).
  virtual void check(const StarForest&, const InFlight&) const {}
  // Messages this rank has posted so far, where the backend counts them (-1: it does not). The
  // runner holds it to the plan (plan::op_rounds) after timing an op.
  virtual std::int64_t posted() const { return -1; }
};

// What a backend's factory gets (registry.cpp holds one factory per host backend).
struct BackendArgs {
  StarForest& sf;
  const core::Graph& g;  // the whole graph
  core::BackendId id;
  int ranks_per_node;      // the placement's nodes; 0: the ranks that share memory
  std::int64_t split_cap;  // the split strategies' inter-node chunk (bytes)
};
// The transport of host backend a.id (registry.cpp's table).
std::unique_ptr<Backend> make_backend(const BackendArgs& a);

std::unique_ptr<Backend> make_basic();
// 3step, 2step, split-md, split-dd over nodes of `ranks_per_node` consecutive ranks.
std::unique_ptr<Backend> make_node_aware(const BackendArgs& a);
// On-node peers through one MPI-3 shared-memory window per link, the others as basic; or, with
// off_node_basic false and ranks_per_node > 0, only the peers of the rank's emulated node that
// share its memory and nothing else (the node-aware strategies' on-node step).
std::unique_ptr<Backend> make_shm(StarForest& sf, bool off_node_basic = true, int ranks_per_node = 0);
std::unique_ptr<Backend> make_neighbor(StarForest& sf, bool persistent);
std::unique_ptr<Backend> make_alltoallv(StarForest& sf);
std::unique_ptr<Backend> make_window();
std::unique_ptr<Backend> make_collective(StarForest& sf, const core::Graph& g);
// Why the collective backend cannot run a (graph, op) pair; empty when it can.
std::string collective_refuses(const core::Graph& g, Motion kind, core::MpiOp op);

}  // namespace sfr::exec::mpi
