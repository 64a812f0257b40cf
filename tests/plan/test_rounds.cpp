// plan::op_rounds against message tables worked out by hand from the strategies' definitions
// (plan.hpp), on one small graph: 4 ranks as 2 nodes of 2 ({0, 1}, {2, 3}), 2 roots each, float64
// (8 bytes a value).
//   rank 0's leaves read rank 2's root 0, root 1, rank 3's root 0, rank 1's root 0, rank 2's root 0
//          (so rank 2's root 0 twice: a duplicate for window's rounds and the dedup of bcasts);
//   rank 1's leaf reads rank 2's root 0; rank 2's leaf reads rank 0's root 0; rank 3 has none.
// Each expected round lists its messages in the order the plan posts them, and its shared-memory
// bytes. The executor posts exactly these (tests/exec_mpi/test_mpi_counts.cpp counts its MPI calls).
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "core/peer_lists.hpp"
#include "plan/rounds.hpp"
#include "support/large_runs.hpp"

using namespace sfr;
using plan::Message;
using plan::Transport;

namespace {

std::vector<core::RankLists> rank_lists() {
  core::Graph g(4);
  for (int r = 0; r < 4; ++r) g[r].nroots = 2;
  int pos = 0;
  for (const auto& [rank, index] : std::vector<std::pair<int, int>>{{2, 0}, {2, 1}, {3, 0}, {1, 0}, {2, 0}}) g[0].add_leaf(pos++, rank, index);
  g[1].add_leaf(0, 2, 0);
  g[2].add_leaf(0, 0, 0);
  return core::build_rank_lists(g);
}

core::OpSpec op(core::OpKind k) {
  core::OpSpec o;
  o.op = k;
  o.mpi_op = k == core::OpKind::bcast ? core::MpiOp::replace : core::MpiOp::sum;
  return o;
}

struct Expected {
  std::vector<std::vector<Message>> msgs;      // per round
  std::map<std::size_t, std::vector<std::int64_t>> shm_out;  // round -> per rank
};

void expect_rounds(Transport t, core::OpKind k, const Expected& e) {
  const auto rounds = plan::op_rounds(rank_lists(), op(k), core::RankLayout{4, 2}, t, plan::RouteParams{});
  ASSERT_EQ(rounds.size(), e.msgs.size());
  for (std::size_t r = 0; r < rounds.size(); ++r) {
    ASSERT_EQ(rounds[r].msgs.size(), e.msgs[r].size()) << "round " << r << " (" << rounds[r].label << ")";
    for (std::size_t i = 0; i < rounds[r].msgs.size(); ++i) {
      const auto& got = rounds[r].msgs[i];
      const auto& want = e.msgs[r][i];
      EXPECT_TRUE(got.src == want.src && got.dst == want.dst && got.bytes == want.bytes)
          << "round " << r << " (" << rounds[r].label << ") message " << i << ": " << got.src << "->" << got.dst << " " << got.bytes
          << " B, expected " << want.src << "->" << want.dst << " " << want.bytes << " B";
    }
    const auto it = e.shm_out.find(r);
    EXPECT_EQ(rounds[r].shm_out, it == e.shm_out.end() ? std::vector<std::int64_t>(4, 0) : it->second) << "round " << r;
  }
}

}  // namespace

TEST(PlanRounds, DirectOneMessagePerPair) {
  // bcast: root owner -> leaf rank, as many values as the leaf rank has leaves there.
  expect_rounds(Transport::direct, core::OpKind::bcast, {{{{0, 2, 8}, {1, 0, 8}, {2, 0, 24}, {2, 1, 8}, {3, 0, 8}}}, {}});
  // reduce: leaf rank -> root owner.
  expect_rounds(Transport::direct, core::OpKind::reduce, {{{{0, 1, 8}, {0, 2, 24}, {0, 3, 8}, {1, 2, 8}, {2, 0, 8}}}, {}});
  // fetch_and_op: there, then every fetched value back (by leaf: no dedup).
  expect_rounds(Transport::direct, core::OpKind::fetch_and_op,
                {{{{0, 1, 8}, {0, 2, 24}, {0, 3, 8}, {1, 2, 8}, {2, 0, 8}}, {{0, 2, 8}, {1, 0, 8}, {2, 0, 24}, {2, 1, 8}, {3, 0, 8}}}, {}});
}

