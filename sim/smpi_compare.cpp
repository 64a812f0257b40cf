#include "sim/smpi_compare.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <random>

#include "sim/simgrid_export.hpp"
#include "sim/simulate.hpp"

namespace sfr::sim {

namespace {

trace::BuiltTrace bcast_trace(std::string name, core::Graph g, std::int64_t bytes, int ops) {
  trace::Trace t;
  t.name = std::move(name);
  t.nranks = g.nranks;
  t.sfs.push_back({"S", trace::ExplicitSF{std::make_shared<const core::Graph>(std::move(g))}});
  core::OpSpec o;
  o.op = core::OpKind::bcast;
  o.sf = "S";
  o.unit = core::Unit::int32;  // bytes/4 values per leaf (sizes are multiples of 4)
  o.bs = static_cast<int>(std::max<std::int64_t>(1, bytes / 4));
  o.mpi_op = core::MpiOp::replace;
  o.repeat = ops;
  t.ops.push_back(o);
  return trace::BuiltTrace(std::move(t));
}

// Rank `dst` gets one leaf (a block of `bytes` bytes) on root `root` of rank `src`.
void edge(core::Graph& g, int src, int dst, core::Index root) {
  g[src].nroots = std::max(g[src].nroots, root + 1);
  g[dst].add_leaf(g[dst].leafspace(), src, root);
}

}  // namespace

trace::BuiltTrace ring_trace(int nranks, const std::vector<int>& offsets, std::int64_t bytes, int ops) {
  core::Graph g(nranks);
  for (int r = 0; r < nranks; ++r)
    for (std::size_t k = 0; k < offsets.size(); ++k) edge(g, r, ((r + offsets[k]) % nranks + nranks) % nranks, static_cast<core::Index>(k));
  std::string name = "ring";
  for (int o : offsets) name += (o > 0 ? "+" : "") + std::to_string(o);
  return bcast_trace(name, std::move(g), bytes, ops);
}

trace::BuiltTrace random_degree_trace(int nranks, int degree, std::int64_t bytes, int ops, std::uint64_t seed) {
  core::Graph g(nranks);
  std::mt19937_64 rng(seed);
  std::vector<core::Index> next_root(static_cast<std::size_t>(nranks), 0);
  std::vector<int> peers;
  for (int r = 0; r < nranks; ++r) {
    peers.clear();
    while (static_cast<int>(peers.size()) < std::min(degree, nranks - 1)) {
      const int p = static_cast<int>(rng() % static_cast<std::uint64_t>(nranks));
      if (p != r && std::find(peers.begin(), peers.end(), p) == peers.end()) peers.push_back(p);
    }
    std::sort(peers.begin(), peers.end());
    for (int p : peers) edge(g, p, r, next_root[static_cast<std::size_t>(p)]++);
  }
  return bcast_trace("random-degree-" + std::to_string(degree), std::move(g), bytes, ops);
}

SmpiComparison compare_with_smpi(const trace::BuiltTrace& bt, const MachineModel& m, const std::string& dir, const BackendVariant& b) {
  using clock = std::chrono::steady_clock;
  SmpiComparison c;
  const auto ex = export_simgrid(bt, m, dir, b);
  auto t0 = clock::now();
  c.smpi_s = run_smpirun(ex, dir);
  c.smpi_wall_s = std::chrono::duration<double>(clock::now() - t0).count();
  // Our side: the best of three (the replay is short; the minimum is its cost without noise).
  c.ours_wall_s = 1e30;
  for (int k = 0; k < 3; ++k) {
    t0 = clock::now();
    c.ours_s = simulate(bt, m, {b}).backends.at(0).total_s;
    c.ours_wall_s = std::min(c.ours_wall_s, std::chrono::duration<double>(clock::now() - t0).count());
  }
  return c;
}

}  // namespace sfr::sim
