// neighbor: a distributed-graph communicator per direction (reorder off) and
// MPI_Ineighbor_alltoallv, or its persistent form MPIX_Neighbor_alltoallv_init where the MPI
// provides it (Open MPI's pcollreq extension).
//
// Device buffers (the GPU-aware neighborhood-collectives paper): the blocks are packed on the
// device by the driver. Where the MPI takes device pointers, the exchange is the paper's GPU-aware
// MPI_Ineighbor_alltoallv, done here because no MPI library offers one: over the same graph
// communicator, every receive posted, then the sends in its nearest-neighbour order
// (plan::nearest_neighbor_order), device blocks handed to MPI directly. Elsewhere the driver stages
// the blocks through host memory and the host collective runs (PETSc's CPU staging).
#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include <map>

#include "exec/mpi/backend.hpp"
#include "exec/mpi/mpi_check.hpp"
#include "exec/mpi/vector_collective.hpp"
#include "plan/rounds.hpp"

namespace sfr::exec::mpi {
namespace {

#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
constexpr bool kHavePersistent = true;
#else
constexpr bool kHavePersistent = false;
#endif

MPI_Comm graph_comm(MPI_Comm comm, const std::vector<int>& sources, const std::vector<int>& dests) {
  // Zero-degree ranks: pass valid (dummy) arrays, never null pointers.
  static const int dummy[1] = {0};
  MPI_Comm g = MPI_COMM_NULL;
  SFR_MPI(MPI_Dist_graph_create_adjacent, comm, static_cast<int>(sources.size()), sources.empty() ? dummy : sources.data(), MPI_UNWEIGHTED,
                                 static_cast<int>(dests.size()), dests.empty() ? dummy : dests.data(), MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                 &g);
  return g;
}

// neighbor's own per link: its counts and, for device blocks, the requests of its scheduled
// exchange.
struct NeighborState : VectorCounts {
  std::vector<MPI_Request> scheduled;
};

class Neighbor final : public Backend {
public:
  Neighbor(StarForest& sf, bool persistent) : persistent_(persistent && kHavePersistent) {
    const core::RankLists& pl = sf.lists();
    // Root -> leaf: I receive from the owners of my leaves' roots and send to my roots' readers.
    r2l_ = graph_comm(sf.comm(), pl.leaf_side.peers, pl.root_side.peers);
    l2r_ = graph_comm(sf.comm(), pl.root_side.peers, pl.leaf_side.peers);
  }
  ~Neighbor() override {
    MPI_Comm_free(&r2l_);
    MPI_Comm_free(&l2r_);
  }
  void init_link(StarForest&, Link& l) override {
    [[maybe_unused]] const auto& c = make_counts<NeighborState>(l, 0);
#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
    if (persistent_) {
      l.requests.resize(1);
      MPIX_Neighbor_alltoallv_init(buf_or_dummy(l.sendbuf), c.scounts.data(), c.sdispls.data(), l.vtype, buf_or_dummy(l.recvbuf),
                                   c.rcounts.data(), c.rdispls.data(), l.vtype, comm(l), MPI_INFO_NULL, l.requests.data());
    }
#endif
  }
  void free_link(Link& l) override {
    if (persistent_)
      for (auto& r : l.requests) MPI_Request_free(&r);
    l.requests.clear();
  }
  bool device_blocks() const override { return true; }
  void start(StarForest& sf, InFlight&, Link& l) override {
    if (l.dev_send || l.dev_recv) return start_scheduled(sf, l);
    if (persistent_) {
      SFR_MPI(MPI_Start, l.requests.data());
      return;
    }
    const auto& c = l.state<NeighborState>();
    l.requests.resize(1);
    SFR_MPI(MPI_Ineighbor_alltoallv, buf_or_dummy(l.sendbuf), c.scounts.data(), c.sdispls.data(), l.vtype, buf_or_dummy(l.recvbuf), c.rcounts.data(),
                            c.rdispls.data(), l.vtype, comm(l), l.requests.data());
  }
  void finish(StarForest&, InFlight&, Link& l) override {
    if (l.dev_send || l.dev_recv) {
      auto& r = l.state<NeighborState>().scheduled;
      SFR_MPI(MPI_Waitall, static_cast<int>(r.size()), r.data(), MPI_STATUSES_IGNORE);
      return;
    }
    SFR_MPI(MPI_Wait, l.requests.data(), MPI_STATUS_IGNORE);
  }

private:
  // The GPU-aware neighborhood alltoallv (Algorithm 2 of the paper): receives from every source,
  // then sends in nearest-neighbour order, blocks wherever the link's send_block / recv_block are.
  void start_scheduled(StarForest& sf, Link& l) {
    auto& r = l.state<NeighborState>().scheduled;
    const std::size_t nr = l.recv->npeers(), ns = l.send->npeers();
    r.assign(nr + ns, MPI_REQUEST_NULL);
    const MPI_Comm c = comm(l);
    for (std::size_t p = 0; p < nr; ++p) {
      const auto [count, type] = l.message(l.recv->count(p));
      SFR_MPI(MPI_Irecv, l.recv_block(p), count, type, l.recv->peers[p], l.tag, c, &r[p]);
    }
    std::size_t k = nr;
    for (const std::size_t p : plan::nearest_neighbor_order(sf.rank(), l.send->peers)) {
      const auto [count, type] = l.message(l.send->count(p));
      SFR_MPI(MPI_Isend, l.send_block(p), count, type, l.send->peers[p], l.tag, c, &r[k++]);
    }
  }
  MPI_Comm comm(const Link& l) const { return l.dir == Direction::root_to_leaf ? r2l_ : l2r_; }
  bool persistent_;
  MPI_Comm r2l_ = MPI_COMM_NULL, l2r_ = MPI_COMM_NULL;
};

}  // namespace

std::unique_ptr<Backend> make_neighbor(StarForest& sf, bool persistent) { return std::make_unique<Neighbor>(sf, persistent); }

}  // namespace sfr::exec::mpi
