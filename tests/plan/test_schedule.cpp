// plan::nearest_neighbor_order: the send schedule of the GPU-aware neighborhood-collectives paper
// (Algorithms 2 and 3), checked on cases worked out by hand from the paper's pseudo-code, and on the
// property the paper claims for it: in the parallel-to-sequential scatter (every rank sends to every
// other), the first step no longer sends every rank's message to the same rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>

#include "plan/rounds.hpp"

using sfr::plan::nearest_neighbor_order;

namespace {

std::vector<int> ranks_in_order(int rank, const std::vector<int>& dsts) {
  std::vector<int> out;
  for (const std::size_t k : nearest_neighbor_order(rank, dsts)) out.push_back(dsts.at(k));
  return out;
}

}  // namespace

TEST(NearestNeighborOrder, BelowAllAscendsAboveAllDescends) {
  EXPECT_EQ(ranks_in_order(0, {1, 2, 3, 4, 5, 6, 7}), (std::vector<int>{1, 2, 3, 4, 5, 6, 7}));  // Algorithm 2, lines 21-25
  EXPECT_EQ(ranks_in_order(7, {0, 1, 2, 3, 4, 5, 6}), (std::vector<int>{6, 5, 4, 3, 2, 1, 0}));  // lines 16-20
  EXPECT_EQ(ranks_in_order(2, {5, 9}), (std::vector<int>{5, 9}));
  EXPECT_TRUE(nearest_neighbor_order(3, {}).empty());
}

TEST(NearestNeighborOrder, InsideStartsAtTheNearestAndAlternates) {
  // A tie between the neighbour below and the one above goes to the one above (Algorithm 3, line 16).
  EXPECT_EQ(ranks_in_order(3, {0, 1, 2, 4, 5, 6, 7}), (std::vector<int>{4, 2, 5, 1, 6, 0, 7}));
  EXPECT_EQ(ranks_in_order(5, {0, 1, 2, 3, 4, 6}), (std::vector<int>{6, 4, 3, 2, 1, 0}));
  EXPECT_EQ(ranks_in_order(4, {0, 1, 7}), (std::vector<int>{7, 1, 0}));
  // The one below strictly nearer: the walk starts there (y = it, z = the one before: none).
  EXPECT_EQ(ranks_in_order(4, {3, 9, 10}), (std::vector<int>{3, 9, 10}));
  EXPECT_EQ(ranks_in_order(6, {1, 2, 8}), (std::vector<int>{8, 2, 1}));
}

TEST(NearestNeighborOrder, EveryDestinationOnce) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const int size = 2 + static_cast<int>(rng() % 40), rank = static_cast<int>(rng() % static_cast<unsigned>(size));
    std::vector<int> dsts;
    for (int r = 0; r < size; ++r)
      if (r != rank && rng() % 2) dsts.push_back(r);
    auto order = nearest_neighbor_order(rank, dsts);
    std::sort(order.begin(), order.end());
    std::vector<std::size_t> want(dsts.size());
    std::iota(want.begin(), want.end(), std::size_t{0});
    EXPECT_EQ(order, want) << "rank " << rank << " of " << size;
  }
}

// Parallel to sequential (VecScatterCreateToAll): with ascending sends every rank's first message
// goes to rank 0 (rank 0's to rank 1); with the schedule no rank gets more than two first messages.
TEST(NearestNeighborOrder, AllToAllFirstStepIsSpread) {
  for (const int size : {8, 64}) {
    std::map<int, int> first;
    for (int r = 0; r < size; ++r) {
      std::vector<int> dsts;
      for (int d = 0; d < size; ++d)
        if (d != r) dsts.push_back(d);
      ++first[dsts[nearest_neighbor_order(r, dsts).front()]];
    }
    int most = 0;
    for (const auto& [to, n] : first) most = std::max(most, n);
    EXPECT_LE(most, 2) << size << " ranks";
  }
}
