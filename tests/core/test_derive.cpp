// Derived SFs against hand-worked expected graphs (see comments for the derivations).
#include <gtest/gtest.h>

#include "core/derive.hpp"
#include "core/error.hpp"
#include "support/graphs.hpp"

using namespace sfr;
using namespace sfr_test;

namespace {
// The layout SF "L" of traces/handmade-4.json: layout [0,2,2,5,6].
Graph handmade_l() {
  std::vector<core::LayoutRank> lr(4);
  lr[0].global = {5, 0};
  lr[1].has_ilocal = true;
  lr[1].ilocal = {2, 0, 1};
  lr[1].global = {1, 2, 4};
  lr[3].global = {3, 3};
  return core::layout_graph({0, 2, 2, 5, 6}, lr);
}
}  // namespace

TEST(Derive, LayoutOwnersSkipEmptyRanks) {
  const Graph want =
      make_graph({{2, {{0, 3, 0}, {1, 0, 0}}}, {0, {{2, 0, 1}, {0, 2, 0}, {1, 2, 2}}}, {3, {}}, {1, {{0, 2, 1}, {1, 2, 1}}}});
  EXPECT_EQ(canon(handmade_l()), canon(want));
}

TEST(Derive, MultiSFOrdersByLeafRankThenPosition) {
  // Root (0,1) has leaves (r0,pos0), (r1,pos0), (r2,pos3) -> multi-roots 1,2,3 of rank 0
  // (root 0 of rank 0 has degree 1 and takes slot 0). Root (1,0) has (r0,pos4), (r1,pos2),
  // (r2,pos1) -> slots 0,1,2 of rank 1. Root (2,1) has (r0,pos2) -> slot 0 of rank 2.
  const Graph m = core::multi_sf(handmade_a());
  const Graph want =
      make_graph({{4, {{4, 1, 0}, {0, 0, 1}, {2, 2, 0}}}, {3, {{0, 0, 2}, {1, 0, 0}, {2, 1, 1}}}, {1, {{3, 0, 3}, {1, 1, 2}}}, {0, {}}});
  EXPECT_EQ(canon(m), canon(want));
}

TEST(Derive, MultiSFSameRankLeavesByPositionNotListOrder) {
  // Rank 1 lists position 5 before position 2; both attach to root (0,0). Position 2 comes first.
  const Graph g = make_graph({{1, {{0, 0, 0}}}, {0, {{5, 0, 0}, {2, 0, 0}}}});
  const Graph m = core::multi_sf(g);
  EXPECT_EQ(m[0].nroots, 3);
  EXPECT_EQ(canon(m), canon(make_graph({{3, {{0, 0, 0}}}, {0, {{5, 0, 2}, {2, 0, 1}}}})));
}

TEST(Derive, ComposeDropsLeavesThroughHoles) {
  // L's roots on rank r are A's leaf positions on r. Only A leaves at positions < L.nroots count:
  // rank 0 position 0 -> (0,1); rank 2 position 1 -> (1,0). L leaves through other roots drop.
  const Graph c = core::compose(handmade_a(), handmade_l());
  const Graph want = make_graph({{3, {{1, 0, 1}}}, {2, {}}, {2, {}}, {0, {{0, 1, 0}, {1, 1, 0}}}});
  EXPECT_EQ(canon(c), canon(want));
}

TEST(Derive, ComposeInverseUsesMaxlocOnCandidates) {
  // B root (0,0) is reached from rank 0 positions 0 and 1, whose A roots are (1,0) and (0,0):
  // MAXLOC picks rank 1. B root (1,0) is reached from rank 1 position 0 (A root (0,1)) and
  // position 3 (not an A leaf: no candidate).
  const Graph a = make_graph({{2, {{0, 1, 0}, {1, 0, 0}}}, {1, {{0, 0, 1}}}});
  const Graph b = make_graph({{1, {{0, 0, 0}, {1, 0, 0}}}, {1, {{0, 1, 0}, {3, 1, 0}}}});
  const Graph ci = core::compose_inverse(a, b);
  EXPECT_EQ(canon(ci), canon(make_graph({{2, {{0, 1, 0}}}, {1, {{0, 0, 1}}}})));
}

TEST(Derive, ComposeInverseSameRankSmallestIndexWins) {
  const Graph a = make_graph({{3, {{0, 0, 2}, {1, 0, 1}}}});
  const Graph b = make_graph({{1, {{0, 0, 0}, {1, 0, 0}}}});
  EXPECT_EQ(canon(core::compose_inverse(a, b)), canon(make_graph({{3, {{0, 0, 1}}}})));
}

TEST(Derive, EmbedRootsKeepsLeavesOfSelectedRoots) {
  const Graph e = core::embed_roots(handmade_a(), {{1, 1}, {0, 1}, {}, {}});
  const Graph want = make_graph({{3, {{4, 1, 0}, {0, 0, 1}}}, {2, {{0, 0, 1}, {2, 1, 0}}}, {2, {{3, 0, 1}, {1, 1, 0}}}, {0, {}}});
  EXPECT_EQ(canon(e), canon(want));
  EXPECT_THROW(core::embed_roots(handmade_a(), {{3}, {}, {}, {}}), GraphError);
}

