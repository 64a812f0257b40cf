// validate-model's comparison: errors, per-op rankings (with the 5 % rule) and summaries worked
// out by hand.
#include <gtest/gtest.h>

#include "sim/model_check.hpp"

using sfr::sim::ModelPair;

TEST(SimModelCheck, ErrorsRankingsAndSummary) {
  std::vector<ModelPair> p = {
      // op 0: basic is measured best (10); neighbor is predicted best, measured 10.4 (+4 %): right.
      {"t", 0, "bcast", "basic", 10.0, 11.0},     // +10 %
      {"t", 0, "bcast", "neighbor", 10.4, 8.32},  // -20 %
      {"t", 0, "bcast", "window", 20.0, 21.0},    // +5 %
      // op 1: window is measured best (10); alltoallv is predicted best, measured 13 (+30 %): wrong.
      {"t", 1, "reduce", "window", 10.0, 13.0},      // +30 %
      {"t", 1, "reduce", "alltoallv", 13.0, 12.74},  // -2 %
      // another trace's op with one backend: no ranking.
      {"u", 0, "bcast", "basic", 5.0, 5.0},  // 0 %
  };
  const auto c = sfr::sim::check_model(p);
  EXPECT_NEAR(c.pairs[1].error(), -0.2, 1e-12);
  EXPECT_NEAR(c.median_abs_error, (0.05 + 0.10) / 2, 1e-12);
  ASSERT_EQ(c.ops.size(), 2u);
  EXPECT_EQ(c.ops[0].measured_best, "basic");
  EXPECT_EQ(c.ops[0].predicted_best, "neighbor");
  EXPECT_TRUE(c.ops[0].right());
  EXPECT_EQ(c.ops[1].measured_best, "window");
  EXPECT_EQ(c.ops[1].predicted_best, "alltoallv");
  EXPECT_FALSE(c.ops[1].right());
  EXPECT_DOUBLE_EQ(c.ranking_right, 0.5);
  const auto text = sfr::sim::render_model_check(c, "m.json");
  EXPECT_NE(text.find("median |error| 7.5%"), std::string::npos) << text;
  EXPECT_NE(text.find("wrong: its measured time is +30%"), std::string::npos) << text;
  const auto j = sfr::sim::model_check_json(c, "m.json");
  EXPECT_EQ(j["format"], "sf-model-check");
  EXPECT_EQ(j["pairs"].size(), 6u);
  EXPECT_EQ(j["ops"][1]["right"], false);
  EXPECT_DOUBLE_EQ(j["summary"]["ranking_right"].get<double>(), 0.5);
}
