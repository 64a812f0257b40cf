// sf-replay scale against PETSc itself: a DMDA program captured at 4 ranks and scaled to P ranks
// must hold exactly the SF graphs a capture of the same program run directly at P ranks holds
// (PETSc's own decomposition, ghost update and MatMult scatter), with PETSc's process grid; where
// PETSc refuses the split, scale refuses it too. And a scaled trace answers `compare` at 4,096
// ranks on lassen, its messages counted against the closed formula of a 64 x 64 process grid.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "support/process.hpp"
#include "trace/reader.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using sfr_test::run_command;

namespace {

struct ScaledExample {
  const char* name;
  const char* exe;
  const char* args;
  std::vector<int> ranks;      // scaled to and captured at, from 4
  std::vector<int> petsc_refuses;  // rank counts PETSc cannot split this grid over (too few points for the ranks or the width)
};

std::ostream& operator<<(std::ostream& o, const ScaledExample& e) { return o << e.name; }

const ScaledExample kScaledExamples[] = {
    // 2-D star (the Bratu problem): its ghost update and its Jacobian's MatMult.
    {"snes_ex5_2d_star", SFR_EX_SNES, "-da_grid_x 17 -da_grid_y 13", {9, 16}, {}},
    // 2-D box (p-Laplacian).
    {"snes_ex15_2d_box", SFR_EX_SNES15, "-da_grid_x 13 -da_grid_y 11", {9, 16}, {}},
    // 2-D box, periodic in x and y (a ghost update only).
    {"dm_ex2_2d_box_periodic", SFR_EX_DM2, "", {9, 16}, {}},
    // 3-D star (3-D Bratu).
    {"snes_ex14_3d_star", SFR_EX_SNES14, "-da_grid_x 7 -da_grid_y 6 -da_grid_z 5", {9, 16}, {}},
    // 3-D box, 3 dof per point (elasticity, 11 x 2 x 2; one Newton step, the graphs are the same):
    // PETSc splits 9 ranks as 3 x 1 x 3, too fine.
    {"snes_ex16_3d_box_dof3", SFR_EX_SNES16, "-snes_max_it 1 -ksp_max_it 5", {16}, {9}},
    // What the examples leave out (tests/capture/dmda_driver.c: a ghost update and a MatMult):
    // width 2, periodic with a matrix, a star with 2 dof, a 3-D periodic box of width 2, and a
    // grid so small that a width-2 periodic stencil wraps onto the same columns twice.
    {"driver_2d_star_w2_periodic_dof2", SFR_DMDA_DRIVER, "-dim 2 -width 2 -periodic -dof 2 -da_grid_x 13 -da_grid_y 11", {9, 16}, {}},
    {"driver_3d_box_w2_periodic", SFR_DMDA_DRIVER, "-dim 3 -box -width 2 -periodic -da_grid_x 8 -da_grid_y 7 -da_grid_z 6", {9, 16}, {}},
    {"driver_2d_box_w2_periodic_wraps", SFR_DMDA_DRIVER, "-dim 2 -box -width 2 -periodic -da_grid_x 4 -da_grid_y 4", {}, {9}},
};

class ScalePetsc : public ::testing::TestWithParam<ScaledExample> {
protected:
  fs::path dir;
  void SetUp() override {
    dir = fs::temp_directory_path() / ("sfr_scale_petsc_" + std::to_string(::getpid()) + "_" + GetParam().name);
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir);
  }
  std::string path(const std::string& f) const { return (dir / f).string(); }
  sfr_test::Proc capture(int ranks, const std::string& out) const {
    const auto& e = GetParam();
    return run_command(SFR_CLI " capture -o " + path(out) + " -- " + sfr_test::mpiexec(ranks) + e.exe + " " + e.args);
  }
};

const char* const kNoRecordText = "no record of how PETSc built it";

