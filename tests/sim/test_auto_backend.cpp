// --backend auto's choice: per SF and motion, the backend the simulator predicts fastest, on machines where
// the answer is worked out by hand; and which machine it uses by default.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/backends.hpp"
#include "sim/auto_backend.hpp"
#include "sim_support.hpp"
#include "support/sim_backend.hpp"

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
  EXPECT_STREQ(core::backend_name(c[0].backend), "window");
  EXPECT_STREQ(core::backend_name(*c[0].runner_up), "basic");  // ties with neighbor and alltoallv: the first candidate
  EXPECT_NEAR(c[0].predicted_s, 2 * 4e-6, 1e-11);
  EXPECT_NEAR(c[0].margin(), 12.0 / 4.0 - 1, 1e-6);
  // Fences that cost 100 us each: window is out, basic (first of the tie) wins.
  m.fence_overhead = 100e-6;
  c = sim::choose_backends(bt, m);
  EXPECT_STREQ(core::backend_name(c[0].backend), "basic");
  // A neighbourhood collective's start-up makes neighbor and alltoallv lose even without it.
  m.o_recv = 0, m.fence_overhead = 0, m.collective_overhead = 5e-6;
  c = sim::choose_backends(bt, m);
  EXPECT_STREQ(core::backend_name(c[0].backend), "basic");
  // Runner-up: shm, which on this machine's nodes of one rank sends everything as basic does (a
  // tie, second in catalogue order); then window's 4 us against 1 + 2 + 5 us.
  EXPECT_STREQ(core::backend_name(*c[0].runner_up), "shm");
  EXPECT_NEAR(c[0].runner_up_s, c[0].predicted_s, 1e-15);
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

namespace {
// Every auto candidate's simulated time for the whole trace (one SF), in catalogue order.
std::vector<std::pair<std::string, double>> candidate_times(const trace::BuiltTrace& bt, const sim::MachineModel& m, bool several_nodes) {
  std::vector<std::pair<std::string, double>> v;
  for (const auto& b : core::kBackends)
    if (b.auto_candidate && (!b.node_aware || several_nodes))
      v.emplace_back(b.name, sim::simulate(bt, m, {sfr_test::sim_backend(b.name)}).backends.at(0).total_s);
  return v;
}
}  // namespace

// One node of two ranks exchanging 8 KiB each way: through shared memory a message is two copies
// at 10 GB/s and the flag's latency, where every MPI backend pays 8 us of bandwidth at 1 GB/s.
// auto returns shm, with the simulator's own number, and on one node no node-aware strategy is a
// candidate.
TEST(SimAutoBackend, ChoosesShmWhereOnNodeCopiesWin) {
  core::Graph g(2);
  link(g, 0, 1, 1024);
  link(g, 1, 0, 1024);
  auto bt = make_trace(g, {op(OpKind::bcast)}, trace::Machine{2, 2, 0});
  auto m = flat(ModelKind::postal);
  m.pack = {0, 0.1e-9};
  const auto times = candidate_times(bt, m, false);
  ASSERT_EQ(times.size(), 5u);  // basic, neighbor, window, alltoallv, shm
  const auto c = sim::choose_backends(bt, m);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_STREQ(core::backend_name(c[0].backend), "shm");
  const auto best = std::min_element(times.begin(), times.end(), [](const auto& x, const auto& y) { return x.second < y.second; });
  EXPECT_EQ(best->first, "shm");
  EXPECT_DOUBLE_EQ(c[0].predicted_s, best->second);
  for (const auto& [name, s] : times) {
    if (name != "shm") {
      EXPECT_LT(best->second, s) << name;  // strictly: not a tie decided by order
    }
  }
  ASSERT_TRUE(c[0].runner_up);
  EXPECT_FALSE(core::backend(*c[0].runner_up).node_aware);
  std::printf("shm: %.3f us, runner-up %s %.3f us\n", c[0].predicted_s * 1e6, core::backend_name(*c[0].runner_up), c[0].runner_up_s * 1e6);
}

// Two nodes of 8 ranks, every rank sending one small message to every rank of the other node (64
// inter-node messages each way) on the node-aware study's serial postal model (a rank's messages
// one after the other) where an inter-node message costs 20 us of latency and an on-node one
// 0.2 us: latency dominates, so a node-aware strategy, which sends few inter-node messages and
// redistributes on the node, beats every direct backend and shm.
TEST(SimAutoBackend, ChoosesNodeAwareWhereInterNodeLatencyDominates) {
  const int per_node = 8;
  core::Graph g(2 * per_node);
  for (int s = 0; s < 2 * per_node; ++s)
    for (int d = 0; d < 2 * per_node; ++d)
      if (s / per_node != d / per_node) link(g, s, d, 1, d % per_node);
  auto bt = make_trace(g, {op(OpKind::bcast)}, trace::Machine{per_node, per_node, 0});
  auto m = flat(ModelKind::study_postal, 0.2e-6, 1e-9);
  for (auto& mem : m.p2p)
    for (auto& p : mem[static_cast<int>(sim::Tier::network)]) p = {20e-6, 1e-9};
  const auto times = candidate_times(bt, m, true);
  ASSERT_EQ(times.size(), 8u);  // and 3step, 2step, split-md
  const auto c = sim::choose_backends(bt, m);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_TRUE(core::backend(c[0].backend).node_aware) << core::backend_name(c[0].backend);
  const auto best = std::min_element(times.begin(), times.end(), [](const auto& x, const auto& y) { return x.second < y.second; });
  EXPECT_EQ(best->first, core::backend_name(c[0].backend));
  EXPECT_DOUBLE_EQ(c[0].predicted_s, best->second);
  for (const auto& [name, s] : times) {
    if (!core::find_backend(name)->node_aware) {
      EXPECT_LT(best->second, s) << name;
    }
  }
  for (const auto& [name, s] : times) std::printf("  %-9s %.3f us\n", name.c_str(), s * 1e6);
  std::printf("auto: %s %.3f us, runner-up %s %.3f us\n", core::backend_name(c[0].backend), c[0].predicted_s * 1e6, core::backend_name(*c[0].runner_up),
              c[0].runner_up_s * 1e6);
  // The same trace on one node (the run's placement: 16 ranks per node): no node-aware candidate.
  for (const auto& x : sim::choose_backends(bt, m, 2 * per_node)) EXPECT_FALSE(core::backend(x.backend).node_aware) << core::backend_name(x.backend);
}

