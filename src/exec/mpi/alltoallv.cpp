// alltoallv: one MPI_Ialltoallv over the whole communicator, zero counts for non-neighbours.
#include "exec/mpi/backend.hpp"
#include "exec/mpi/mpi_check.hpp"
#include "exec/mpi/vector_collective.hpp"

namespace sfr::exec::mpi {
namespace {

class Alltoallv final : public Backend {
public:
  // Nonblocking collectives run on a private duplicate made at setup: on Open MPI 4.1 a later
  // MPI_Comm_dup of a communicator that carried them (the multi-SF's setup) can hang.
  explicit Alltoallv(StarForest& sf) { SFR_MPI(MPI_Comm_dup, sf.comm(), &comm_); }
  ~Alltoallv() override { MPI_Comm_free(&comm_); }
  void init_link(StarForest& sf, Link& l) override {
    int n = 0;
    MPI_Comm_size(sf.comm(), &n);
    make_counts(l, n);
  }
  void start(StarForest&, InFlight&, Link& l) override {
    const auto& c = l.state<VectorCounts>();
    l.requests.resize(1);
    SFR_MPI(MPI_Ialltoallv, buf_or_dummy(l.sendbuf), c.scounts.data(), c.sdispls.data(), l.vtype, buf_or_dummy(l.recvbuf), c.rcounts.data(),
                   c.rdispls.data(), l.vtype, comm_, l.requests.data());
  }
  void finish(StarForest&, InFlight&, Link& l) override { SFR_MPI(MPI_Wait, l.requests.data(), MPI_STATUS_IGNORE); }

private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

}  // namespace

std::unique_ptr<Backend> make_alltoallv(StarForest& sf) { return std::make_unique<Alltoallv>(sf); }

}  // namespace sfr::exec::mpi