json dmda_of(const sfr::trace::BuiltTrace& t, const std::string& sf) {
  for (const auto& s : json::parse(t.trace().meta_json)["sfs"])
    if (s["name"] == sf) return s["built_by"]["dmda"];
  return nullptr;
}

}  // namespace

TEST_P(ScalePetsc, ScaledGraphsEqualADirectCaptureAtMoreRanks) {
  const auto& ex = GetParam();
  const auto c4 = capture(4, "p4.json");
  ASSERT_EQ(c4.status, 0) << c4.out;
  const auto t4 = sfr::trace::read_trace_file(path("p4.json"));
  for (int P : ex.ranks) {
    SCOPED_TRACE(std::to_string(P) + " ranks");
    const std::string scaled = "scaled-" + std::to_string(P) + ".json", direct = "p" + std::to_string(P) + ".json";
    const auto s = run_command(SFR_CLI " scale " + path("p4.json") + " --ranks " + std::to_string(P) + " -o " + path(scaled));
    ASSERT_EQ(s.status, 0) << s.out;
    const auto c = capture(P, direct);
    ASSERT_EQ(c.status, 0) << c.out;
    const auto ts = sfr::trace::read_trace_file(path(scaled)), td = sfr::trace::read_trace_file(path(direct));
    ASSERT_EQ(ts.trace().nranks, P);
    std::set<std::string> scaled_names, direct_names;
    for (const auto& d : ts.trace().sfs) scaled_names.insert(d.name);
    for (const auto& d : td.trace().sfs) direct_names.insert(d.name);
    EXPECT_EQ(scaled_names, direct_names);
    for (const auto& name : scaled_names) {
      if (!direct_names.count(name)) continue;
      const auto &a = ts.graph(name), &b = td.graph(name);
      for (int r = 0; r < P; ++r)
        EXPECT_TRUE(a[r] == b[r]) << name << " rank " << r << ": " << a[r].nleaves() << " leaves scaled, " << b[r].nleaves()
                                  << " captured";
      EXPECT_EQ(dmda_of(ts, name), dmda_of(td, name)) << name << ": the process grid is not the one PETSc chose";
    }
    EXPECT_EQ(ts.trace().ops, t4.trace().ops);  // the op stream as captured at 4 ranks
  }
  for (int P : ex.petsc_refuses) {
    const auto c = capture(P, "refused.json");
    EXPECT_NE(c.status, 0) << "PETSc split the grid over " << P << " ranks after all";
    const auto s = run_command(SFR_CLI " scale " + path("p4.json") + " --ranks " + std::to_string(P) + " -o " + path("refused-scaled.json"));
    EXPECT_EQ(s.status, 2) << s.out;
    EXPECT_NE(s.out.find("--ranks: PETSc splits " + std::to_string(P) + " ranks as "), std::string::npos) << s.out;
    EXPECT_FALSE(fs::exists(path("refused-scaled.json")));
  }
}

INSTANTIATE_TEST_SUITE_P(DmdaExamples, ScalePetsc, ::testing::ValuesIn(kScaledExamples),
                         [](const ::testing::TestParamInfo<ScaledExample>& i) { return std::string(i.param.name); });