TEST(PlanRounds, WindowOneMessagePerCall) {
  // bcast: one MPI_Get per pair (by the leaf rank that gets).
  expect_rounds(Transport::one_sided, core::OpKind::bcast, {{{{1, 0, 8}, {2, 0, 24}, {3, 0, 8}, {2, 1, 8}, {0, 2, 8}}}, {}});
  // reduce: rank 0 reaches rank 2's root 0 twice: two MPI_Accumulate rounds to rank 2 (roots 0
  // and 1, then root 0 again).
  expect_rounds(Transport::one_sided, core::OpKind::reduce, {{{{0, 1, 8}, {0, 2, 16}, {0, 2, 8}, {0, 3, 8}, {1, 2, 8}, {2, 0, 8}}}, {}});
  // fetch_and_op: one MPI_Get_accumulate per leaf, its value there and the root's back.
  expect_rounds(Transport::one_sided, core::OpKind::fetch_and_op,
                {{{{0, 1, 8}, {0, 2, 8}, {0, 2, 8}, {0, 2, 8}, {0, 3, 8}, {1, 2, 8}, {2, 0, 8}},
                  {{1, 0, 8}, {2, 0, 8}, {2, 0, 8}, {2, 0, 8}, {3, 0, 8}, {2, 1, 8}, {0, 2, 8}}},
                 {}});
}

TEST(PlanRounds, ShmCopiesOnTheNodeSendsOffIt) {
  expect_rounds(Transport::shm, core::OpKind::bcast, {{{{0, 2, 8}, {2, 0, 24}, {2, 1, 8}, {3, 0, 8}}}, {{0, {0, 8, 0, 0}}}});
  expect_rounds(Transport::shm, core::OpKind::reduce, {{{{0, 2, 24}, {0, 3, 8}, {1, 2, 8}, {2, 0, 8}}}, {{0, {8, 0, 0, 0}}}});
}

// 3step: group (s, L) goes s -> A = the rank of s's node with local index L -> B = the rank of node
// L with local index node(s) -> its destinations.
TEST(PlanRounds, ThreeStep) {
  // bcast (values by index, deduplicated: rank 2 sends roots {0, 1} to node 0 once):
  //   groups (0, L1): A 1, B 2, 1 value; (2, L0): A 2, B 1, 2 values; (3, L0): A 2, B 1, 1 value.
  //   step 1: 0 -> 1 (8), 3 -> 2 (8); step 2: 1 -> 2 (8), 2 -> 1 (3 values); step 3: rank 0 receives
  //   its 4 leaves' values of ranks 2 and 3 from their relay 1; ranks 1 and 2 are their own relays.
  expect_rounds(Transport::three_step, core::OpKind::bcast,
                {{{{0, 1, 8}, {3, 2, 8}}, {{1, 2, 8}, {2, 1, 24}}, {{1, 0, 32}}}, {{0, {0, 8, 0, 0}}}});
  // reduce (by leaf, no dedup): groups (0, L1): A 1, B 2, 4 values; (1, L1): A 1 = s, B 2, 1;
  //   (2, L0): A 2 = s, B 1, 1. step 2: 1 -> 2 (5 values), 2 -> 1 (1); step 3: rank 0's root read by
  //   rank 2 comes through relay 1; rank 3's root read by rank 0 through relay 2.
  expect_rounds(Transport::three_step, core::OpKind::reduce,
                {{{{0, 1, 32}}, {{1, 2, 40}, {2, 1, 8}}, {{1, 0, 8}, {2, 3, 8}}}, {{0, {8, 0, 0, 0}}}});
  // fetch_and_op: the reduce's rounds, then the fetched values back by leaf (no dedup: 4 + 1 from
  // node 1 to rank 0 and rank 1).
  expect_rounds(Transport::three_step, core::OpKind::fetch_and_op,
                {{{{0, 1, 32}},
                  {{1, 2, 40}, {2, 1, 8}},
                  {{1, 0, 8}, {2, 3, 8}},
                  {{0, 1, 8}, {3, 2, 8}},
                  {{1, 2, 8}, {2, 1, 40}},
                  {{1, 0, 32}}},
                 {{0, {8, 0, 0, 0}}, {3, {0, 8, 0, 0}}}});
}

