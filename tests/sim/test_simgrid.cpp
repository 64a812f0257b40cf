// Test-only comparison with SimGrid/SMPI (skipped when smpirun is not installed): the same ring
// trace replayed by SMPI (exported as a time-independent trace) and by us, under the same postal
// alpha-beta model (lassen's off-node eager parameters everywhere). Large messages, so that the
// two models' different treatment of concurrent flows (SMPI shares a link's bandwidth, we
// serialise a sender's messages) stays a small part of the time.
#include <gtest/gtest.h>

#include <filesystem>

#include "sim/simgrid_export.hpp"
#include "sim_support.hpp"

using namespace sfr_simtest;

TEST(SimSimgrid, RingWithinFivePercentOfSmpi) {
  if (!sim::smpirun_available()) GTEST_SKIP() << "smpirun not installed (libsimgrid-dev)";
  const int P = 16;
  core::Graph g(P);
  for (int r = 0; r < P; ++r) link(g, r, (r + 1) % P, 64, 0);  // bcast: r -> r+1, 64 x 8 KiB
  auto o = op(trace::OpKind::bcast, core::Unit::float64, 1024, 3);
  const auto bt = make_trace(g, {o});
  const auto lassen = *sim::preset("lassen");
  const auto ab = lassen.ab(false, sim::Tier::network, sim::Proto::eager);
  const auto m = sim::uniform_postal(lassen, ab);
  const auto dir = (std::filesystem::temp_directory_path() / "sfr_sim_simgrid_test").string();
  const auto ex = sim::export_simgrid(bt, m, dir);
  const double theirs = sim::run_smpirun(ex, dir);
  ASSERT_GT(theirs, 0) << "smpirun failed, see " << dir << "/smpirun.log";
  const double ours = one(bt, m);
  const double diff = (ours - theirs) / theirs;
  std::printf("SimGrid SMPI %.9f s, sf-replay %.9f s, difference %+.3f%%\n", theirs, ours, diff * 100);
  EXPECT_LT(std::abs(diff), 0.05);
  std::filesystem::remove_all(dir);
}
