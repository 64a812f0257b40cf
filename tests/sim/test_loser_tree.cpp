// The loser tree against std::priority_queue: the same sequence of least keys under random
// replacements and removals, for every width from 1 to 70 slots (powers of two and not).
#include <gtest/gtest.h>

#include <queue>
#include <random>
#include <vector>

#include "sim/loser_tree.hpp"

using sfr::sim::LoserTree;

namespace {
using Key = LoserTree::Key;
struct Item {
  std::uint64_t hi, lo;
  std::uint32_t slot;
  bool operator>(const Item& o) const { return hi != o.hi ? hi > o.hi : lo > o.lo; }
};
}  // namespace

TEST(SimLoserTree, PopsTheSameOrderAsAPriorityQueue) {
  std::mt19937_64 rng(7);
  for (std::size_t n = 1; n <= 70; ++n) {
    std::vector<Key> keys(n);
    std::priority_queue<Item, std::vector<Item>, std::greater<>> ref;
    std::uint64_t seq = 0;
    for (std::size_t i = 0; i < n; ++i) {
      keys[i] = {rng() % 16, seq++};  // few distinct times: ties are settled by the sequence
      ref.push({keys[i].hi, keys[i].lo, static_cast<std::uint32_t>(i)});
    }
    LoserTree t;
    t.reset(keys.data(), n);
    std::size_t pops = 0;
    while (!ref.empty()) {
      ASSERT_FALSE(t.empty()) << n << " slots, pop " << pops;
      const Item want = ref.top();
      ref.pop();
      ASSERT_EQ(t.top(), want.slot) << n << " slots, pop " << pops;
      ASSERT_EQ(t.top_key().hi, want.hi);
      ASSERT_EQ(t.top_key().lo, want.lo);
      ++pops;
      if (rng() % 8 == 0) {  // the slot leaves
        t.replace_top({LoserTree::kNone, LoserTree::kNone});
      } else {  // the slot's next key: any (the engine's only grow)
        const Key k{rng() % 16, seq++};
        t.replace_top(k);
        ref.push({k.hi, k.lo, want.slot});
      }
    }
    EXPECT_TRUE(t.empty()) << n << " slots";
  }
}

TEST(SimLoserTree, ResetStartsOver) {
  LoserTree t;
  const std::vector<Key> a{{5, 0}, {3, 1}, {9, 2}};
  t.reset(a.data(), a.size());
  EXPECT_EQ(t.top(), 1u);
  t.replace_top({LoserTree::kNone, LoserTree::kNone});
  EXPECT_EQ(t.top(), 0u);
  const std::vector<Key> b{{2, 0}};
  t.reset(b.data(), b.size());
  EXPECT_EQ(t.top(), 0u);
  t.replace_top({LoserTree::kNone, LoserTree::kNone});
  EXPECT_TRUE(t.empty());
  t.reset(nullptr, 0);
  EXPECT_TRUE(t.empty());
}
