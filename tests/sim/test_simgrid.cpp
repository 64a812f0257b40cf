// Agreement with SimGrid SMPI (skipped when smpirun is not installed): the same communication
// replayed by SMPI (exported time-independent trace, CM02 on private split-duplex links without a
// backbone) and by us on the same uniform machine (1 us end to end, 10 GB/s), the default flow
// engine. Rings are where one link limits each flow throughout; random degree-8 exchanges and SpMV
// ghost exchanges mix fan-in, fan-out and late receivers. Every case must be within 10%.
#include <gtest/gtest.h>

#include "support/require.hpp"

#include <filesystem>
#include <fstream>

#include "sim/simgrid_export.hpp"
#include "sim/smpi_compare.hpp"
#include "sim_support.hpp"
#include "support/cli_fixture.hpp"
#include "support/sim_backend.hpp"
#include "trace/reader.hpp"

using namespace sfr_simtest;

namespace {

struct Case {
  const char* name;
  int kind;  // 0 ring, 1 random, 2 SpMV
  int ranks;
  std::vector<int> offsets;
  std::int64_t bytes;
  int ops;
  const char* matrix;
};

std::string case_name(const ::testing::TestParamInfo<Case>& i) { return i.param.name; }

class SimSmpi : public sfr_test::CliTest, public ::testing::WithParamInterface<Case> {};

}  // namespace

TEST_P(SimSmpi, WithinTenPercent) {
  if (!sim::smpirun_available()) SFR_SKIP_OR_REQUIRE("SFR_REQUIRE_SIMGRID", "smpirun not installed (libsimgrid-dev)");
  const Case& c = GetParam();
  const auto m = sim::uniform_machine(1e-6, 1e10);
  std::optional<trace::BuiltTrace> bt;
  if (c.kind == 0) bt.emplace(sim::ring_trace(c.ranks, c.offsets, c.bytes, c.ops));
  if (c.kind == 1) bt.emplace(sim::random_degree_trace(c.ranks, 8, c.bytes, c.ops, 7));
  if (c.kind == 2) {
    const std::string mtx = std::string(SFR_MATRICES_DIR) + "/" + c.matrix + ".mtx";
    if (!std::filesystem::exists(mtx)) SFR_SKIP_OR_REQUIRE("SFR_REQUIRE_SIMGRID", mtx + " not found (../shared/matrices)");
    const auto t = dir_ / "spmv.json";
    const auto g = run("generate spmv --matrix " + mtx + " --ranks " + std::to_string(c.ranks) + " --partition rows -o " + t.string());
    ASSERT_EQ(g.status, 0) << g.err;
    auto tr = trace::read_trace_file(t.string()).trace();
    for (auto& op : tr.ops) op.repeat = c.ops / 2;  // MatMult and MatMultTranspose
    bt.emplace(std::move(tr));
  }
  const auto r = sim::compare_with_smpi(*bt, m, (dir_ / "smpi").string());
  ASSERT_GT(r.smpi_s, 0) << "smpirun failed, see its log in " << dir_;
  std::printf("%s: SMPI %.3f us, sf-replay %.3f us, difference %+.2f%%, SMPI %.2f s wall, sf-replay %.5f s wall\n", c.name, r.smpi_s * 1e6,
              r.ours_s * 1e6, r.diff() * 100, r.smpi_wall_s, r.ours_wall_s);
  EXPECT_LT(std::abs(r.diff()), 0.10);
}

INSTANTIATE_TEST_SUITE_P(Patterns, SimSmpi,
                         ::testing::Values(Case{"OneWayRing256x1KiB", 0, 256, {1}, 1024, 20, nullptr},
                                           Case{"TwoWayRing64x64KiB", 0, 64, {-1, 1}, 65536, 20, nullptr},
                                           Case{"TwoWayRing256x512KiB", 0, 256, {-1, 1}, 524288, 10, nullptr},
                                           Case{"PlusMinus2Ring1024x1KiB", 0, 1024, {-2, -1, 1, 2}, 1024, 20, nullptr},
                                           Case{"RandomDegree8x128x4KiB", 1, 128, {}, 4096, 20, nullptr},
                                           Case{"RandomDegree8x64x64KiB", 1, 64, {}, 65536, 10, nullptr},
                                           Case{"SpmvBcsstk13x64", 2, 64, {}, 0, 20, "bcsstk13"},
                                           Case{"SpmvCryg2500x64", 2, 64, {}, 0, 20, "cryg2500"},
                                           Case{"SpmvPdx64", 2, 64, {}, 0, 20, "Pd"}),
                         case_name);

