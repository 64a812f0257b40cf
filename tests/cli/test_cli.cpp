// The sf-replay binary end to end: exit statuses, one-line errors, atomic output files.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/backends.hpp"
#include "support/cli_fixture.hpp"
#include "support/malformed_cases.hpp"
#include "support/sample_traces.hpp"

namespace fs = std::filesystem;

namespace {

using sfr_test::slurp;
using Cli = sfr_test::CliTest;

using sfr_test::kSample;

}  // namespace

TEST_F(Cli, ValidateAcceptsEverySampleTrace) {
  for (const auto& t : sfr_test::sample_traces()) {
    const auto r = run("validate " + t.string());
    EXPECT_EQ(r.status, 0) << t << r.err;
    EXPECT_NE(r.out.find("valid sf-trace v1"), std::string::npos);
  }
}

TEST_F(Cli, MalformedTracesExitTwoWithOnePointedLine) {
  for (const auto& c : sfr_test::malformed_cases()) {
    const fs::path p = write(c.name + ".json", c.text);
    const auto r = run("validate " + p.string());
    EXPECT_EQ(r.status, 2) << c.name << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << c.name;
    ASSERT_FALSE(r.err.empty()) << c.name;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find(p.string()), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.where), std::string::npos) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.name << ": " << r.err;
  }
}

// A run that fails while writing its dump (the file-size limit stops the write half way; SIGXFSZ
// ignored, so write() fails instead of killing the process) leaves neither the dump nor its
// temporary; the same run without the limit writes it.
TEST_F(Cli, FailingRunLeavesNoDumpFile) {
  const fs::path dump = dir_ / "dump.json";
  const std::string cmd = std::string(SFR_CLI) + " run --reference " + SFR_TRACES_DIR + "/handmade-4.json --dump " + dump.string();
  const auto r = sh("bash -c 'trap \"\" XFSZ; ulimit -f 4; " + cmd + "'");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("error while writing output file"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dump));
  for (const auto& e : fs::directory_iterator(dir_)) EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
  const auto ok = sh(cmd);
  ASSERT_EQ(ok.status, 0) << ok.err;
  EXPECT_GT(fs::file_size(dump), 4096u);  // larger than the limit above: the limit did cut the write
}

TEST_F(Cli, RunReferenceWritesCompleteDump) {
  const fs::path dump = dir_ / "dump.json";
  const auto r = run("run " + kSample + " --reference --dump " + dump.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(slurp(dump));
  EXPECT_EQ(j["format"], "sf-dump");
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(j["trace"], "handmade-4");
  ASSERT_EQ(j["ops"].size(), 25u);
  EXPECT_EQ(j["ops"][0]["ranks"][0]["leafdata"], nlohmann::json::parse("[32,14,3,40,35]"));
  EXPECT_EQ(j["ops"][13]["op"], "degree");
  EXPECT_EQ(j["ops"][13]["ranks"][0]["degree"], nlohmann::json::parse("[1,3,0]"));
}

TEST_F(Cli, UnwritableDumpIsCleanError) {
  const auto r = run("run " + kSample + " --reference --dump /nonexistent-dir/dump.json");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("/nonexistent-dir/dump.json"), std::string::npos) << r.err;
}

TEST_F(Cli, InspectTableAndJson) {
  auto r = run("inspect " + kSample);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("messages (rank pairs)"), std::string::npos);
  r = run("inspect " + kSample + " --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["trace"], "handmade-4");
}

TEST_F(Cli, ReportWritesMarkdown) {
  const fs::path md = dir_ / "r.md";
  const auto r = run("report " + kSample + " -o " + md.string() + " --reference");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string text = slurp(md);
  EXPECT_NE(text.find("# sf-replay report: handmade-4"), std::string::npos);
  EXPECT_NE(text.find("| A | explicit |"), std::string::npos);
}