// 2step: group (s, L) goes from s to B = the rank of node L with s's local index, which forwards.
TEST(PlanRounds, TwoStep) {
  // bcast: (2, L0) B 0, 2 values; (3, L0) B 1, 1; (0, L1) B 2, 1. step 3: rank 0's leaf on rank 3
  // comes through rank 1; rank 1's on rank 2 through rank 0.
  expect_rounds(Transport::two_step, core::OpKind::bcast,
                {{{}, {{0, 2, 8}, {2, 0, 16}, {3, 1, 8}}, {{1, 0, 8}, {0, 1, 8}}}, {{0, {0, 8, 0, 0}}}});
}

// split (one chunk per source node here: split_cap 8192 B): node 1's groups (2, L0), (3, L0) in
// chunk 0, from its local rank 1 (rank 3) to node 0's local rank 0 (rank 0); node 0's (0, L1) from
// its local rank 1 (rank 1) to rank 2.
TEST(PlanRounds, Split) {
  expect_rounds(Transport::split, core::OpKind::bcast,
                {{{{0, 1, 8}, {2, 3, 16}}, {{1, 2, 8}, {3, 0, 24}}, {{0, 1, 8}}}, {{0, {0, 8, 0, 0}}}});
}

// shm leaves an on-node pair to MPI from 64 KiB when the sender's values are one contiguous run
// (core/shm_route.hpp). 2 ranks on one node, each leaf block of `bs` float64 read from the other
// rank: `runs` reads roots 0 and 1 (contiguous), `gaps` roots 0 and 2 (strided roots, contiguous
// leaves). Bytes per pair: 2 * bs * 8.
TEST(PlanRounds, ShmLeavesLargeContiguousRunsToMpi) {
  const trace::Trace t = sfr_test::large_runs_trace();
  const auto runs = core::build_rank_lists(*std::get<trace::ExplicitSF>(t.sfs[0].def).graph);
  const auto gaps = core::build_rank_lists(*std::get<trace::ExplicitSF>(t.sfs[1].def).graph);
  auto round = [](const std::vector<core::RankLists>& lists, core::OpKind k, int bs) {
    core::OpSpec o = op(k);
    o.bs = bs;
    const auto rounds = plan::op_rounds(lists, o, core::RankLayout{2, 2}, Transport::shm, plan::RouteParams{});
    EXPECT_EQ(rounds.size(), 1u);
    return rounds.front();
  };
  const std::vector<Message> both_ways = {{0, 1, 65536}, {1, 0, 65536}};
  auto expect_msgs = [](const plan::Round& r, const std::vector<Message>& want, std::int64_t shm_each) {
    ASSERT_EQ(r.msgs.size(), want.size()) << r.label;
    for (std::size_t i = 0; i < want.size(); ++i)
      EXPECT_TRUE(r.msgs[i].src == want[i].src && r.msgs[i].dst == want[i].dst && r.msgs[i].bytes == want[i].bytes) << "message " << i;
    EXPECT_EQ(r.shm_out, (std::vector<std::int64_t>{shm_each, shm_each}));
    EXPECT_EQ(r.shm_in, (std::vector<std::int64_t>{shm_each, shm_each}));
  };
  expect_msgs(round(runs, core::OpKind::bcast, 4096), both_ways, 0);    // 64 KiB, contiguous: MPI
  expect_msgs(round(runs, core::OpKind::bcast, 4095), {}, 65520);       // 8 bytes under: the segment
  expect_msgs(round(runs, core::OpKind::reduce, 4096), both_ways, 0);   // the leaves send, contiguous
  expect_msgs(round(gaps, core::OpKind::bcast, 4096), {}, 65536);       // strided roots send
  expect_msgs(round(gaps, core::OpKind::reduce, 4096), both_ways, 0);   // contiguous leaves send
  // basic (direct) ignores the rule: the same messages at every size.
  core::OpSpec small = op(core::OpKind::bcast);
  small.bs = 4095;
  EXPECT_EQ(plan::op_rounds(runs, small, core::RankLayout{2, 2}, Transport::direct, plan::RouteParams{}).front().msgs.size(), 2u);
}