TEST(Derive, EmbedLeavesIndexesLeavesSortedByPosition) {
  // Rank 0's leaves sorted by position: pos0, pos2, pos4; selecting {2, 0} keeps pos4 and pos0.
  const Graph e = core::embed_leaves(handmade_a(), {{2, 0, 2}, {1}, {0}, {}});
  const Graph want = make_graph({{3, {{0, 0, 1}, {4, 1, 0}}}, {2, {{1, 0, 0}}}, {2, {{1, 1, 0}}}, {0, {}}});
  EXPECT_EQ(canon(e), canon(want));
  EXPECT_THROW(core::embed_leaves(handmade_a(), {{3}, {}, {}, {}}), GraphError);
}

TEST(Derive, InverseOfLayoutGraph) {
  // nroots = old leaf spaces [2,3,0,2]. Root (2,1) has two leaves on rank 3 (positions 0, 1):
  // PETSc's REPLACE reduce writes position 1 last.
  const Graph inv = core::inverse(handmade_l());
  const Graph want = make_graph({{2, {{0, 0, 1}, {1, 1, 2}}}, {3, {}}, {0, {{0, 1, 0}, {1, 3, 1}, {2, 1, 1}}}, {2, {{0, 0, 0}}}});
  EXPECT_EQ(canon(inv), canon(want));
}

TEST(Derive, InverseRemoteWriterBeatsSelf) {
  // Root (0,0) has a self leaf (rank 0, pos 0) and a remote leaf (rank 1, pos 2): remote is last.
  const Graph g = make_graph({{1, {{0, 0, 0}}}, {0, {{2, 0, 0}}}});
  EXPECT_EQ(canon(core::inverse(g)), canon(make_graph({{1, {{0, 1, 2}}}, {3, {}}})));
}

TEST(Derive, InverseTwiceIsIdentityForBijections) {
  const Graph g = make_graph({{2, {{0, 1, 1}, {1, 0, 0}}}, {2, {{0, 1, 0}, {1, 0, 1}}}});
  EXPECT_EQ(canon(core::inverse(core::inverse(g))), canon(g));
}

TEST(Derive, ConcatenateSeparateRoots) {
  // Root offsets per owner rank = A.nroots [3,2,2,0]; leaf offsets = A leaf spaces [5,3,4,0].
  const Graph a = handmade_a(), l = handmade_l();
  const Graph c = core::concatenate({&a, &l}, false);
  const Graph want = make_graph({{5, {{4, 1, 0}, {0, 0, 1}, {2, 2, 1}, {5, 3, 0}, {6, 0, 3}}},
                                 {2, {{0, 0, 1}, {1, 0, 0}, {2, 1, 0}, {5, 0, 4}, {3, 2, 2}, {4, 2, 4}}},
                                 {5, {{3, 0, 1}, {1, 1, 0}}},
                                 {1, {{0, 2, 3}, {1, 2, 3}}}});
  EXPECT_EQ(canon(c), canon(want));
}

TEST(Derive, ConcatenateSharedRoots) {
  const Graph a = handmade_a();
  const Graph er = core::embed_roots(a, {{1}, {0, 1}, {}, {}});
  const Graph c = core::concatenate({&a, &er}, true);
  const Graph want = make_graph({{3, {{4, 1, 0}, {0, 0, 1}, {2, 2, 1}, {9, 1, 0}, {5, 0, 1}}},
                                 {2, {{0, 0, 1}, {1, 0, 0}, {2, 1, 0}, {3, 0, 1}, {5, 1, 0}}},
                                 {2, {{3, 0, 1}, {1, 1, 0}, {7, 0, 1}, {5, 1, 0}}},
                                 {0, {}}});
  EXPECT_EQ(canon(c), canon(want));
  const Graph l = handmade_l();
  EXPECT_THROW(core::concatenate({&a, &l}, true), GraphError);
}

TEST(Derive, Patterns) {
  const Graph g = core::pattern_graph(core::Pattern::gather, {1, 2, 0, 1});
  EXPECT_EQ(canon(g), canon(make_graph({{1, {{0, 0, 0}, {1, 1, 0}, {2, 1, 1}, {3, 3, 0}}}, {2, {}}, {0, {}}, {1, {}}})));
  const Graph ag = core::pattern_graph(core::Pattern::allgather, {1, 0, 2});
  for (int r = 0; r < 3; ++r)
    EXPECT_EQ(canon(ag)[static_cast<size_t>(r)].second, (std::map<Index, std::pair<int, Index>>{{0, {0, 0}}, {1, {2, 0}}, {2, {2, 1}}}));
  const Graph aa = core::pattern_graph(core::Pattern::alltoall, {3, 3, 3});
  // Leaf j of rank r <-> root r of rank j.
  for (int r = 0; r < 3; ++r)
    for (int j = 0; j < 3; ++j) {
      EXPECT_EQ(aa[r].remote_rank[static_cast<size_t>(j)], j);
      EXPECT_EQ(aa[r].remote_index[static_cast<size_t>(j)], r);
    }
  EXPECT_THROW(core::pattern_graph(core::Pattern::alltoall, {3, 2, 3}), GraphError);
}

TEST(Derive, EmptyGraphsStayEmpty) {
  const Graph e = make_graph({{0, {}}, {0, {}}});
  EXPECT_EQ(core::multi_sf(e), e);
  EXPECT_EQ(canon(core::inverse(e)), canon(e));
  EXPECT_EQ(canon(core::compose(e, e)), canon(e));
}
