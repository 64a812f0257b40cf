// Synthetic, scatter, scenario, hexmesh and random generators: closed formulas and properties.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "core/error.hpp"
#include "exec/reference/reference.hpp"
#include "generators/hexmesh.hpp"
#include "generators/random_sf.hpp"
#include "generators/scatter.hpp"
#include "generators/scenario.hpp"
#include "generators/synthetic.hpp"
#include "trace/trace.hpp"

namespace {

using namespace sfr;
using core::Index;

Index off_rank_leaves(const core::Graph& g) {
  Index n = 0;
  for (int r = 0; r < g.nranks; ++r)
    for (int q : g[r].remote_rank) n += q != r ? 1 : 0;
  return n;
}

TEST(Synthetic, DiagonalHasNoOffRankEdges) {
  gen::SyntheticOptions o;
  o.pattern = gen::SyntheticPattern::diagonal;
  o.nranks = 6;
  o.per_rank = 50;
  const core::Graph g = gen::synthetic_graph(o);
  EXPECT_EQ(off_rank_leaves(g), 0);
  EXPECT_EQ(g.total_leaves(), 300);
  for (int r = 0; r < 6; ++r)
    for (Index j = 0; j < 50; ++j) EXPECT_EQ(g[r].remote_index[static_cast<std::size_t>(j)], j);
}

TEST(Synthetic, QuasiDiagonalFractionAndBand) {
  for (double f : {0.1, 0.25}) {
    gen::SyntheticOptions o;
    o.pattern = gen::SyntheticPattern::quasi_diagonal;
    o.fraction = f;
    o.nranks = 16;
    o.per_rank = 400;
    const core::Graph g = gen::synthetic_graph(o);
    EXPECT_NEAR(static_cast<double>(off_rank_leaves(g)) / static_cast<double>(g.total_leaves()), f, 0.01);
    const int width = static_cast<int>(std::lround(f * 16));
    for (int r = 0; r < 16; ++r)
      for (int q : g[r].remote_rank) EXPECT_LE(std::abs(q - r), width);
  }
}

TEST(Synthetic, RandomIsReproducibleBySeed) {
  gen::SyntheticOptions o;
  o.pattern = gen::SyntheticPattern::random;
  o.nranks = 5;
  o.per_rank = 100;
  const core::Graph a = gen::synthetic_graph(o), b = gen::synthetic_graph(o);
  EXPECT_EQ(a, b);
  o.seed = 2;
  EXPECT_FALSE(a == gen::synthetic_graph(o));
  // Random ids: about (P-1)/P of the leaves are off-rank.
  EXPECT_NEAR(static_cast<double>(off_rank_leaves(a)) / 500.0, 0.8, 0.08);
}

TEST(Synthetic, DirectionPicksOp) {
  gen::SyntheticOptions o;
  o.direction = gen::Direction::part_to_block;
  const trace::Trace t = gen::synthetic_trace(o);
  EXPECT_EQ(t.ops.at(0).op, core::OpKind::reduce);
  o.direction = gen::Direction::block_to_part;
  EXPECT_EQ(gen::synthetic_trace(o).ops.at(0).op, core::OpKind::bcast);
}

// Bcast of each root's global number (rank offset + index) and check against `expected(rank, pos)`.
template <class F>
void check_bcast(const core::Graph& g, F expected) {
  std::vector<exec::Buffer> roots, leaves;
  Index offset = 0;
  for (int r = 0; r < g.nranks; ++r) {
    roots.emplace_back(core::Unit::int64, 1, g[r].nroots);
    for (Index i = 0; i < g[r].nroots; ++i) roots.back().as<long long>()[i] = offset + i;
    offset += g[r].nroots;
    leaves.emplace_back(core::Unit::int64, 1, g[r].leafspace());
  }
  exec::reference::bcast(g, core::MpiOp::replace, roots, leaves);
  for (int r = 0; r < g.nranks; ++r)
    for (Index p = 0; p < g[r].leafspace(); ++p)
      ASSERT_EQ(leaves[static_cast<std::size_t>(r)].as<long long>()[p], expected(r, p)) << r << " " << p;
}

TEST(Scatter, ClosedForms) {
  const int P = 5;
  const Index n = 7, N = P * n;
  gen::ScatterOptions o;
  o.nranks = P;
  o.per_rank = n;
  o.pattern = gen::ScatterPattern::par_to_par;  // y[g] = x[(g - n) mod N]
  check_bcast(gen::scatter_graph(o), [&](int r, Index p) { return (r * n + p - n + N) % N; });
  o.pattern = gen::ScatterPattern::par_to_seq;  // every rank gets the whole vector
  check_bcast(gen::scatter_graph(o), [&](int, Index p) { return p; });
  o.pattern = gen::ScatterPattern::seq_to_par;  // y[g] = seq vector of rank g % P, entry g / P
  check_bcast(gen::scatter_graph(o), [&](int r, Index p) {
    const Index g = r * n + p;
    return (g % P) * n + g / P;
  });
  o.pattern = gen::ScatterPattern::ring_send;
  const core::Graph ring = gen::scatter_graph(o);
  EXPECT_EQ(ring[0].nleaves(), 0);
  check_bcast(ring, [&](int r, Index p) { return (r - 1) * n + p; });
}

TEST(Scenario, MessagesNodesAndDuplicates) {
  gen::ScenarioOptions o;
  o.msgs = 32;
  o.nodes = 4;
  o.size = 800;  // 100 float64 per message
  o.duplicates = 0.25;
  const core::Graph g = gen::scenario_graph(o);
  const int R = o.place.ranks_per_node;
  ASSERT_EQ(g.nranks, (1 + 4) * R);
  EXPECT_EQ(g.total_leaves(), 32 * 100);
  // Messages = distinct (sender, receiver) pairs, all leaving node 0.
  std::set<std::pair<int, int>> msgs;
  for (int r = 0; r < g.nranks; ++r)
    for (int q : g[r].remote_rank) {
      EXPECT_LT(q, R);
      EXPECT_GE(r, R);
      msgs.insert({q, r});
    }
  EXPECT_EQ(msgs.size(), 32u);
  // Each sender has 8 messages over 4 nodes = 2 per node: unique roots = 8*75 + 4*25 per sender.
  for (int s = 0; s < R; ++s) EXPECT_EQ(g[s].nroots, 8 * 75 + 4 * 25);
  EXPECT_THROW(gen::scenario_graph({0, 4, 8, 0, {4, 0}}), InputError);
}

TEST(Scenario, EveryNodeReceivesAndSendersSpread) {
  // 32 messages from 4 ranks to 16 nodes: each node receives 2, each sender reaches 8 nodes.
  for (const auto& [msgs, nodes] : {std::pair{32, 16}, std::pair{256, 16}, std::pair{32, 4}, std::pair{6, 16}}) {
    gen::ScenarioOptions o;
    o.msgs = msgs, o.nodes = nodes, o.size = 16;
    const core::Graph g = gen::scenario_graph(o);
    const int R = o.place.ranks_per_node;
    std::map<int, int> per_node;
    std::map<int, std::set<int>> reach;
    for (int r = R; r < g.nranks; ++r) {
      std::set<int> from(g[r].remote_rank.begin(), g[r].remote_rank.end());
      if (!from.empty()) per_node[r / R] += static_cast<int>(from.size());
      for (int s : from) reach[s].insert(r / R);
    }
    const int expect_nodes = std::min(msgs, nodes);
    EXPECT_EQ(static_cast<int>(per_node.size()), expect_nodes) << msgs << " " << nodes;
    if (msgs % nodes == 0) {
      for (const auto& [node, n] : per_node) EXPECT_EQ(n, msgs / nodes) << msgs << " " << nodes << " node " << node;
    }
    for (const auto& [s, set] : reach) {
      const int sent = (msgs - s + R - 1) / R;  // messages g with g mod R = s
      EXPECT_EQ(static_cast<int>(set.size()), std::min(sent, nodes)) << msgs << " " << nodes << " sender " << s;
    }
  }
}

Index expected_closure(Index a, Index b, Index c, Index n) {
  auto e = [&](Index x) { return x < n ? x + 1 : x; };  // points along an axis in the closure
  return a * b * c + (e(a) * b * c + a * e(b) * c + a * b * e(c)) + (a * e(b) * e(c) + e(a) * b * e(c) + e(a) * e(b) * c) +
         e(a) * e(b) * e(c);
}

TEST(Hexmesh, ClosureCountsAndDegrees) {
  for (auto order : {gen::MeshOrder::sequential, gen::MeshOrder::chunks, gen::MeshOrder::random}) {
    gen::HexmeshOptions o;
    o.cells = 6;
    o.nranks = 4;  // 2x2x1 boxes of 3x3x6 cells
    o.order = order;
    const core::Graph g = gen::hexmesh_graph(o);
    core::check_graph(g);
    EXPECT_EQ(g.total_roots(), 8 * 216);
    for (int r = 0; r < 4; ++r) EXPECT_EQ(g[r].nleaves(), expected_closure(3, 3, 6, 6));
    if (order == gen::MeshOrder::sequential) {
      EXPECT_EQ(g[0].nroots, 8 * 216);
    }
    const auto deg = core::root_degrees(g);
    Index zero = 0;
    for (const auto& d : deg)
      for (Index x : d) zero += x == 0 ? 1 : 0;
    EXPECT_EQ(zero, 0);  // every point is in some rank's closure
  }
  EXPECT_EQ(gen::cubic_factors(12), (std::array<int, 3>{3, 2, 2}));
  EXPECT_EQ(gen::cubic_factors(7), (std::array<int, 3>{7, 1, 1}));
  gen::HexmeshOptions one;
  one.cells = 3;
  one.nranks = 1;
  const core::Graph g1 = gen::hexmesh_graph(one);
  EXPECT_EQ(g1[0].nleaves(), 8 * 27);  // periodic: the whole mesh, each point once
  const auto deg1 = core::root_degrees(g1);
  for (Index x : deg1[0]) EXPECT_EQ(x, 1);
}

TEST(Hexmesh, RandomOrderDependsOnSeed) {
  gen::HexmeshOptions o;
  o.cells = 4;
  o.nranks = 4;
  o.order = gen::MeshOrder::random;
  EXPECT_EQ(gen::hexmesh_graph(o), gen::hexmesh_graph(o));
  gen::HexmeshOptions p = o;
  p.seed = 9;
  EXPECT_FALSE(gen::hexmesh_graph(o) == gen::hexmesh_graph(p));
  o.cells = 1;
  EXPECT_THROW(gen::hexmesh_graph(o), InputError);  // 2x2x1 boxes on a 1-cell mesh
}

TEST(Random, ControlsAndReproducibility) {
  gen::RandomOptions o;
  o.nranks = 6;
  o.max_roots = 10;
  o.max_leaves = 30;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    o.seed = seed;
    o.self = 0;
    o.max_degree = 2;
    o.holes = 0.5;
    const core::Graph g = gen::random_graph(o);
    core::check_graph(g);
    EXPECT_EQ(g, gen::random_graph(o));
    for (int r = 0; r < 6; ++r) {
      for (int q : g[r].remote_rank) EXPECT_NE(q, r);
      EXPECT_LE(g[r].leafspace(), g[r].nleaves() + std::llround(0.5 * static_cast<double>(g[r].nleaves())));
    }
    for (const auto& d : core::root_degrees(g))
      for (Index x : d) EXPECT_LE(x, 2);
    // The whole trace builds and runs on the reference executor.
    const trace::BuiltTrace bt(gen::random_trace(o));
    for (const auto& op : bt.trace().ops) EXPECT_NO_THROW(exec::reference::run_op(bt, op));
  }
  o.self = 1;
  o.holes = 0;
  o.max_degree = 0;
  const core::Graph s = gen::random_graph(o);
  EXPECT_EQ(off_rank_leaves(s), 0);
  o.seed = 1;
  gen::RandomOptions p = o;
  p.seed = 2;
  EXPECT_FALSE(gen::random_graph(o) == gen::random_graph(p));
}

}  // namespace

namespace {

TEST(Hexmesh, SingleRankMapsEveryPointToItsRoot) {
  // One rank, chunks: roots are cells, faces (3 per cell), edges (3 per cell), vertices, in cell
  // order; leaves are cells, faces, edges, vertices ascending by global number (d*N^3 + anchor).
  gen::HexmeshOptions o;
  o.cells = 3;
  o.nranks = 1;
  const Index n3 = 27;
  check_bcast(gen::hexmesh_graph(o), [&](int, Index p) -> long long {
    if (p < n3) return p;  // cell c
    if (p < 4 * n3) {
      const Index x = p - n3;
      return n3 + 3 * (x % n3) + x / n3;
    }  // face (d, c)
    if (p < 7 * n3) {
      const Index x = p - 4 * n3;
      return 4 * n3 + 3 * (x % n3) + x / n3;
    }          // edge (d, v)
    return p;  // vertex v
  });
}

}  // namespace
