// sf-replay simulate / compare end to end: every sample trace with every preset, outputs, errors.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/json_strict.hpp"
#include "support/cli_fixture.hpp"
#include "support/sample_traces.hpp"

namespace fs = std::filesystem;

namespace {

using sfr_test::slurp;
using SimCli = sfr_test::CliTest;

using sfr_test::kSample;

}  // namespace

TEST_F(SimCli, EverySampleTraceWithEveryPreset) {
  for (const auto& t : sfr_test::sample_traces()) {
    for (const char* m : {"lassen", "generic"}) {
      const auto r = run("simulate " + t.string() + " --machine " + m + " --all-backends");
      EXPECT_EQ(r.status, 0) << t << " " << m << ": " << r.err;
      EXPECT_NE(r.out.find("backend split-md"), std::string::npos);
      const auto c = run("compare " + t.string() + " -m " + m);
      EXPECT_EQ(c.status, 0) << c.err;
      EXPECT_NE(c.out.find("whole trace"), std::string::npos);
    }
  }
}

TEST_F(SimCli, JsonTimelineAndSimgridOutputs) {
  const auto json = dir_ / "r.json", tl = dir_ / "t.json", sg = dir_ / "sg";
  const auto r = run("simulate " + kSample + " -m generic -b basic -b 3step:aware --json " + json.string() + " --timeline " + tl.string() +
                     " --export-simgrid " + sg.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = sfr::io::parse_json_strict(slurp(json), "r.json");
  ASSERT_EQ(j["backends"].size(), 2u);
  EXPECT_EQ(j["backends"][1]["backend"], "3step:aware");
  EXPECT_GT(j["backends"][0]["total"].get<double>(), 0);
  const auto t = sfr::io::parse_json_strict(slurp(tl), "t.json");
  EXPECT_GT(t["traceEvents"].size(), 4u);
  EXPECT_TRUE(fs::exists(sg / "rank0.tit"));
  EXPECT_TRUE(fs::exists(sg / "platform.xml"));
  EXPECT_NE(slurp(sg / "rank1.tit").find("1 isend"), std::string::npos);
}

TEST_F(SimCli, AnalyticRanking) {
  const auto r = run("compare --analytic --messages 256 --nodes 16 --bytes 100");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("100 B: 3step"), std::string::npos) << r.out;
}

TEST_F(SimCli, BadInputIsOneLineAndStatusTwo) {
  std::ofstream(dir_ / "bad.json") << R"({"host": {"eager": {"network": [1e-6]}}})";
  const std::string bad = (dir_ / "bad.json").string();
  struct Case {
    std::string args, expect;
  };
  const Case cases[] = {
      {"simulate " + kSample + " --machine " + bad, bad + ": /host/eager/network: expected [alpha seconds, beta seconds per byte]"},
      {"simulate " + kSample + " --machine summit", "unknown preset 'summit'"},
      {"simulate " + kSample + " --backend fast", "--backend: unknown backend 'fast'"},
      {"simulate " + kSample + " --backend split-md:aware", "split-md has no device-aware form"},
      {"simulate " + kSample + " --backend basic --all-backends", "either --backend or --all-backends"},
      {"compare", "sf-replay compare: error: no trace given (usage: sf-replay compare TRACE"},
      // A file of another kind is named as such (the reader looks at "format" first).
      {"simulate " + kSample + " --machine " + kSample, kSample + " is an sf-trace (a trace), not a machine file (sf-machine)"},
      {"simulate " + kSample + " --machine lassen --json /proc/s.json", "--json: cannot write '/proc/s.json'"},
  };
  for (const auto& c : cases) {
    const auto r = run(c.args);
    EXPECT_EQ(r.status, 2) << c.args;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << c.args << " -> " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  EXPECT_EQ(run("simulate --help").status, 0);
  EXPECT_EQ(run("compare --help").status, 0);
}

// simulate --store: the JSON document, with provenance, filed as a new file per run; a --store
// path that is a file is refused before any work.
TEST_F(SimCli, StoreFilesTheJsonWithProvenance) {
  const auto store = dir_ / "results";
  for (int k = 0; k < 2; ++k) {
    const auto r = run("simulate " + kSample + " -m generic -b basic --store " + store.string());
    ASSERT_EQ(r.status, 0) << r.err;
  }
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(store)) {
    ++n;
    const auto j = sfr::io::parse_json_strict(slurp(e.path()), e.path().string());
    EXPECT_EQ(j["format"], "sf-simulation");
    EXPECT_EQ(j["provenance"]["command"], "simulate");
    EXPECT_EQ(j["provenance"]["trace"], "handmade-4");
    EXPECT_EQ(j["provenance"]["trace_sha256"].get<std::string>().size(), 64u);
  }
  EXPECT_EQ(n, 2u);
  const auto file = write("plain", "x");
  sfr_test::expect_refused(run("simulate " + kSample + " -m generic --store " + file.string()), "store on a file", "--store");
  sfr_test::expect_refused(run("run " + kSample + " --reference --store " + store.string()), "store with --reference", "--store");
}
