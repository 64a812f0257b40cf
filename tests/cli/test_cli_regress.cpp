// sf-replay regress end to end on hand-made timing documents: exit 0 / 3 and what it prints, and
// every kind of bad input (one line naming the file and JSON pointer, exit status 2).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/cli_fixture.hpp"

namespace fs = std::filesystem;
using Regress = sfr_test::CliTest;
using nlohmann::json;

namespace {

// An sf-timing document of one op on two backends; `scale` multiplies basic's samples only.
json timing(double scale, const std::string& sha = "abc") {
  json d = {{"format", "sf-timing"},
            {"version", 1},
            {"trace", "t"},
            {"nranks", 2},
            {"iters", 12},
            {"provenance", {{"commit", "c"}, {"date", "d"}, {"host", "h"}, {"trace_sha256", sha}}},
            {"results", json::array()}};
  for (const char* b : {"basic", "neighbor"}) {
    std::vector<double> s;
    for (int k = 0; k < 12; ++k) s.push_back((std::string(b) == "basic" ? scale : 1.0) * (10 + 0.1 * (k * 7 % 12)));
    d["results"].push_back({{"index", 0},
                            {"op", "bcast"},
                            {"sf", "A"},
                            {"backend", b},
                            {"unit", "float64"},
                            {"bs", 1},
                            {"bytes", 8},
                            {"messages", 1},
                            {"min_us", 10},
                            {"median_us", 10.5},
                            {"max_us", 11},
                            {"samples_us", s}});
  }
  return d;
}

}  // namespace

TEST_F(Regress, SameIsZeroAndAThirtyPercentSlowdownIsThree) {
  const auto base = write("base.json", timing(1).dump()), same = write("same.json", timing(1).dump()),
             slow = write("slow.json", timing(1.3).dump()), fast = write("fast.json", timing(0.7).dump());
  const auto a = run("regress " + base.string() + " " + same.string());
  EXPECT_EQ(a.status, 0) << a.out << a.err;
  EXPECT_NE(a.out.find("slower (0)"), std::string::npos) << a.out;
  const auto b = run("regress " + base.string() + " " + slow.string());
  EXPECT_EQ(b.status, 3) << b.out << b.err;
  EXPECT_NE(b.out.find("slower (1)"), std::string::npos) << b.out;
  EXPECT_NE(b.out.find("t op 0 bcast basic"), std::string::npos) << b.out;
  EXPECT_NE(b.out.find("+30.0%"), std::string::npos) << b.out;
  const auto c = run("regress " + base.string() + " " + fast.string());
  EXPECT_EQ(c.status, 0) << c.out;
  EXPECT_NE(c.out.find("faster (1)"), std::string::npos) << c.out;
  // A threshold above the change: not flagged.
  EXPECT_EQ(run("regress " + base.string() + " " + slow.string() + " --threshold 40").status, 0);
}

TEST_F(Regress, FoldersPoolTheirRunsAndSkipOtherResults) {
  fs::create_directories(dir_ / "b/sub");
  fs::create_directories(dir_ / "n");
  write("b/one.json", timing(1).dump());
  write("b/sub/two.json", timing(1.02).dump());
  write("b/sim.json", json{{"format", "sf-simulation"}}.dump());  // another result kind: skipped
  write("n/new.json", timing(1.3).dump());
  const auto r = run("regress " + (dir_ / "b").string() + " " + (dir_ / "n").string());
  EXPECT_EQ(r.status, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("2 base and 1 new"), std::string::npos) << r.out;
}

TEST_F(Regress, BadInputIsOneLineAndStatusTwo) {
  const auto good = write("good.json", timing(1).dump());
  const auto malformed = write("malformed.json", "{\"format\": \"sf-timing\",\n \"results\": [}");
  sfr_test::expect_refused(run("regress " + malformed.string() + " " + good.string()), "malformed", "malformed.json");
  const auto foreign = write("foreign.json", "{\"a\": 1}");
  sfr_test::expect_refused(run("regress " + good.string() + " " + foreign.string()), "foreign", "foreign.json: (top level)");
  json ns = timing(1);
  ns["results"][1].erase("samples_us");
  const auto nosamples = write("nosamples.json", ns.dump());
  sfr_test::expect_refused(run("regress " + good.string() + " " + nosamples.string()), "no samples", "/results/1/samples_us");
  json bad = timing(1);
  bad["results"][0]["samples_us"][3] = "x";
  const auto badsample = write("badsample.json", bad.dump());
  sfr_test::expect_refused(run("regress " + good.string() + " " + badsample.string()), "bad sample", "/results/0/samples_us/3");
  fs::create_directories(dir_ / "empty");
  sfr_test::expect_refused(run("regress " + (dir_ / "empty").string() + " " + good.string()), "empty folder", "no sf-timing document");
  sfr_test::expect_refused(run("regress " + (dir_ / "missing").string() + " " + good.string()), "missing", "no such file or folder");
  const auto other = write("other.json", timing(1, "def").dump());
  sfr_test::expect_refused(run("regress " + good.string() + " " + other.string()), "nothing matched", "nothing to compare");
  sfr_test::expect_refused(run("regress " + good.string() + " " + good.string() + " --threshold -5"), "threshold", "--threshold");
  sfr_test::expect_refused(run("regress " + good.string()), "one side", "new");
}
