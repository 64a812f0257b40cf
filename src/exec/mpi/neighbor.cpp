// neighbor: a distributed-graph communicator per direction (reorder off) and
// MPI_Ineighbor_alltoallv, or its persistent form MPIX_Neighbor_alltoallv_init where the MPI
// provides it (Open MPI's pcollreq extension).
#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include "exec/mpi/backend.hpp"
#include "exec/mpi/vector_collective.hpp"

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
  MPI_Dist_graph_create_adjacent(comm, static_cast<int>(sources.size()), sources.empty() ? dummy : sources.data(), MPI_UNWEIGHTED,
                                 static_cast<int>(dests.size()), dests.empty() ? dummy : dests.data(), MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                 &g);
  return g;
}

class Neighbor final : public Backend {
public:
  Neighbor(StarForest& sf, bool persistent) : persistent_(persistent && kHavePersistent) {
    const core::RankPlan& pl = sf.plan();
    // Root -> leaf: I receive from the owners of my leaves' roots and send to my roots' readers.
    r2l_ = graph_comm(sf.comm(), pl.leaf_side.peers, pl.root_side.peers);
    l2r_ = graph_comm(sf.comm(), pl.root_side.peers, pl.leaf_side.peers);
  }
  ~Neighbor() override {
    MPI_Comm_free(&r2l_);
    MPI_Comm_free(&l2r_);
  }
  void init_link(StarForest&, Link& l) override {
    fill_counts(*l.send, l.scounts, l.sdispls, 0);
    fill_counts(*l.recv, l.rcounts, l.rdispls, 0);
#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
    if (persistent_) {
      l.requests.resize(1);
      MPIX_Neighbor_alltoallv_init(buf_or_dummy(l.sendbuf), l.scounts.data(), l.sdispls.data(), l.vtype, buf_or_dummy(l.recvbuf),
                                   l.rcounts.data(), l.rdispls.data(), l.vtype, comm(l), MPI_INFO_NULL, l.requests.data());
    }
#endif
  }
  void free_link(Link& l) override {
    if (persistent_)
      for (auto& r : l.requests) MPI_Request_free(&r);
    l.requests.clear();
  }
  void start(StarForest&, InFlight&, Link& l) override {
    if (persistent_) {
      MPI_Start(l.requests.data());
      return;
    }
    l.requests.resize(1);
    MPI_Ineighbor_alltoallv(buf_or_dummy(l.sendbuf), l.scounts.data(), l.sdispls.data(), l.vtype, buf_or_dummy(l.recvbuf), l.rcounts.data(),
                            l.rdispls.data(), l.vtype, comm(l), l.requests.data());
  }
  void finish(StarForest&, InFlight&, Link& l) override { MPI_Wait(l.requests.data(), MPI_STATUS_IGNORE); }

private:
  MPI_Comm comm(const Link& l) const { return l.dir == Direction::root_to_leaf ? r2l_ : l2r_; }
  bool persistent_;
  MPI_Comm r2l_ = MPI_COMM_NULL, l2r_ = MPI_COMM_NULL;
};

}  // namespace

std::unique_ptr<Backend> make_neighbor(StarForest& sf, bool persistent) { return std::make_unique<Neighbor>(sf, persistent); }

}  // namespace sfr::exec::mpi
