// --backend auto's choice: per SF, the backend the simulator predicts fastest, on machines where
// the answer is worked out by hand; and which machine it uses by default.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "sim/auto_backend.hpp"
#include "sim_support.hpp"

using namespace sfr_simtest;
using core::OpKind;
using sim::ModelKind;

TEST(SimAutoBackend, ChoosesPerSfByPrediction) {
  // Two ranks, 125 doubles each way (1 us of bytes at 1 ns/B), latency 1 us.
  core::Graph g(2);
  link(g, 0, 1, 125);
  link(g, 1, 0, 125);
  auto bt = make_trace(g, {op(OpKind::bcast), op(OpKind::bcast)});
  // A receive costs 10 us of CPU (LogGP o_recv): basic, neighbor, alltoallv take 1 + 1 + 10 us a
  // call; window (puts, no receives) takes fence 1 + put 2 + fence 1 = 4 us.
  auto m = flat(ModelKind::loggp);
  m.o_recv = 10e-6;
  auto c = sim::choose_backends(bt, m);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].sf, "S");
  EXPECT_EQ(c[0].ops, 2u);
  EXPECT_EQ(c[0].backend, "window");
  EXPECT_EQ(c[0].runner_up, "basic");  // ties with neighbor and alltoallv: the first candidate
  EXPECT_NEAR(c[0].predicted_s, 2 * 4e-6, 1e-11);
  EXPECT_NEAR(c[0].margin(), 12.0 / 4.0 - 1, 1e-6);
  // Fences that cost 100 us each: window is out, basic (first of the tie) wins.
  m.fence_overhead = 100e-6;
  c = sim::choose_backends(bt, m);
  EXPECT_EQ(c[0].backend, "basic");
  // A neighbourhood collective's start-up makes neighbor and alltoallv lose even without it.
  m.o_recv = 0, m.fence_overhead = 0, m.collective_overhead = 5e-6;
  c = sim::choose_backends(bt, m);
  EXPECT_EQ(c[0].backend, "basic");
  EXPECT_EQ(c[0].runner_up, "window");  // 4 us against 1 + 2 + 5 us
}

TEST(SimAutoBackend, DefaultMachine) {
  const auto dir = std::filesystem::temp_directory_path() / ("sfr_auto_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / "machine.json";
  ::setenv("SFR_MACHINE_FILE", file.c_str(), 1);
  EXPECT_EQ(sim::default_machine_path(), file.string());
  std::string source;
  auto m = sim::auto_machine("", &source);  // no file yet
  EXPECT_EQ(m.name, "generic");
  EXPECT_NE(source.find("generic preset"), std::string::npos) << source;
  std::ofstream(file) << R"({"format": "sf-machine", "name": "mine", "model": "loggp"})";
  m = sim::auto_machine("", &source);
  EXPECT_EQ(m.name, "mine");
  EXPECT_NE(source.find("written by calibrate"), std::string::npos) << source;
  m = sim::auto_machine("lassen", &source);  // given wins
  EXPECT_EQ(m.name, "lassen");
  ::unsetenv("SFR_MACHINE_FILE");
  ::setenv("XDG_CONFIG_HOME", dir.c_str(), 1);
  EXPECT_EQ(sim::default_machine_path(), (dir / "sf-replay" / "machine.json").string());
  ::unsetenv("XDG_CONFIG_HOME");
  std::filesystem::remove_all(dir);
}

// A calibrated machine file used for another run says so in one line: what differs (host,
// ranks, ranks per node) and the file's age; a match younger than a day says nothing.
TEST(SimAutoBackend, MachineFileMismatchIsOneLine) {
  sim::CalibratedOn c;
  c.host = "boxA", c.date = "2026-11-24T09:00:00Z", c.ranks = 4, c.nodes = 2, c.ranks_per_node = 2, c.emulated_nodes = true;
  std::tm tm{};
  tm.tm_year = 126, tm.tm_mon = 10, tm.tm_mday = 24, tm.tm_hour = 12;
  const std::time_t three_h = timegm(&tm);
  EXPECT_EQ(sim::machine_mismatch("m.json", c, {"boxA", 4, 2}, three_h), "");
  EXPECT_EQ(sim::machine_mismatch("m.json", c, {"boxB", 2, 2}, three_h),
            "machine file m.json does not match this run (host, ranks): calibrated on host boxA with 4 ranks as 2 nodes of 2 (emulated), "
            "3 h ago; this run has 2 ranks as 1 node of 2 on host boxB");
  EXPECT_EQ(sim::machine_mismatch("m.json", c, {"boxA", 4, 4}, three_h),
            "machine file m.json does not match this run (ranks per node): calibrated on host boxA with 4 ranks as 2 nodes of 2 "
            "(emulated), 3 h ago; this run has 4 ranks as 1 node of 4 on host boxA");
  const std::time_t three_days = three_h + 3 * 86400;
  EXPECT_EQ(sim::machine_mismatch("m.json", c, {"boxA", 4, 2}, three_days),
            "machine file m.json is stale (older than 24 h): calibrated on host boxA with 4 ranks as 2 nodes of 2 (emulated), 3 days "
            "ago; this run has 4 ranks as 2 nodes of 2 on host boxA");
  // A file dated after `now` (a clock set back between calibrate and the run) is just made.
  EXPECT_NE(sim::machine_mismatch("m.json", c, {"boxB", 4, 2}, three_h - 4 * 3600).find("(emulated), 0 min ago; this run"),
            std::string::npos);
  // Older files without the fields: nothing to compare, nothing said.
  EXPECT_EQ(sim::machine_mismatch("m.json", sim::CalibratedOn{}, {"boxA", 4, 2}, three_days), "");
  // Presets and uniform machines are no calibrated file.
  EXPECT_FALSE(sim::calibrated_on("generic"));
  EXPECT_FALSE(sim::calibrated_on("uniform:latency=1e-6,bandwidth=1e9"));
}
