#include <gtest/gtest.h>

#include "core/peer_lists.hpp"
#include "support/graphs.hpp"

using namespace sfr;
using namespace sfr_test;

TEST(PeerLists, PeersListsAndSelfPartOfHandmadeGraph) {
  const auto rank_lists = core::build_rank_lists(handmade_a());
  // Rank 0 leaves: pos4->(1,0), pos0->(0,1) self, pos2->(2,1).
  const auto& p0 = rank_lists[0];
  EXPECT_EQ(p0.leaf_side.peers, (std::vector<int>{1, 2}));
  EXPECT_EQ(p0.leaf_side.indices, (std::vector<Index>{4, 2}));  // peer 1: pos 4; peer 2: pos 2
  EXPECT_EQ(p0.leaf_remote, (std::vector<Index>{0, 1}));
  EXPECT_EQ(p0.self_leaves, (std::vector<Index>{0}));
  EXPECT_EQ(p0.self_roots, (std::vector<Index>{1}));
  // Rank 0 roots are read by rank 1 (pos0->(0,1), pos1->(0,0)) and rank 2 (pos3->(0,1)).
  EXPECT_EQ(p0.root_side.peers, (std::vector<int>{1, 2}));
  EXPECT_EQ(p0.root_side.indices, (std::vector<Index>{1, 0, 1}));
  EXPECT_EQ(p0.root_side.offsets, (std::vector<Index>{0, 2, 3}));
  EXPECT_TRUE(rank_lists[3].root_side.peers.empty());
  EXPECT_TRUE(rank_lists[3].leaf_side.peers.empty());
}

TEST(PeerLists, ListsMatchElementByElementAcrossRanks) {
  const Graph g = handmade_a();
  const auto rank_lists = core::build_rank_lists(g);
  for (int r = 0; r < g.nranks; ++r) {
    const auto& lp = rank_lists[static_cast<size_t>(r)].leaf_side;
    for (size_t p = 0; p < lp.npeers(); ++p) {
      const int s = lp.peers[p];
      const auto& rp = rank_lists[static_cast<size_t>(s)].root_side;
      const auto it = std::find(rp.peers.begin(), rp.peers.end(), r);
      ASSERT_NE(it, rp.peers.end());
      const auto roots = rp.list(static_cast<size_t>(it - rp.peers.begin()));
      const auto leaves = lp.list(p);
      ASSERT_EQ(roots.size(), leaves.size());
      for (size_t k = 0; k < leaves.size(); ++k) {
        // The leaf at leaves[k] must be attached to root roots[k] of rank s.
        bool found = false;
        for (Index j = 0; j < g[r].nleaves(); ++j)
          if (g[r].leaf_position(j) == leaves[k])
            found = g[r].remote_rank[static_cast<size_t>(j)] == s && g[r].remote_index[static_cast<size_t>(j)] == roots[k];
        EXPECT_TRUE(found) << "rank " << r << " peer " << s << " element " << k;
      }
    }
  }
}

TEST(PeerLists, OneRankEqualsAllRanks) {
  const Graph g = handmade_a();
  const auto all = core::build_rank_lists(g);
  for (int r = 0; r < g.nranks; ++r) {
    const auto one = core::build_rank_lists(g, r);
    EXPECT_EQ(one.root_side.peers, all[static_cast<size_t>(r)].root_side.peers);
    EXPECT_EQ(one.root_side.indices, all[static_cast<size_t>(r)].root_side.indices);
    EXPECT_EQ(one.leaf_side.indices, all[static_cast<size_t>(r)].leaf_side.indices);
    EXPECT_EQ(one.leaf_remote, all[static_cast<size_t>(r)].leaf_remote);
    EXPECT_EQ(one.self_roots, all[static_cast<size_t>(r)].self_roots);
    EXPECT_EQ(one.leafspace, all[static_cast<size_t>(r)].leafspace);
  }
}

TEST(PeerLists, ClassifyIndexShapes) {
  using K = core::IndexShape;
  auto kind = [](std::vector<Index> v) { return core::classify_indices(v).kind; };
  EXPECT_EQ(kind({}), K::empty);
  EXPECT_EQ(kind({7}), K::contiguous);
  EXPECT_EQ(kind({3, 4, 5, 6}), K::contiguous);
  EXPECT_EQ(kind({2, 5, 8, 11}), K::strided);
  EXPECT_EQ(kind({2, 5, 9}), K::general);
  EXPECT_EQ(kind({5, 4}), K::general);
  // 2x3x2 sub-block of a 10x10x10 array starting at 111.
  std::vector<Index> blk;
  for (Index z = 0; z < 2; ++z)
    for (Index y = 0; y < 3; ++y)
      for (Index x = 0; x < 2; ++x) blk.push_back(111 + x + 10 * y + 100 * z);
  const auto s = core::classify_indices(blk);
  ASSERT_EQ(s.kind, K::block3d);
  EXPECT_EQ(s.nx, 2);
  EXPECT_EQ(s.ny, 3);
  EXPECT_EQ(s.nz, 2);
  for (size_t k = 0; k < blk.size(); ++k) EXPECT_EQ(s.at(static_cast<Index>(k)), blk[k]);
  blk.back() += 1;
  EXPECT_EQ(core::classify_indices(blk).kind, K::general);
}

TEST(PeerLists, ListsFollowLeafPositionOrder) {
  // Rank 1 lists position 5 before position 2; both read roots of rank 0. PETSc stores leaves
  // sorted by position, so the lists (and thus the application order) follow positions.
  const Graph g = make_graph({{2, {}}, {0, {{5, 0, 0}, {2, 0, 1}}}});
  const auto rank_lists = core::build_rank_lists(g);
  EXPECT_EQ(rank_lists[1].leaf_side.indices, (std::vector<Index>{2, 5}));
  EXPECT_EQ(rank_lists[1].leaf_remote, (std::vector<Index>{1, 0}));
  EXPECT_EQ(rank_lists[0].root_side.indices, (std::vector<Index>{1, 0}));
}