TEST_F(Cli, CheckAcceptsReferenceDumpAndRejectsCorruptOne) {
  const fs::path dump = dir_ / "dump.json";
  ASSERT_EQ(run("run " + kSample + " --reference --dump " + dump.string()).status, 0);
  auto r = run("check " + kSample + " " + dump.string());
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("25 ops checked, conforms"), std::string::npos) << r.out;
  std::string text = slurp(dump);
  text.replace(text.find("[32,14,3,40,35]"), 15, "[32,14,3,40,99]");
  const fs::path bad = write("bad.json", text);
  r = run("check " + kSample + " " + bad.string());
  // Not conforming is the answer, not a failure: exit 3 (1 is an internal failure, 2 bad input).
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.out.find("/ops/0/ranks/0/leafdata"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("does NOT conform"), std::string::npos) << r.out;
  EXPECT_EQ(run("check " + kSample + " /nonexistent.json").status, 2);
  EXPECT_EQ(run("check " + kSample + " " + write("x.json", "{").string()).status, 2);
}

TEST_F(Cli, CheckRefusesADumpOfAnotherTrace) {
  const fs::path dump = dir_ / "dump.json";
  const std::string other = std::string(SFR_TRACES_DIR) + "/random-p6-s1.json";
  ASSERT_EQ(run("run " + other + " --reference --dump " + dump.string()).status, 0);
  auto r = run("check " + kSample + " " + dump.string());
  sfr_test::expect_refused(r, "dump of another trace", "/trace: a dump of trace \"random-p6-s1\", not of \"handmade-4\"");
  EXPECT_EQ(r.out, "");
  // A dump whose "trace" is not a name, and a file of another kind, are bad input too.
  std::string text = slurp(dump);
  text.replace(text.find("\"random-p6-s1\""), 14, "7");
  sfr_test::expect_refused(run("check " + other + " " + write("n.json", text).string()), "trace not a string", "/trace: expected");
  sfr_test::expect_refused(run("check " + kSample + " " + kSample), "a trace as the dump",
                           "handmade-4.json is an sf-trace (a trace), not a conformance dump (sf-dump)");
}

TEST_F(Cli, ReportRejectsBadTimingFile) {
  const fs::path md = dir_ / "r.md";
  const auto r = run("report " + kSample + " -o " + md.string() + " --timing " + write("t.json", "{\"format\": \"x\"}").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("/format: expected \"sf-timing\" (a timing result), got \"x\""), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(md));
}

// simulate and compare say where they put the ranks and why; a what-if that puts a capture made
// on 4 hosts on one node says so; --ranks-per-node outside the trace's ranks is refused.
TEST_F(Cli, SimulationsStateTheirPlacement) {
  const std::string ranks = R"([{"nroots": 1, "remote_rank": [1], "remote_index": [0]}, {"nroots": 1, "remote_rank": [2], "remote_index": [0]},
    {"nroots": 1, "remote_rank": [3], "remote_index": [0]}, {"nroots": 1, "remote_rank": [0], "remote_index": [0]}])";
  const fs::path bare = write("bare.json", R"({"format": "sf-trace", "version": 1, "name": "ring", "nranks": 4, "sfs": {"A": {"ranks": )" +
                                               ranks + R"(}}, "ops": [{"op": "bcast", "sf": "A", "unit": "float64"}]})");
  const fs::path cap = write("cap.json", R"({"format": "sf-trace", "version": 1, "name": "ring", "nranks": 4,
    "machine": {"ranks_per_node": 1, "ranks_per_socket": 1, "gpus_per_node": 0},
    "meta": {"generator": "capture", "hosts": ["n0", "n1", "n2", "n3"]}, "sfs": {"A": {"ranks": )" +
                                              ranks + R"(}}, "ops": [{"op": "bcast", "sf": "A", "unit": "float64"}]})");
  auto r = run("simulate " + bare.string() + " --machine lassen");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("placement: 4 ranks on 1 node(s) of 4 ranks, sockets of 2, from machine lassen's nodes (the trace records no "
                       "placement)"),
            std::string::npos)
      << r.out;
  r = run("compare " + cap.string() + " --machine lassen");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("placement: 4 ranks on 4 node(s) of 1 ranks, sockets of 1, from the trace's placement\n"), std::string::npos) << r.out;
  const fs::path json = dir_ / "sim.json";
  r = run("compare " + cap.string() + " --machine lassen --ranks-per-node 4 --json " + json.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("from --ranks-per-node; the capture ran on 4 hosts: this what-if puts its ranks on 1 node(s), all on one"),
            std::string::npos)
      << r.out;
  const auto doc = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(doc["placement"]["nodes"], 1);
  EXPECT_EQ(doc["placement"]["ranks_per_node"], 4);
  EXPECT_EQ(doc["placement"]["ranks_per_socket"], 1);  // the trace's sockets of 1, within the node of 4
  for (const std::string bad : {"--ranks-per-node 5", "--ranks-per-node 0", "--ranks-per-node 4 --ranks-per-socket 3"}) {
    r = run("simulate " + cap.string() + " " + bad);
    EXPECT_EQ(r.status, 2) << bad;
    EXPECT_NE(r.err.find("error: --ranks-per-"), std::string::npos) << r.err;
  }
}

