// sf-replay dashboard's refusals: nothing to chart, a missing folder, an output in the way.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/cli_fixture.hpp"

namespace fs = std::filesystem;
using DashboardCli = sfr_test::CliTest;

TEST_F(DashboardCli, NothingToChartIsAnError) {
  fs::create_directories(dir_ / "empty");
  sfr_test::expect_refused(run("dashboard " + (dir_ / "empty").string() + " -o " + (dir_ / "site").string()), "empty",
                           "no result documents");
  sfr_test::expect_refused(run("dashboard " + (dir_ / "missing").string() + " -o " + (dir_ / "site").string()), "missing",
                           "no such file or folder");
  sfr_test::expect_refused(run("dashboard -o " + (dir_ / "site").string()), "no folder", "no folder of results");
  // Only bad files: each is named, then the error.
  fs::create_directories(dir_ / "bad");
  write("bad/x.json", "{");
  const auto r = run("dashboard " + (dir_ / "bad").string() + " -o " + (dir_ / "site").string());
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("skipped " + (dir_ / "bad/x.json").string()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no valid result document"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "site"));
}

TEST_F(DashboardCli, OutputInTheWayIsRefused) {
  fs::create_directories(dir_ / "res");
  write("res/t.json", R"({"format": "sf-bench", "version": 1, "provenance": {"commit": "c", "date": "d", "host": "h"}, "benchmark": "b"})");
  const auto file = write("plain", "x");
  const auto r = run("dashboard " + (dir_ / "res").string() + " -o " + file.string());
  if (r.err.find("charting library") != std::string::npos) GTEST_SKIP() << "vega not installed here: " << r.err;
  sfr_test::expect_refused(r, "output is a file", "not a folder");
  fs::create_directories(dir_ / "other");
  write("other/keep.txt", "mine");
  sfr_test::expect_refused(run("dashboard " + (dir_ / "res").string() + " -o " + (dir_ / "other").string()), "foreign folder",
                           "other files");
  EXPECT_TRUE(fs::exists(dir_ / "other/keep.txt"));
  const auto ok = run("dashboard " + (dir_ / "res").string() + " -o " + (dir_ / "site").string());
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_TRUE(fs::exists(dir_ / "site/index.html"));
  EXPECT_TRUE(fs::exists(dir_ / "site/vendor/vega.min.js"));
}
