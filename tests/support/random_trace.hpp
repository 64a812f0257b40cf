// Seeded random star forests for property and differential tests: holes, roots of degree 0 and
// of high degree, empty ranks, self edges; and a trace running every op x unit x legal mpi_op x
// bs in {1,3} on it.
#pragma once

#include <algorithm>
#include <memory>
#include <random>

#include "trace/trace.hpp"

namespace sfr_test {

inline sfr::core::Graph random_graph(int nranks, unsigned seed) {
  using sfr::core::Index;
  std::mt19937 rng(seed);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  sfr::core::Graph g(nranks);
  std::vector<int> owners;
  for (int r = 0; r < nranks; ++r) {
    g[r].nroots = (r % 3 == 2) ? 0 : uni(1, 5);  // every third rank owns no roots
    if (g[r].nroots) owners.push_back(r);
  }
  if (owners.empty()) {
    g[0].nroots = 1;
    owners.push_back(0);
  }
  for (int r = 0; r < nranks; ++r) {
    if (r == nranks - 1 && nranks > 2) continue;  // the last rank has no leaves
    const int nl = uni(0, 7);
    std::vector<Index> pos(static_cast<size_t>(2 * nl + 1));
    for (size_t k = 0; k < pos.size(); ++k) pos[k] = static_cast<Index>(k);
    std::shuffle(pos.begin(), pos.end(), rng);
    for (int j = 0; j < nl; ++j) {
      int s;
      Index i;
      if (uni(0, 3) == 0) {  // a hot root gets a high degree
        s = owners.front();
        i = 0;
      } else {
        s = owners[static_cast<size_t>(uni(0, static_cast<int>(owners.size()) - 1))];
        i = uni(0, static_cast<int>(g[s].nroots) - 1);
      }
      g[r].add_leaf(pos[static_cast<size_t>(j)], s, i);
    }
  }
  return g;
}

inline sfr::trace::Trace sweep_trace(const sfr::core::Graph& g, const std::string& name) {
  using namespace sfr;
  trace::Trace t;
  t.name = name;
  t.nranks = g.nranks;
  t.sfs.push_back({"S", trace::ExplicitSF{std::make_shared<const core::Graph>(g)}});
  for (core::Unit u : core::kAllUnits)
    for (int bs : {1, 3}) {
      for (auto k : {core::OpKind::bcast, core::OpKind::reduce, core::OpKind::fetch_and_op})
        for (core::MpiOp op : core::kAllOps)
          if (core::op_legal(u, op)) t.ops.push_back({k, "S", u, bs, op, core::MemType::host, core::MemType::host, 1, 0});
      for (auto k : {core::OpKind::gather, core::OpKind::scatter})
        t.ops.push_back({k, "S", u, bs, core::MpiOp::replace, core::MemType::host, core::MemType::host, 1, 0});
    }
  t.ops.push_back({core::OpKind::degree, "S", core::Unit::int64, 1, core::MpiOp::replace, core::MemType::host, core::MemType::host, 1, 0});
  return t;
}

}  // namespace sfr_test
