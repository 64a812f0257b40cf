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

namespace {
// A fan out of rank 0 (its roots read by ranks 1, 2 and 3) and rank 3 reading rank 1 too: the
// directions differ. By hand: 4 messages (1<-0, 2<-0, 3<-0, 3<-1); rank 0 serves 3 ranks (max
// out 3), rank 3 reads from 2 (max in 2); messages sent per rank max 3 over a mean of 4 / 4:
// 3.00; leaves per rank max 2 (rank 3) over a mean of 1: 2.00.
const char* kFan = R"({"format": "sf-trace", "version": 1, "name": "fan", "nranks": 4,
  "sfs": {"F": {"ranks": [{"nroots": 3, "remote_rank": [], "remote_index": []},
                          {"nroots": 1, "remote_rank": [0], "remote_index": [0]},
                          {"nroots": 0, "remote_rank": [0], "remote_index": [1]},
                          {"nroots": 0, "remote_rank": [0, 1], "remote_index": [2, 0]}]}},
  "ops": [{"op": "bcast", "sf": "F", "unit": "float64"}]})";
}  // namespace

TEST(Inspect, PeersAndImbalanceOfAFanByHand) {
  const auto t = trace::parse_trace(kFan, "fan.json");
  const auto s = analysis::compute_stats(t);
  const auto& f = s.sfs.at(0);
  EXPECT_EQ(f.messages, 4);
  EXPECT_EQ(f.max_out_degree, 3);
  EXPECT_EQ(f.max_in_degree, 2);
  EXPECT_DOUBLE_EQ(f.message_imbalance, 3.0);
  EXPECT_DOUBLE_EQ(f.leaf_imbalance, 2.0);
  const std::string text = analysis::render_table(s);
  EXPECT_NE(text.find("max out 3, max in 2; imbalance max/mean: leaves 2.00, messages 3.00"), std::string::npos) << text;
}
