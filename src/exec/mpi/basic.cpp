// basic: persistent point-to-point, one MPI_Recv_init / MPI_Send_init per neighbour rank and link,
// started together with MPI_Startall (PetscSF's default backend).
#include "exec/mpi/backend.hpp"

namespace sfr::exec::mpi {
namespace {

class Basic final : public Backend {
public:
  void init_link(StarForest& sf, Link& l) override {
    for (std::size_t p = 0; p < l.recv->npeers(); ++p) {
      l.requests.emplace_back();
      MPI_Recv_init(l.recv_block(p), static_cast<int>(l.recv->count(p)), l.vtype, l.recv->peers[p], l.tag, sf.comm(), &l.requests.back());
    }
    for (std::size_t p = 0; p < l.send->npeers(); ++p) {
      l.requests.emplace_back();
      MPI_Send_init(l.send_block(p), static_cast<int>(l.send->count(p)), l.vtype, l.send->peers[p], l.tag, sf.comm(), &l.requests.back());
    }
  }
  void free_link(Link& l) override {
    for (auto& r : l.requests) MPI_Request_free(&r);
    l.requests.clear();
  }
  void start(StarForest&, InFlight&, Link& l) override {
    if (!l.requests.empty()) MPI_Startall(static_cast<int>(l.requests.size()), l.requests.data());
  }
  void finish(StarForest&, InFlight&, Link& l) override {
    if (!l.requests.empty()) MPI_Waitall(static_cast<int>(l.requests.size()), l.requests.data(), MPI_STATUSES_IGNORE);
  }
};

}  // namespace

std::unique_ptr<Backend> make_basic() { return std::make_unique<Basic>(); }

}  // namespace sfr::exec::mpi