// report --ranks-per-node counts the star forests' messages on those nodes (handmade-4's own
// machine has 2 per node; at 4 per node every message is on one node), and refuses a placement
// outside the trace's ranks.
TEST_F(Cli, ReportTakesAPlacement) {
  const fs::path md = dir_ / "r.md";
  ASSERT_EQ(run("report " + kSample + " -o " + md.string() + " --ranks-per-node 4 --ranks-per-socket 2").status, 0);
  const std::string text = slurp(md);
  EXPECT_NE(text.find("- machine: 4 ranks/node, 2 ranks/socket"), std::string::npos) << text;
  // A's 5 messages (leaf rank <- root rank): 0<-1, 1<-0 within socket {0,1}; 0<-2, 2<-0, 2<-1 across
  // the sockets of the one node (on the trace's own 2 per node: 0, 2 and 3).
  EXPECT_NE(text.find("| A | explicit | 7 | 8 | 0 / 1.14 / 3 | 5 | 2 | 3 | 0 |"), std::string::npos) << text;
  const auto r = run("report " + kSample + " -o " + md.string() + " --ranks-per-node 9");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--ranks-per-node: expected 1..4"), std::string::npos) << r.err;
  EXPECT_EQ(run("report " + kSample + " -o " + md.string() + " --ranks-per-socket 2").status, 2);
}

