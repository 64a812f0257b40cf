// `mpirun -np P sf-replay calibrate -o FILE` end to end: the machine file it writes is read by the
// simulator unchanged, its parameters agree with the raw measurements it keeps, the tiers it
// measures follow the (emulated) placement, and bad command lines are refused with one line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "sim/machine.hpp"
#include "support/process.hpp"

namespace fs = std::filesystem;
using namespace sfr;

namespace {
sfr_test::Proc mpirun(int np, const std::string& args) { return sfr_test::run_command(sfr_test::mpiexec(np) + SFR_CLI + " " + args, 300); }

fs::path temp(const std::string& name) { return fs::temp_directory_path() / ("sfr_cal_" + std::to_string(::getpid()) + "_" + name); }

std::size_t occurrences(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t pos = 0; (pos = s.find(what, pos)) != std::string::npos; ++pos) ++n;
  return n;
}
}  // namespace

TEST(MpiCalibrate, TwoRanksOneNode) {
  const fs::path out = temp("m.json");
  const auto r = mpirun(2, "calibrate -o " + out.string());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("machine written to " + out.string()), std::string::npos) << r.out;
  const auto m = sim::load_machine(out.string());
  EXPECT_EQ(m.model, sim::ModelKind::loggp);
  const auto j = nlohmann::json::parse(sfr_test::slurp(out));
  const auto& cal = j.at("calibration");
  EXPECT_EQ(cal.at("ranks"), 2);
  EXPECT_EQ(cal.at("nodes"), 1);
  const auto& pp = cal.at("measured").at("pingpong");
  ASSERT_TRUE(pp.contains("socket")) << pp.dump();
  EXPECT_FALSE(pp.contains("network"));
  // The model's one-way time of every measured size (overheads + latency + bytes) against the
  // median it was fitted to: the median relative error is small.
  std::vector<double> err;
  for (const auto& x : pp.at("socket").at("bytes_seconds")) {
    const double bytes = x.at(0), measured = x.at(1);
    const auto& ab = m.ab(false, sim::Tier::socket, m.proto_of(static_cast<std::int64_t>(bytes)));
    err.push_back(std::abs(m.o_send + ab.alpha + ab.beta * bytes + m.o_recv - measured) / measured);
  }
  ASSERT_EQ(err.size(), 15u);
  std::sort(err.begin(), err.end());
  EXPECT_LT(err[err.size() / 2], 0.10) << "median relative error of the fitted ping-pong";
  // The simulator reads it.
  const auto s = sfr_test::run_command(std::string(SFR_CLI) + " simulate " + SFR_TRACES_DIR + "/handmade-4.json --machine " + out.string());
  EXPECT_EQ(s.status, 0) << s.out;
  EXPECT_NE(s.out.find("calibrated on"), std::string::npos) << s.out;
  fs::remove(out);
}

TEST(MpiCalibrate, EmulatedNodesAndSockets) {
  // 2 ranks on 2 emulated nodes: only the off-node tier has a pair.
  const fs::path out = temp("n.json");
  auto r = mpirun(2, "calibrate -o " + out.string() + " --ranks-per-node 1");
  ASSERT_EQ(r.status, 0) << r.out;
  auto j = nlohmann::json::parse(sfr_test::slurp(out));
  EXPECT_TRUE(j["calibration"]["measured"]["pingpong"].contains("network"));
  EXPECT_FALSE(j["calibration"]["measured"]["pingpong"].contains("socket"));
  EXPECT_NE(r.out.find("socket     not measured"), std::string::npos) << r.out;
  // 4 ranks, 2 nodes of 2, one rank per socket: rank 0's partners are 1 (node) and 2 (network);
  // two senders per node measure the injection limit.
  r = mpirun(4, "calibrate -o " + out.string() + " --ranks-per-node 2 --ranks-per-socket 1");
  ASSERT_EQ(r.status, 0) << r.out;
  j = nlohmann::json::parse(sfr_test::slurp(out));
  const auto& pp = j["calibration"]["measured"]["pingpong"];
  EXPECT_EQ(pp["node"]["partner"], 1) << pp.dump();
  EXPECT_EQ(pp["network"]["partner"], 2) << pp.dump();
  EXPECT_FALSE(pp.contains("socket"));
  EXPECT_EQ(j["calibration"]["measured"]["injection"]["senders"], 2);
  EXPECT_EQ(j["topology"]["ranks_per_node"], 2);
  EXPECT_EQ(j["topology"]["ranks_per_socket"], 1);
  fs::remove(out);
}

TEST(MpiCalibrate, BadCommandLines) {
  const fs::path out = temp("bad.json");
  const struct {
    int np;
    std::string args, says;
  } cases[] = {
      {1, "-o " + out.string(), "needs at least 2 ranks"},
      {2, "-o " + out.string() + " --ranks-per-node 0", "--ranks-per-node: must be >= 1"},
      {2, "-o " + out.string() + " --ranks-per-node 5", "exceeds the 2 ranks"},
      {2, "-o " + out.string() + " --ranks-per-node 2 --ranks-per-socket 3", "exceed 2 ranks per node"},
      {2, "-o /nonexistent-dir/m.json", "/nonexistent-dir"},
      {2, "", "output"},
      {2, "-o " + out.string() + " --bogus", "bogus"},
  };
  for (const auto& c : cases) {
    const auto r = mpirun(c.np, "calibrate " + c.args);
    EXPECT_EQ(r.status, 2) << c.args << ": " << r.out;
    EXPECT_EQ(occurrences(r.out, "sf-replay calibrate: error:"), 1u) << c.args << ": " << r.out;
    EXPECT_NE(r.out.find(c.says), std::string::npos) << c.args << ": " << r.out;
    EXPECT_FALSE(fs::exists(out)) << c.args;
  }
}
