#include <gtest/gtest.h>

#include "core/error.hpp"
#include "support/graphs.hpp"

using namespace sfr;
using namespace sfr_test;

TEST(Graph, LeafSpaceCountsHolesAndEmptyRanks) {
  const Graph a = handmade_a();
  EXPECT_EQ(a[0].leafspace(), 5);  // positions 0, 2, 4
  EXPECT_EQ(a[1].leafspace(), 3);  // contiguous
  EXPECT_FALSE(a[1].has_ilocal);
  EXPECT_EQ(a[2].leafspace(), 4);
  EXPECT_EQ(a[3].leafspace(), 0);
  EXPECT_EQ(a.total_roots(), 7);
  EXPECT_EQ(a.total_leaves(), 8);
}

TEST(Graph, RootDegreesByHand) {
  const auto d = core::root_degrees(handmade_a());
  const std::vector<std::vector<Index>> want = {{1, 3, 0}, {3, 0}, {0, 1}, {}};
  EXPECT_EQ(d, want);
}

TEST(Graph, CheckRejectsBadGraphs) {
  Graph g = make_graph({{1, {{0, 1, 0}}}, {1, {}}});
  EXPECT_NO_THROW(core::check_graph(g));
  g[0].remote_rank[0] = 2;
  EXPECT_THROW(core::check_graph(g), GraphError);
  g[0].remote_rank[0] = 1;
  g[0].remote_index[0] = 1;
  EXPECT_THROW(core::check_graph(g), GraphError);
  Graph d = make_graph({{2, {{3, 0, 0}, {3, 0, 1}}}});
  EXPECT_THROW(core::check_graph(d), GraphError);  // duplicate position
}

TEST(Graph, NormalizeDropsIdentityIlocal) {
  core::RankGraph rg;
  rg.has_ilocal = true;
  rg.ilocal = {0, 1};
  rg.remote_rank = {0, 0};
  rg.remote_index = {0, 0};
  rg.normalize_ilocal();
  EXPECT_FALSE(rg.has_ilocal);
  EXPECT_EQ(rg.leafspace(), 2);
}
