// sf-replay inspect on a file, its JSON read back: the per-rank peers and the imbalances of a
// pattern whose two directions differ (a fan out of rank 0, and rank 3 reading rank 1 too),
// worked out by hand: rank 0 serves 3 ranks, rank 3 reads from 2; messages sent per rank max 3
// over a mean of 1; leaves per rank max 2 over a mean of 1.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/cli_fixture.hpp"

using CliInspect = sfr_test::CliTest;

TEST_F(CliInspect, SaysEachDirectionsPeersAndTheImbalances) {
  const auto t = write("fan.json", R"({"format": "sf-trace", "version": 1, "name": "fan", "nranks": 4,
  "sfs": {"F": {"ranks": [{"nroots": 3, "remote_rank": [], "remote_index": []},
                          {"nroots": 1, "remote_rank": [0], "remote_index": [0]},
                          {"nroots": 0, "remote_rank": [0], "remote_index": [1]},
                          {"nroots": 0, "remote_rank": [0, 1], "remote_index": [2, 0]}]}},
  "ops": [{"op": "bcast", "sf": "F", "unit": "float64"}]})");
  const auto r = run("inspect " + t.string() + " --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto sf = nlohmann::json::parse(r.out)["sfs"][0];
  EXPECT_EQ(sf["messages"], 4) << sf.dump();
  EXPECT_EQ(sf["max_out_degree"], 3) << sf.dump();
  EXPECT_EQ(sf["max_in_degree"], 2) << sf.dump();
  EXPECT_DOUBLE_EQ(sf["message_imbalance"].get<double>(), 3.0) << sf.dump();
  EXPECT_DOUBLE_EQ(sf["leaf_imbalance"].get<double>(), 2.0) << sf.dump();
}