// Op 14 of the sample runs 10 times an iteration: its measured iteration (10 calls) is compared
// per call with the simulator's per-call prediction, and the measured table names both.
TEST_F(Cli, ReportComparesOneCallOfARepeatedOp) {
  const fs::path sim = dir_ / "sim.json", md = dir_ / "r.md";
  ASSERT_EQ(run("simulate " + kSample + " --machine generic --backend basic --json " + sim.string()).status, 0);
  const auto op = nlohmann::json::parse(slurp(sim))["backends"][0]["ops"][14];
  ASSERT_EQ(op["repeat"], 10) << op.dump();
  const double call_us = op["per_call"].get<double>() * 1e6;
  char median[32], per_call[32];
  std::snprintf(median, sizeof median, "%.6f", 10 * 3 * call_us);
  std::snprintf(per_call, sizeof per_call, "| 10 | %.2f | ", 3 * call_us);
  const fs::path timing =
      write("t.json", std::string(R"({"format": "sf-timing", "version": 1, "trace": "handmade-4", "nranks": 4, "warmup": 0,
    "iters": 3, "results": [{"index": 14, "op": "bcast", "sf": "L", "backend": "basic", "unit": "int64", "bs": 1, "bytes": 8,
    "messages": 2, "repeat": 10, "min_us": 1.0, "median_us": )") +
                          median + R"(, "max_us": 1000.0}]})");
  const auto r = run("report " + kSample + " -o " + md.string() + " --timing " + timing.string() + " --simulation " + sim.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string text = slurp(md);
  EXPECT_NE(text.find(" | 3.0 |\n"), std::string::npos) << text;  // measured / predicted, one call each
  EXPECT_NE(text.find(per_call), std::string::npos) << text;
  EXPECT_NE(text.find("| repeat | per call us | iteration min us |"), std::string::npos) << text;
}

// Measured (a hand-written sf-timing document with known medians) next to predicted (the
// simulator's JSON): the ratio column must be measured / predicted of the same op and backend.
TEST_F(Cli, ReportPutsMeasuredNextToPredicted) {
  const fs::path sim = dir_ / "sim.json", md = dir_ / "r.md";
  ASSERT_EQ(run("simulate " + kSample + " --machine generic --backend basic --backend neighbor --json " + sim.string()).status, 0);
  const auto sj = nlohmann::json::parse(slurp(sim));
  const double pred_us = sj["backends"][0]["ops"][0]["total"].get<double>() * 1e6;
  ASSERT_GT(pred_us, 0);
  char median[32];
  std::snprintf(median, sizeof median, "%.6f", 4 * pred_us);
  const fs::path timing =
      write("t.json", std::string(R"({"format": "sf-timing", "version": 1, "trace": "handmade-4", "nranks": 4, "warmup": 0,
    "iters": 3, "results": [{"index": 0, "op": "bcast", "sf": "A", "backend": "basic", "unit": "int32", "bs": 1, "bytes": 8,
    "messages": 2, "min_us": 1.0, "median_us": )") +
                          median + R"(, "max_us": 1000.0}]})");
  const auto r = run("report " + kSample + " -o " + md.string() + " --timing " + timing.string() + " --simulation " + sim.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string text = slurp(md);
  EXPECT_NE(text.find("## Predicted times (simulator)"), std::string::npos);
  EXPECT_NE(text.find("| basic | "), std::string::npos) << text;
  EXPECT_NE(text.find("## Measured vs predicted"), std::string::npos) << text;
  EXPECT_NE(text.find(" | 4.0 |\n"), std::string::npos) << text;
  // With its samples the document is compared on the model's statistic: the 20th percentile of
  // the 11 iterations (the third lowest, twice the prediction), not their median (4 times).
  std::string samples = "[";
  for (int k = 0; k < 11; ++k) {
    char v[40];
    std::snprintf(v, sizeof v, "%s%.6f", k ? ", " : "", (k < 2 ? 1.0 : k == 2 ? 2.0 : 4.0) * pred_us);
    samples += v;
  }
  const fs::path timing_samples =
      write("ts.json", std::string(R"({"format": "sf-timing", "version": 1, "trace": "handmade-4", "nranks": 4, "warmup": 0,
    "iters": 11, "results": [{"index": 0, "op": "bcast", "sf": "A", "backend": "basic", "unit": "int32", "bs": 1, "bytes": 8,
    "messages": 2, "min_us": 1.0, "median_us": )") +
                           median + R"(, "max_us": 1000.0, "samples_us": )" + samples + "]}]}");
  ASSERT_EQ(run("report " + kSample + " -o " + md.string() + " --timing " + timing_samples.string() + " --simulation " + sim.string()).status, 0);
  const std::string with_samples = slurp(md);
  EXPECT_NE(with_samples.find(" | 2.0 |\n"), std::string::npos) << with_samples;
  EXPECT_NE(with_samples.find("the 20th percentile of the iterations"), std::string::npos) << with_samples;
  // `generic` is not a calibration of the machine measured: said, and no claim of model error.
  EXPECT_NE(text.find("is not a calibration of the machine measured"), std::string::npos) << text;
  EXPECT_EQ(text.find("the ratio is the model's error"), std::string::npos) << text;
  // A calibrated machine: the ratio is the model's error. Another machine: a what-if section.
  const fs::path mach = write("cal.json", R"({"format": "sf-machine", "name": "calibrated on h", "base": "generic"})");
  const fs::path sim2 = dir_ / "sim2.json", wi = dir_ / "wi.json";
  ASSERT_EQ(run("simulate " + kSample + " --machine " + mach.string() + " --backend basic --json " + sim2.string()).status, 0);
  ASSERT_EQ(run("simulate " + kSample + " --machine lassen --backend basic --json " + wi.string()).status, 0);
  const auto r2 = run("report " + kSample + " -o " + md.string() + " --timing " + timing.string() + " --simulation " + sim2.string() +
                      " --what-if " + wi.string());
  ASSERT_EQ(r2.status, 0) << r2.err;
  const std::string text2 = slurp(md);
  EXPECT_NE(text2.find("the ratio is the model's error"), std::string::npos) << text2;
  EXPECT_NE(text2.find("## What-if: predicted on machine `lassen`"), std::string::npos) << text2;
  EXPECT_NE(text2.find("not checked against the measurements"), std::string::npos) << text2;
}

TEST_F(Cli, ReportRejectsBadSimulationFiles) {
  const fs::path md = dir_ / "r.md", sim = dir_ / "sim.json";
  ASSERT_EQ(run("simulate " + kSample + " --machine generic --backend basic --json " + sim.string()).status, 0);
  const std::string good = slurp(sim);
  struct Case {
    std::string text, message;
  };
  std::string wrong_type = good;
  auto other = nlohmann::json::parse(good);
  other["trace"] = "other";
  const std::string wrong_trace = other.dump();
  wrong_type.replace(wrong_type.find("\"messages\""), 10, "\"messages\": \"many\", \"x\"");
  for (const Case& c : {Case{"[1]", "not a simulation result"}, Case{"{\"machine\": \"m\", \"backends\": 3}", "/trace: missing"},
                        Case{wrong_trace, "/trace: results are for trace 'other', not 'handmade-4'"},
                        Case{wrong_type, "/backends/0/messages: expected an integer"}, Case{"{", "sim.json"}}) {
    const auto r = run("report " + kSample + " -o " + md.string() + " --simulation " + write("sim.json", c.text).string());
    EXPECT_EQ(r.status, 2) << c.text;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(md));
  }
}

TEST_F(Cli, ReportRejectsTimingOfAnotherTrace) {
  const fs::path md = dir_ / "r.md";
  const auto r = run("report " + kSample + " -o " + md.string() + " --timing " +
                     write("t.json", R"({"format": "sf-timing", "trace": "x", "nranks": 4, "iters": 1, "results": []})").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("/trace: results are for trace 'x', not 'handmade-4'"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(md));
}

TEST_F(Cli, UsageErrorsExitTwo) {
  EXPECT_EQ(run("").status, 2);
  EXPECT_EQ(run("frobnicate").status, 2);
  EXPECT_EQ(run("validate").status, 2);
  EXPECT_EQ(run("inspect " + kSample + " --bogus").status, 2);
  EXPECT_EQ(run("run " + kSample + " --reference --backend basic").status, 2);
  EXPECT_EQ(run("validate /nonexistent/trace.json").status, 2);
}

TEST_F(Cli, HelpForEverySubcommand) {
  for (const char* c : {"validate", "inspect", "run", "report", "check"}) {
    const auto r = run(std::string(c) + " --help");
    EXPECT_EQ(r.status, 0) << c;
    EXPECT_NE(r.out.find("usage: sf-replay"), std::string::npos) << c;
  }
  EXPECT_EQ(run("--help").status, 0);
}

namespace {

// Files of the wrong kind are named as such: every reader looks at "format" first.
TEST_F(Cli, FilesOfAnotherKindAreNamedAsSuch) {
  const auto machine = write("m.json", R"({"format": "sf-machine", "name": "x", "base": "generic"})").string();
  sfr_test::expect_refused(run("validate " + machine), "a machine file as a trace",
                           machine + " is an sf-machine (a machine file), not a trace (sf-trace)");
  const auto suite = write("s.json", R"({"format": "sf-suite", "version": 1, "seed": 3, "traces": []})").string();
  sfr_test::expect_refused(run("inspect " + suite), "a manifest as a trace",
                           suite + " is an sf-suite (a suite manifest), not a trace (sf-trace)");
  const auto timing = write("t.json", R"({"format": "sf-timing", "version": 1})").string();
  sfr_test::expect_refused(run("check " + kSample + " " + timing), "a timing result as a dump",
                           timing + " is an sf-timing (a timing result), not a conformance dump (sf-dump)");
  const fs::path md = dir_ / "r.md";
  sfr_test::expect_refused(run("report " + kSample + " -o " + md.string() + " --timing " + kSample), "a trace as a timing result",
                           "handmade-4.json is an sf-trace (a trace), not a timing result (sf-timing)");
  sfr_test::expect_refused(run("report " + kSample + " -o " + md.string() + " --simulation " + timing), "a timing result as a simulation",
                           timing + " is an sf-timing (a timing result), not a simulation result (sf-simulation)");
  EXPECT_FALSE(fs::exists(md));
}

// Options in the user's terms: a missing argument is named as such (not as the option behind
// it), an empty backend name is an error, --version says the version and the commit.
TEST_F(Cli, MissingArgumentsEmptyNamesAndVersion) {
  sfr_test::expect_refused(run("validate"), "validate", "sf-replay validate: error: no trace given (usage: sf-replay validate TRACE");
  sfr_test::expect_refused(run("inspect"), "inspect", "sf-replay inspect: error: no trace given (usage: sf-replay inspect");
  sfr_test::expect_refused(run("check " + kSample), "check", "sf-replay check: error: no dump given (usage: sf-replay check TRACE DUMP)");
  sfr_test::expect_refused(run("run"), "run", "sf-replay run: error: no trace given (usage: sf-replay run TRACE");
  sfr_test::expect_refused(run("dashboard -o " + (dir_ / "site").string()), "dashboard",
                           "sf-replay dashboard: error: no folder of results given (usage: sf-replay dashboard DIR... -o SITE)");
  for (const char* list : {"basic,,neighbor", "basic,", ",basic"})
    sfr_test::expect_refused(run("run " + kSample + " --backend " + list), list,
                             std::string("--backend: an empty name in the list '") + list + "'");
  const auto v = run("--version");
  EXPECT_EQ(v.status, 0) << v.err;
  EXPECT_EQ(v.out.rfind("sf-replay " SFR_VERSION " (commit ", 0), 0u) << v.out;
  EXPECT_EQ(std::count(v.out.begin(), v.out.end(), '\n'), 1) << v.out;
  EXPECT_EQ(v.out.find("commit unknown"), std::string::npos) << v.out;
  EXPECT_EQ(run("--version extra").status, 2);
}

// Output paths are checked before any work, by creating a file there: /proc passes a permission
// check (for root) and still refuses every new file.
TEST_F(Cli, UnwritableOutputsAreRefusedBeforeTheWork) {
  sfr_test::expect_refused(run("run " + kSample + " --reference --dump /proc/d.json"), "--dump", "--dump: cannot write '/proc/d.json'");
  sfr_test::expect_refused(run("run " + kSample + " --backend basic --timing /proc/t.json"), "--timing",
                           "--timing: cannot write '/proc/t.json'");
  sfr_test::expect_refused(run("run " + kSample + " --backend basic --store /proc/results"), "--store", "--store: cannot");
  sfr_test::expect_refused(run("inspect " + kSample + " --json -o /proc/i.json"), "-o", "cannot write '/proc/i.json'");
  sfr_test::expect_refused(run("report " + kSample + " -o /proc/r.md"), "report -o", "cannot write '/proc/r.md'");
}

// calibrate would write a machine file that simulate --machine refuses (sockets split a node
// evenly): refused before any measuring.
TEST_F(Cli, CalibrateRefusesSocketsThatDoNotDivideNodes) {
  const auto out = dir_ / "m.json";
  sfr_test::expect_refused(run("calibrate -o " + out.string() + " --ranks-per-node 4 --ranks-per-socket 3"), "calibrate",
                           "--ranks-per-socket: 3 must divide --ranks-per-node 4");
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace

// report --model-check: validate-model's document (sf-model-check) adds measured vs predicted per
// op and backend of this trace, with the relative error; another kind of file there, or a
// document of other traces only, is one line, exit 2.
TEST_F(Cli, ReportReadsAValidateModelDocument) {
  const auto mc = write("mc.json", R"({"format": "sf-model-check", "version": 1, "machine": "calibrated on box",
    "pairs": [
      {"trace": "handmade-4", "op": 0, "label": "bcast A float64x1", "backend": "basic", "measured_us": 10.0, "predicted_us": 12.5, "error": 0.25},
      {"trace": "handmade-4", "op": 0, "label": "bcast A float64x1", "backend": "window", "measured_us": 20.0, "predicted_us": 15.0, "error": -0.25},
      {"trace": "other-2", "op": 0, "label": "reduce B int32x1", "backend": "basic", "measured_us": 7.0, "predicted_us": 7.0, "error": 0}],
    "ops": [], "summary": {"pairs": 3, "median_abs_error": 0.25, "ops_ranked": 0, "ranking_right": 0}})");
  const fs::path md = dir_ / "r.md";
  const auto r = run("report " + kSample + " -o " + md.string() + " --model-check " + mc.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string text = slurp(md);
  EXPECT_NE(text.find("## Measured vs predicted (validate-model)"), std::string::npos) << text;
  EXPECT_NE(text.find("machine `calibrated on box`"), std::string::npos) << text;
  EXPECT_NE(text.find("| 0 | bcast A float64x1 | basic | 10.00 | 12.500 | +25.0% |"), std::string::npos) << text;
  EXPECT_NE(text.find("| 0 | bcast A float64x1 | window | 20.00 | 15.000 | -25.0% |"), std::string::npos) << text;
  EXPECT_EQ(text.find("reduce B int32x1"), std::string::npos) << "another trace's pair: " << text;
  EXPECT_NE(text.find("median |error| 25.0%"), std::string::npos) << text;

  fs::remove(md);
  const auto timing = write("t.json", R"({"format": "sf-timing", "version": 1})").string();
  sfr_test::expect_refused(run("report " + kSample + " -o " + md.string() + " --model-check " + timing), "a timing result as a model check",
                           timing + " is an sf-timing (a timing result), not a model-check result (sf-model-check)");
  const auto other = write("o.json", R"({"format": "sf-model-check", "version": 1, "machine": "m", "summary": {"median_abs_error": 0},
    "pairs": [{"trace": "other-2", "op": 0, "label": "x", "backend": "basic", "measured_us": 1, "predicted_us": 1}]})");
  sfr_test::expect_refused(run("report " + kSample + " -o " + md.string() + " --model-check " + other.string()), "another trace's check",
                           other.string() + ": /pairs: no (op, backend) pair of trace 'handmade-4'");
  EXPECT_FALSE(fs::exists(md));
  EXPECT_NE(run("report --help").out.find("--model-check"), std::string::npos);
}

// The backend catalogue (src/core/backends.hpp) is what `run --backend list` prints and what the
// MPI executor's page (src/exec/mpi/README.md, "Backends") names: every backend once in the list,
// every one on the page.
TEST_F(Cli, BackendListAndReadmeReadTheCatalogue) {
  const auto r = run("run --backend list");
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<std::string> first_words;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) first_words.push_back(line.substr(0, line.find(' ')));
  for (const auto& b : sfr::core::kBackends)
    EXPECT_EQ(std::count(first_words.begin(), first_words.end(), b.name), 1) << b.name << " in\n" << r.out;
  EXPECT_EQ(std::count(first_words.begin(), first_words.end(), "auto"), 1) << r.out;
  EXPECT_EQ(first_words.size(), std::size(sfr::core::kBackends) + 1) << r.out;
  // The page's section on the backends, up to the next section of its level.
  const std::string page = sfr_test::slurp(fs::path(SFR_TRACES_DIR).parent_path() / "src" / "exec" / "mpi" / "README.md");
  const auto from = page.find("\n## Backends\n");
  ASSERT_NE(from, std::string::npos) << "src/exec/mpi/README.md has no section \"## Backends\"";
  const std::string section = page.substr(from, page.find("\n## ", from + 1) - from);
  for (const auto& b : sfr::core::kBackends)
    EXPECT_NE(section.find(std::string("`") + b.name + "`"), std::string::npos)
        << b.name << " is not in src/exec/mpi/README.md's section \"Backends\"";
}

// One --backend syntax: a comma list and a repeated option are the same list in every command;
// `all` is the catalogue's set, what the command cannot run said once on stderr; an unknown name,
// an empty element, a list where one backend is expected: one line, exit 2.
TEST_F(Cli, BackendListsOneSyntaxEverywhere) {
  const std::string sim = "simulate " + kSample + " -m generic ";
  const auto comma = run(sim + "--backend basic,shm");
  const auto repeated = run(sim + "--backend basic --backend shm");
  ASSERT_EQ(comma.status, 0) << comma.err;
  EXPECT_EQ(comma.out, repeated.out);
  EXPECT_NE(comma.out.find("backend shm"), std::string::npos) << comma.out;
  // `all`, given twice and beside a name: every simulated backend once, each skip said once.
  const auto all = run(sim + "--backend all,basic --backend all");
  ASSERT_EQ(all.status, 0) << all.err;
  for (const auto& b : sfr::core::kBackends) {
    const std::string skip = "sf-replay simulate: skipped backend " + std::string(b.name) + ": ";
    // PETSc's own are not in `all` at all (named apart); the others it cannot simulate are said once.
    EXPECT_EQ(sfr_test::occurrences(all.err, skip), b.simulated || b.petsc ? 0u : 1u) << b.name << ": " << all.err;
    if (b.simulated) {
      EXPECT_EQ(sfr_test::occurrences(all.out, "\nbackend " + std::string(b.name) + "  (total"), 1u) << b.name << ": " << all.out;
    }
  }
  EXPECT_EQ(run(sim + "--all-backends").out, all.out);  // the synonym
  // compare's default is all, said the same way.
  const auto cmp = run("compare " + kSample + " -m generic");
  ASSERT_EQ(cmp.status, 0) << cmp.err;
  EXPECT_EQ(sfr_test::occurrences(cmp.err, "sf-replay compare: skipped backend collective: the simulator does not model"), 1u) << cmp.err;
  const std::string valid = "(expected basic, neighbor, window, alltoallv, shm, 3step, 2step, split-md, split-dd, all (every one of sf-replay's own)";
  const struct {
    std::string args, want;
  } bad[] = {
      {sim + "--backend basic,fast", "--backend: unknown backend 'fast' " + valid},
      {"run " + kSample + " --backend basic --backend carrier-pigeon", "--backend: unknown backend 'carrier-pigeon' (expected basic, "},
      {"validate-model " + kSample + " --machine generic --backend basic,windows", "--backend: unknown backend 'windows' " + valid},
      {"inspect " + kSample + " --backend fast", "--backend: unknown backend 'fast' (expected basic, "},
      {sim + "--backend basic --backend ,shm", "--backend: an empty name in the list ',shm'"},
      {"compare " + kSample + " --backend basic,,shm", "--backend: an empty name in the list 'basic,,shm'"},
      {"validate-model " + kSample + " --machine generic --backend basic,", "--backend: an empty name in the list 'basic,'"},
      {"inspect " + kSample + " --backend shm,", "--backend: an empty name in the list 'shm,'"},
      {"inspect " + kSample + " --backend basic,shm", "--backend: inspect takes one backend, got the list 'basic,shm' (give one name)"},
      {"inspect " + kSample + " --backend basic --backend shm", "--backend: inspect takes one backend, got the list 'basic,shm'"},
      {"inspect " + kSample + " --backend all", "--backend: inspect takes one backend, not all"},
      {"inspect " + kSample + " --backend cuda-ipc", "--backend: cuda-ipc: inspect has no plan for the CUDA executor"},
      {sim + "--backend collective", "--backend: collective: the simulator does not model MPI collectives"},
      {"validate-model " + kSample + " --machine generic --backend cuda-aware", "--backend: cuda-aware: the simulator does not model the CUDA"},
  };
  for (const auto& c : bad) sfr_test::expect_refused(run(c.args), c.args, "error: " + c.want);
  // inspect's one backend, as a repeat-free single name, still plans.
  EXPECT_EQ(run("inspect " + kSample + " --backend 3step").status, 0);
}