// An SF with a bcast and a reduce (2 ranks on one node, 125 doubles each way): where basic's
// leaf-to-root direction costs 20 us more per call, its bcast runs on basic and its reduce on
// the backend fastest for a trace of the reduce alone (each motion on its own); the runner-ups
// are those of the single-op traces.
TEST(SimAutoBackend, ChoosesPerMotionOfAnSf) {
  core::Graph g(2);
  link(g, 0, 1, 125);
  link(g, 1, 0, 125);
  const trace::Machine node{2, 2, 0};
  auto both = make_trace(g, {op(OpKind::bcast), op(OpKind::reduce), op(OpKind::gather)}, node);
  auto m = flat(ModelKind::loggp);
  m.collective_overhead = 5e-6;            // neighbor and alltoallv out
  m.fence_overhead = 100e-6;               // window out
  m.backend_costs[core::BackendId::shm].op = 3e-6;  // shm's bcast costs 3 us more per call than basic's
  m.backend_costs[core::BackendId::basic].leaf_to_root = sim::MachineModel::CostTerms{.op = 20e-6, .run = 0};
  auto alone = [&](std::vector<core::OpSpec> ops) {
    const auto t = candidate_times(make_trace(g, std::move(ops), node), m, false);
    auto sorted = t;
    std::stable_sort(sorted.begin(), sorted.end(), [](const auto& x, const auto& y) { return x.second < y.second; });
    EXPECT_LT(sorted[0].second, sorted[1].second);  // no tie decides
    return std::pair{sorted[0].first, sorted[1].first};
  };
  const auto down = alone({op(OpKind::bcast)}), up = alone({op(OpKind::reduce), op(OpKind::gather)});
  EXPECT_EQ(down.first, "basic");
  EXPECT_NE(up.first, "basic");
  const auto c = sim::choose_backends(both, m);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].motion, core::Motion::bcast);
  EXPECT_EQ(c[0].kinds, "bcast");
  EXPECT_EQ(c[0].ops, 1u);
  EXPECT_EQ(core::backend_name(c[0].backend), down.first);
  EXPECT_EQ(core::backend_name(c[0].runner_up.value()), down.second);
  EXPECT_EQ(c[1].motion, core::Motion::reduce);
  EXPECT_EQ(c[1].kinds, "reduce, gather");
  EXPECT_EQ(c[1].ops, 2u);
  EXPECT_EQ(core::backend_name(c[1].backend), up.first);
  EXPECT_EQ(core::backend_name(c[1].runner_up.value()), up.second);
  // Without those costs one backend is fastest for both motions: the SF runs on it alone.
  m.backend_costs.clear();
  const auto one = sim::choose_backends(both, m);
  ASSERT_EQ(one.size(), 2u);
  EXPECT_EQ(one[0].backend, one[1].backend);
}

// A tie within a motion goes to the backend fastest for all of the SF's ops (one set-up where two
// gain nothing), not to catalogue order: each rank a node of its own (shm sends every message as
// basic does), basic's reduce 20 us slower per call: shm is the SF's best, and its bcast, where
// basic and shm tie, runs on shm too.
TEST(SimAutoBackend, ATieWithinAMotionGoesToTheSfsBest) {
  core::Graph g(2);
  link(g, 0, 1, 125);
  link(g, 1, 0, 125);
  auto bt = make_trace(g, {op(OpKind::bcast), op(OpKind::reduce)}, trace::Machine{1, 1, 0});
  auto m = flat(ModelKind::loggp);
  m.collective_overhead = 5e-6;  // neighbor and alltoallv out
  m.fence_overhead = 100e-6;     // window out
  m.backend_costs[core::BackendId::basic].leaf_to_root = sim::MachineModel::CostTerms{.op = 20e-6, .run = 0};
  const auto bcast_alone = candidate_times(make_trace(g, {op(OpKind::bcast)}, trace::Machine{1, 1, 0}), m, false);
  ASSERT_EQ(bcast_alone[0].first, "basic");
  ASSERT_EQ(bcast_alone[4].first, "shm");
  EXPECT_EQ(bcast_alone[0].second, bcast_alone[4].second);  // the tie
  const auto c = sim::choose_backends(bt, m);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_STREQ(core::backend_name(c[0].backend), "shm");
  EXPECT_STREQ(core::backend_name(c[1].backend), "shm");
}
