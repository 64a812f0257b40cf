#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analysis/inspect.hpp"
#include "support/sample_traces.hpp"
#include "trace/reader.hpp"

using namespace sfr;

TEST(Inspect, HandmadeGraphStatisticsByHand) {
  const auto t = trace::read_trace_file(sfr_test::kSample);
  const auto s = analysis::compute_stats(t);
  const auto& a = s.sfs.at(0);
  ASSERT_EQ(a.name, "A");
  EXPECT_EQ(a.roots, 7);
  EXPECT_EQ(a.leaves, 8);
  EXPECT_EQ(a.leafspace, 12);
  EXPECT_EQ(a.degree_min, 0);
  EXPECT_EQ(a.degree_max, 3);
  EXPECT_EQ(a.degree_zero, 3);
  EXPECT_EQ(a.self_edges, 2);
  EXPECT_EQ(a.remote_edges, 6);
  // Remote rank pairs (leaf rank -> root rank): 0->1, 0->2, 1->0, 2->0, 2->1. With 2 ranks per
  // node and 1 per socket: 0-1 and 1-0 are on-node, the rest off-node.
  EXPECT_EQ(a.messages, 5);
  EXPECT_EQ(a.tier_messages.v[0], 0);
  EXPECT_EQ(a.tier_messages.v[1], 2);
  EXPECT_EQ(a.tier_messages.v[2], 3);
  EXPECT_EQ(a.max_in_degree, 2);   // ranks 0 and 2 read from two ranks
  EXPECT_EQ(a.max_out_degree, 2);  // ranks 0 and 1 serve two ranks
  // float64 bs=1 bcast: 6 remote edges x 8 B; on-node edges: 0->1 (1) and 1->0 (2) = 3 -> 24 B.
  EXPECT_EQ(a.bytes.at(0).remote_bytes, 48);
  EXPECT_EQ(a.bytes.at(0).self_bytes, 16);
  EXPECT_EQ(a.bytes.at(0).tier_bytes.v[1], 24);
  EXPECT_EQ(s.ops.size(), t.trace().ops.size());
}

TEST(Inspect, JsonIsParseableAndComplete) {
  const auto t = trace::read_trace_file(sfr_test::kSample);
  const auto j = nlohmann::json::parse(analysis::render_json(analysis::compute_stats(t)));
  EXPECT_EQ(j["nranks"], 4);
  EXPECT_EQ(j["sfs"].size(), t.trace().sfs.size());
  EXPECT_EQ(j["sfs"][0]["messages_by_tier"]["network"], 3);
  EXPECT_EQ(j["sfs"][0]["messages_by_tier"]["node"], 2);
  EXPECT_EQ(j["ops"].size(), t.trace().ops.size());
}
