// Helpers for building small hand graphs and comparing graphs independent of leaf order.
#pragma once

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "core/graph.hpp"

namespace sfr_test {
using namespace sfr;

using core::Graph;
using core::Index;

struct Leaf {
  Index pos;
  int rank;
  Index index;
};

// One rank: nroots and its leaves (position -> (rank, index)).
struct R {
  Index nroots;
  std::vector<Leaf> leaves;
};

inline Graph make_graph(const std::vector<R>& ranks) {
  Graph g(static_cast<int>(ranks.size()));
  for (size_t r = 0; r < ranks.size(); ++r) {
    g[static_cast<int>(r)].nroots = ranks[r].nroots;
    for (const Leaf& l : ranks[r].leaves) g[static_cast<int>(r)].add_leaf(l.pos, l.rank, l.index);
  }
  return g;
}

// Per rank: nroots and the map position -> (rank, index). Leaf order does not matter.
using Canon = std::vector<std::pair<Index, std::map<Index, std::pair<int, Index>>>>;
inline Canon canon(const Graph& g) {
  Canon c;
  for (const auto& rg : g.ranks) {
    std::map<Index, std::pair<int, Index>> m;
    for (Index j = 0; j < rg.nleaves(); ++j)
      m[rg.leaf_position(j)] = {rg.remote_rank[static_cast<size_t>(j)], rg.remote_index[static_cast<size_t>(j)]};
    c.push_back({rg.nroots, m});
  }
  return c;
}

// The graph "A" of traces/handmade-4.json: holes, roots of degree 0 and 3, an empty rank, self edges.
inline Graph handmade_a() {
  return make_graph({{3, {{4, 1, 0}, {0, 0, 1}, {2, 2, 1}}}, {2, {{0, 0, 1}, {1, 0, 0}, {2, 1, 0}}}, {2, {{3, 0, 1}, {1, 1, 0}}}, {0, {}}});
}

}  // namespace sfr_test