// SNES ex5 with geometric multigrid: PCMG's coarse DMDA comes from DMCoarsen, which gives it the
// fine DMDA's process grid and derived ownership ranges, and its interpolation is a matrix not
// made by DMCreateMatrix: scale refuses those SFs by name; told to leave them out, it scales the
// fine level's, which equal a direct capture's at 9 ranks.
TEST(ScalePetscMultigrid, CoarseLevelsAreRefusedByNameAndTheFineLevelScales) {
  const fs::path dir = fs::temp_directory_path() / ("sfr_scale_mg_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string app = std::string(SFR_EX_SNES) + " -da_grid_x 17 -da_grid_y 17 -pc_type mg -pc_mg_levels 2 -snes_max_it 1";
  const std::string t4 = (dir / "p4.json").string(), t9 = (dir / "p9.json").string(), s9 = (dir / "s9.json").string();
  auto r = run_command(SFR_CLI " capture -o " + t4 + " -- " + sfr_test::mpiexec(4) + app);
  ASSERT_EQ(r.status, 0) << r.out;
  r = run_command(SFR_CLI " scale " + t4 + " --ranks 9 -o " + s9);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("a DMDA made by DMRefine or DMCoarsen (refine level 0, coarsen level 1)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(kNoRecordText), std::string::npos) << r.out;  // the interpolation's MatMult
  EXPECT_FALSE(fs::exists(s9));
  r = run_command(SFR_CLI " scale " + t4 + " --ranks 9 --leave-out-unscalable -o " + s9);
  ASSERT_EQ(r.status, 0) << r.out;
  r = run_command(SFR_CLI " capture -o " + t9 + " -- " + sfr_test::mpiexec(9) + app);
  ASSERT_EQ(r.status, 0) << r.out;
  const auto ts = sfr::trace::read_trace_file(s9), td = sfr::trace::read_trace_file(t9);
  const json meta = json::parse(ts.trace().meta_json);
  ASSERT_FALSE(meta["scaled"]["regenerated"].empty());
  for (const auto& g : meta["scaled"]["regenerated"]) {
    const std::string name = g["sf"];
    ASSERT_TRUE(td.trace().find_sf(name)) << name;
    for (int rank = 0; rank < 9; ++rank) EXPECT_TRUE(ts.graph(name)[rank] == td.graph(name)[rank]) << name << " rank " << rank;
  }
  if (!::testing::Test::HasFailure()) fs::remove_all(dir);
}

// SNES ex5 on 128 x 128 points captured at 4 ranks, scaled to 4,096: PETSc splits it 64 x 64, each
// rank owning 2 x 2 points. With a star stencil of width 1 every rank sends one message to each
// grid neighbour: 2 x (63 x 64 + 64 x 63) = 16,128 messages per call of either SF, each of 2 points
// (16 bytes), whatever sf-replay's generator does. compare answers on lassen with that placement.
TEST(ScalePetscAt4096, CompareAnswersOnLassen) {
  const fs::path dir = fs::temp_directory_path() / ("sfr_scale_4096_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string t4 = (dir / "p4.json").string(), t4096 = (dir / "p4096.json").string(), res = (dir / "compare.json").string();
  auto r = run_command(SFR_CLI " capture -o " + t4 + " -- " + sfr_test::mpiexec(4) + SFR_EX_SNES " -da_grid_x 128 -da_grid_y 128");
  ASSERT_EQ(r.status, 0) << r.out;
  r = run_command(SFR_CLI " scale " + t4 + " --ranks 4096 -o " + t4096);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("2x2 -> 64x64"), std::string::npos) << r.out;
  r = run_command(SFR_CLI " compare " + t4096 + " --machine lassen --backend basic,neighbor --json " + res);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("placement: 4096 ranks on 1024 node(s)"), std::string::npos) << r.out;
  const json doc = json::parse(sfr_test::slurp(res));
  ASSERT_EQ(doc["backends"].size(), 2u);
  for (const auto& b : doc["backends"])
    for (const auto& op : b["ops"]) {
      EXPECT_EQ(op["messages_per_call"], 16128) << op.dump();
      EXPECT_EQ(op["bytes_per_call"], 16128 * 16) << op.dump();
      EXPECT_GT(op["per_call"].get<double>(), 0) << op.dump();
    }
  // The report says what the trace is: a capture at 4 ranks, scaled.
  r = run_command(SFR_CLI " report " + t4096 + " -o " + (dir / "r.md").string());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(sfr_test::slurp(dir / "r.md").find("- scaled by `sf-replay scale` from the capture at 4 ranks: 2 DMDA SF(s) regenerated at 4096, 0 left out"),
            std::string::npos);
  if (!::testing::Test::HasFailure()) fs::remove_all(dir);
}