// The node-aware strategies, exported as the plan routes them (src/plan: the messages the executor
// posts, step by step), on 4 ranks per node: SMPI and our simulator time the same three steps.
struct NodeAwareCase {
  const char* name;
  const char* backend;
  int kind;  // 0 ring, 1 random degree 8
  std::vector<int> offsets;
  std::int64_t bytes;
};
class SimSmpiNodeAware : public sfr_test::CliTest, public ::testing::WithParamInterface<NodeAwareCase> {};

TEST_P(SimSmpiNodeAware, WithinTenPercent) {
  if (!sim::smpirun_available()) SFR_SKIP_OR_REQUIRE("SFR_REQUIRE_SIMGRID", "smpirun not installed (libsimgrid-dev)");
  const auto& c = GetParam();
  const auto m = sim::uniform_machine(1e-6, 1e10);
  auto tr = (c.kind == 0 ? sim::ring_trace(64, c.offsets, c.bytes, 10) : sim::random_degree_trace(64, 8, c.bytes, 10, 7)).trace();
  tr.machine = trace::Machine{4, 4, 0};
  const trace::BuiltTrace bt(std::move(tr));
  const auto r = sim::compare_with_smpi(bt, m, (dir_ / "smpi").string(), sfr_test::sim_backend(c.backend));
  ASSERT_GT(r.smpi_s, 0) << "smpirun failed, see its log in " << dir_;
  std::printf("%s: SMPI %.3f us, sf-replay %.3f us, difference %+.2f%%\n", c.name, r.smpi_s * 1e6, r.ours_s * 1e6, r.diff() * 100);
  EXPECT_LT(std::abs(r.diff()), 0.10);
}

INSTANTIATE_TEST_SUITE_P(Strategies, SimSmpiNodeAware,
                         ::testing::Values(NodeAwareCase{"ThreeStepRing4x4KiB", "3step", 0, {-4, 4}, 4096},
                                           NodeAwareCase{"TwoStepRing4x4KiB", "2step", 0, {-4, 4}, 4096},
                                           NodeAwareCase{"SplitRing4x4KiB", "split-md", 0, {-4, 4}, 4096},
                                           NodeAwareCase{"ThreeStepRandom8x1KiB", "3step", 1, {}, 1024},
                                           NodeAwareCase{"SplitRandom8x1KiB", "split-md", 1, {}, 1024}),
                         [](const ::testing::TestParamInfo<NodeAwareCase>& i) { return std::string(i.param.name); });

TEST(SimSimgridExport, PlatformAndCommand) {
  core::Graph g(4);
  for (int r = 0; r < 4; ++r) link(g, r, (r + 1) % 4, 16);
  const auto bt = make_trace(g, {op(core::OpKind::bcast)});
  const auto dir = (std::filesystem::temp_directory_path() / "sfr_sim_export_test").string();
  const auto ex = sim::export_simgrid(bt, sim::uniform_machine(2e-6, 5e9), dir);
  std::ifstream in(ex.platform);
  const std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(xml.find("bb_bw"), std::string::npos) << "no backbone: it would cap the sum of all flows";
  auto attr = [&](const std::string& key) {
    const auto at = xml.find(" " + key + "=\"");
    return at == std::string::npos ? -1.0 : std::strtod(xml.c_str() + at + key.size() + 3, nullptr);
  };
  EXPECT_NEAR(attr("lat"), 1e-6, 1e-18) << xml;  // alpha/2 per link: up, then down
  EXPECT_NEAR(attr("bw"), 5e9, 1e-3) << xml;
  for (const char* cfg : {"--cfg=network/crosstraffic:0", "--cfg=smpi/display-timing:yes", "--cfg=network/model:CM02"})
    EXPECT_NE(ex.command.find(cfg), std::string::npos) << cfg;
  std::filesystem::remove_all(dir);
}
