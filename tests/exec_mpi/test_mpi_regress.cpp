// regress on real runs (its own executable, run serially by ctest: other tests running beside it
// would load the cores it times).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "support/process.hpp"

namespace fs = std::filesystem;
using sfr_test::slurp;

namespace {
sfr_test::Proc mpirun(int np, const std::string& args) { return sfr_test::run_command(sfr_test::mpiexec(np) + SFR_CLI + " " + args, 120); }
}  // namespace

// regress on real runs: two stored base runs and a rerun of the same build are not flagged; the
// rerun with a 30% slowdown injected into its samples is (exit status 3). The ops are dominated by
// 300 us of compute between begin and end (2 ranks, no oversubscription), so that the machine's
// noise stays well inside the 10% threshold.
TEST(MpiTiming, RegressRerunIsNotFlaggedAndAnInjectedSlowdownIs) {
  const fs::path dir = fs::temp_directory_path() / ("sfr_mpi_regress_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path tr = dir / "trace.json";
  {
    nlohmann::json t = {{"format", "sf-trace"}, {"version", 1}, {"name", "compute-bound-2"}, {"nranks", 2}};
    t["sfs"]["A"]["ranks"] = {{{"nroots", 4}, {"remote_rank", {1, 1, 0}}, {"remote_index", {0, 3, 2}}},
                              {{"nroots", 4}, {"remote_rank", {0, 0}}, {"remote_index", {1, 2}}}};
    t["ops"] = nlohmann::json::array();
    for (const char* op : {"bcast", "reduce"})
      t["ops"].push_back(
          {{"op", op}, {"sf", "A"}, {"unit", "float64"}, {"mpi_op", op == std::string("bcast") ? "replace" : "sum"}, {"overlap_us", 300}});
    std::ofstream(tr) << t.dump();
  }
  for (const char* side : {"base", "base", "new"}) {
    const auto r = mpirun(2, "run " + tr.string() + " --backend basic --warmup 3 --iters 30 --store " + (dir / side).string());
    ASSERT_EQ(r.status, 0) << r.out;
  }
  const auto rerun = sfr_test::run_command(std::string(SFR_CLI) + " regress " + (dir / "base").string() + " " + (dir / "new").string());
  EXPECT_EQ(rerun.status, 0) << rerun.out;
  EXPECT_NE(rerun.out.find("2 base and 1 new"), std::string::npos) << rerun.out;
  // The same rerun, 30% slower.
  fs::path new_doc;
  for (const auto& e : fs::directory_iterator(dir / "new")) new_doc = e.path();
  auto j = nlohmann::json::parse(slurp(new_doc));
  for (auto& res : j["results"])
    for (auto& s : res["samples_us"]) s = s.get<double>() * 1.3;
  fs::create_directories(dir / "slow");
  std::ofstream(dir / "slow" / "slow.json") << j.dump();
  const auto slow = sfr_test::run_command(std::string(SFR_CLI) + " regress " + (dir / "base").string() + " " + (dir / "slow").string());
  // (Both ops are 30% slower; a base run that caught heavy load widens that op's noise band, so
  // only "something got slower" is required.)
  EXPECT_EQ(slow.status, 3) << slow.out;
  EXPECT_EQ(slow.out.find("slower (0)"), std::string::npos) << slow.out;
  fs::remove_all(dir);
}
