// collective: the collective patterns of PetscSFSetGraphWithPattern. A broadcast (REPLACE) on an
// allgather / gather / alltoall graph is one MPI_Iallgatherv / MPI_Igatherv / MPI_Ialltoall
// straight between the user's buffers. The graph is recognised from its edges (a trace may spell
// a pattern out explicitly); other graphs and ops are refused with a one-line reason.
#include <string>

#include "core/error.hpp"
#include "exec/mpi/backend.hpp"
#include "exec/mpi/mpi_check.hpp"

namespace sfr::exec::mpi {
namespace {

enum class Kind { none, allgather, gather, alltoall };

// Leaf g of `r` -> global root g under the roots' layout, contiguous leaves.
bool covers_all_roots(const core::RankGraph& rg, const std::vector<Index>& start, const core::Graph& g) {
  if (rg.has_ilocal) return false;
  const Index total = start.back();
  if (rg.nleaves() != total) return false;
  int owner = 0;
  for (Index j = 0; j < total; ++j) {
    while (start[static_cast<std::size_t>(owner) + 1] <= j) ++owner;
    if (rg.remote_rank[static_cast<std::size_t>(j)] != owner ||
        rg.remote_index[static_cast<std::size_t>(j)] != j - start[static_cast<std::size_t>(owner)])
      return false;
  }
  (void)g;
  return true;
}

Kind detect(const core::Graph& g) {
  std::vector<Index> start(1, 0);
  for (const auto& rg : g.ranks) start.push_back(start.back() + rg.nroots);
  bool all = true, gat = true, a2a = true;
  for (int r = 0; r < g.nranks; ++r) {
    const core::RankGraph& rg = g[r];
    const bool full = covers_all_roots(rg, start, g);
    all = all && full;
    gat = gat && (r == 0 ? full : rg.nleaves() == 0);
    bool mine = rg.nroots == g.nranks && rg.nleaves() == g.nranks && !rg.has_ilocal;
    for (Index j = 0; mine && j < rg.nleaves(); ++j)
      mine = rg.remote_rank[static_cast<std::size_t>(j)] == j && rg.remote_index[static_cast<std::size_t>(j)] == r;
    a2a = a2a && mine;
  }
  if (start.back() > 0 && all) return Kind::allgather;
  if (start.back() > 0 && gat) return Kind::gather;
  if (a2a) return Kind::alltoall;
  return Kind::none;
}

std::string refuses(Kind pattern, Motion kind, core::MpiOp op) {
  if (kind != Motion::bcast || op != core::MpiOp::replace)
    return "backend collective runs only bcast (and scatter) with mpi_op replace; use basic, neighbor, window or alltoallv";
  if (pattern == Kind::none) return "backend collective needs an allgather, gather or alltoall pattern graph; this SF is none of them";
  return "";
}

class Collective final : public Backend {
public:
  // Private duplicate for the nonblocking collectives (see alltoallv.cpp).
  Collective(StarForest& sf, const core::Graph& g) : kind_(detect(g)) {
    SFR_MPI(MPI_Comm_dup, sf.comm(), &comm_);
    std::vector<Index> start(1, 0);
    for (const auto& rg : g.ranks) {
      counts_.push_back(static_cast<int>(rg.nroots));
      displs_.push_back(static_cast<int>(start.back()));
      start.push_back(start.back() + rg.nroots);
    }
  }
  // The pattern was detected once, at setup: an op costs no scan of the graph.
  void check(const StarForest&, const InFlight& f) const override {
    const std::string why = refuses(kind_, f.kind, f.mpi_op);
    if (!why.empty()) throw InputError("--backend", why);
  }
  ~Collective() override { MPI_Comm_free(&comm_); }
  bool wants_pack(const InFlight&) const override { return false; }
  bool reads_user_arrays() const override { return true; }
  void start(StarForest& sf, InFlight& f, Link& l) override {
    l.requests.resize(1);
    switch (kind_) {
      case Kind::allgather:
        SFR_MPI(MPI_Iallgatherv, f.rootdata, counts_[me(sf)], l.vtype, f.leafdata, counts_.data(), displs_.data(), l.vtype, comm_,
                        l.requests.data());
        break;
      case Kind::gather:
        SFR_MPI(MPI_Igatherv, f.rootdata, counts_[me(sf)], l.vtype, f.leafdata, counts_.data(), displs_.data(), l.vtype, 0, comm_,
                     l.requests.data());
        break;
      case Kind::alltoall: SFR_MPI(MPI_Ialltoall, f.rootdata, 1, l.vtype, f.leafdata, 1, l.vtype, comm_, l.requests.data()); break;
      case Kind::none: break;
    }
    f.applied = true;
  }
  void finish(StarForest&, InFlight&, Link& l) override { SFR_MPI(MPI_Wait, l.requests.data(), MPI_STATUS_IGNORE); }

private:
  static std::size_t me(StarForest& sf) {
    int r = 0;
    MPI_Comm_rank(sf.comm(), &r);
    return static_cast<std::size_t>(r);
  }
  Kind kind_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::vector<int> counts_, displs_;
};

}  // namespace

std::unique_ptr<Backend> make_collective(StarForest& sf, const core::Graph& g) { return std::make_unique<Collective>(sf, g); }

std::string collective_refuses(const core::Graph& g, Motion kind, core::MpiOp op) { return refuses(detect(g), kind, op); }

}  // namespace sfr::exec::mpi
