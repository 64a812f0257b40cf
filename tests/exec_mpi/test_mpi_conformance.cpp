// The MPI executor end to end: `mpiexec -n P sf-replay run TRACE --backend B --dump D` for every
// backend on the sample traces and on seeded random forests (1..8 ranks; holes, degree-0 and
// high-degree roots, empty ranks, self edges) running every op x unit x legal mpi_op x bs in
// {1,3}, and one link reused by ops with other buffers, units and mpi_ops (persistent requests
// re-bound); each dump is checked against the serial reference semantics. Plus bad input: wrong
// rank count, unknown / unsupported backends (one message, exit status 2, no hang).
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <span>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "exec/dump_check.hpp"
#include "support/backends.hpp"
#include "support/large_runs.hpp"
#include "support/process.hpp"
#include "support/random_trace.hpp"
#include "support/sample_traces.hpp"
#include "trace/reader.hpp"
#include "trace/writer.hpp"

namespace fs = std::filesystem;
using namespace sfr;

namespace {

using sfr_test::slurp;

sfr_test::Proc mpirun(int np, const std::string& args) { return sfr_test::run_command(sfr_test::mpiexec(np) + SFR_CLI + " " + args, 120); }

const std::vector<std::string> kBackends = sfr_test::graph_backends();

bool node_aware(const std::string& b) { return b == "3step" || b == "2step" || b == "split-md" || b == "split-dd"; }

// The backends in two launches' worth: those that put every rank on one node (shm: one node of all
// ranks), and the node-aware strategies, which run on emulated nodes (--ranks-per-node).
std::vector<std::string> backends_where(bool aware) {
  std::vector<std::string> out;
  for (const auto& b : kBackends)
    if (node_aware(b) == aware) out.push_back(b);
  return out;
}
const std::vector<std::string> kOneNode = backends_where(false), kNodeAware = backends_where(true);

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& b : v) s += (s.empty() ? "" : ",") + b;
  return s;
}

// `mpiexec -n P sf-replay run TRACE --backend B1,B2,... --dump D`, in one launch (a launch costs
// 0.4 s, a backend's run of a small trace a few milliseconds): the executor checks every
// backend's dump against the reference and says so per backend (exit 2 naming those that do not
// conform); the test requires each one's line (where there are several) and checks the dump
// written (the first backend's) itself. Node-aware backends run on emulated nodes of
// `ranks_per_node` ranks (0: 2 where the trace has more than one rank, so that traffic crosses
// nodes).
void conforms(const fs::path& trace_file, const std::vector<std::string>& backends, int ranks_per_node = 0) {
  const auto t = trace::read_trace_file(trace_file.string());
  const fs::path dump = fs::temp_directory_path() / ("sfr_mpi_dump_" + std::to_string(::getpid()) + "_" + backends.front() + ".json");
  std::string nodes;
  if (std::any_of(backends.begin(), backends.end(), node_aware))
    nodes = " --ranks-per-node " + std::to_string(ranks_per_node > 0 ? ranks_per_node : std::min(2, t.trace().nranks));
  const std::string list = joined(backends);
  const auto r = mpirun(t.trace().nranks, "run " + trace_file.string() + " --backend " + list + nodes + " --dump " + dump.string());
  ASSERT_EQ(r.status, 0) << list << nodes << " on " << trace_file << ":\n" << r.out;
  const std::string ops = std::to_string(t.trace().ops.size());
  if (backends.size() > 1) {  // (one backend's dump is the test's alone to check)
    for (const auto& b : backends)
      EXPECT_EQ(sfr_test::occurrences(r.out, "backend " + b + ": " + ops + " ops conform to the reference"), 1u)
          << b << nodes << " on " << trace_file << ":\n"
          << r.out;
  }
  const auto res = exec::check_dump(t, slurp(dump), dump.string());
  EXPECT_TRUE(res.ok()) << backends.front() << " on " << trace_file << ": " << res.problems.size()
                        << " problems, first: " << res.problems.front();
  EXPECT_EQ(res.ops_checked, t.trace().ops.size());
  fs::remove(dump);
}
void conforms(const fs::path& trace_file, const std::string& backend, int ranks_per_node = 0) {
  conforms(trace_file, std::vector<std::string>{backend}, ranks_per_node);
}

fs::path random_trace(int nranks, unsigned seed) {
  const fs::path p = fs::temp_directory_path() / ("sfr_mpi_random_" + std::to_string(::getpid()) + "_" + std::to_string(nranks) + ".json");
  trace::write_trace_file(sfr_test::sweep_trace(sfr_test::random_graph(nranks, seed), "random-" + std::to_string(nranks)), p.string());
  return p;
}

// Issue 31: one link reused by several ops whose buffers differ. 2 ranks, 128 leaves each (ilocal
// null) on 128 consecutive roots of the other rank, so each message is contiguous and >= 512 B:
// basic sends and receives them with persistent requests bound straight to the user's buffers
// (a bcast replace receives into leafdata, other ops into the link's buffer). float64 and int64
// share a link (same vertex size), and conformance mode gives every op fresh buffers, so a request
// left bound to the previous op's buffer receives into the wrong place. replace -> sum -> int64
// sum is the failing order from the issue; a reduce and a replace again move the binding back and
// forth, and bs=3 does it all again on a link of 24-byte vertices (3 KiB messages).
// `issue_only`: just the issue's three bcasts (bs 1), whose failure is a clean wrong value; the
// full sequence also writes into freed buffers there, which can crash one rank and hang the other.
fs::path link_reuse_trace(bool issue_only) {
  using namespace sfr;
  constexpr core::Index n = 128;
  core::Graph g(2);
  for (int r = 0; r < 2; ++r) {
    g[r].nroots = n;
    for (core::Index j = 0; j < n; ++j) g[r].add_leaf(j, 1 - r, j);
  }
  trace::Trace t;
  t.name = issue_only ? "link-reuse-issue31" : "link-reuse-2";
  t.nranks = 2;
  t.sfs.push_back({"S", trace::ExplicitSF{std::make_shared<const core::Graph>(g)}});
  using core::MpiOp, core::OpKind, core::Unit;
  for (int bs : {1, 3}) {
    if (issue_only && bs != 1) break;
    const std::vector<std::tuple<OpKind, Unit, MpiOp>> all = {
        {OpKind::bcast, Unit::float64, MpiOp::replace}, {OpKind::bcast, Unit::float64, MpiOp::sum},
        {OpKind::bcast, Unit::int64, MpiOp::sum},       {OpKind::reduce, Unit::float64, MpiOp::sum},
        {OpKind::bcast, Unit::float64, MpiOp::replace}, {OpKind::reduce, Unit::int64, MpiOp::replace},
        {OpKind::bcast, Unit::int64, MpiOp::replace},   {OpKind::bcast, Unit::float64, MpiOp::max},
    };
    const auto ops = std::span(all).first(issue_only ? 3 : all.size());
    for (const auto& [k, u, op] : ops) t.ops.push_back({k, "S", u, bs, op, core::MemType::host, core::MemType::host, 1, 0});
  }
  const fs::path p = fs::temp_directory_path() / ("sfr_mpi_link_reuse_" + std::to_string(::getpid()) + (issue_only ? "_3" : "") + ".json");
  trace::write_trace_file(t, p.string());
  return p;
}

}  // namespace

// Every checked-in sample trace of at most 8 ranks (SpMV, stencils, mesh migration, scatters,
// synthetic patterns, the hand-made one with every derive kind), one test per (trace, launch) so
// that ctest -j spreads them: the backends on one node, then the node-aware strategies on nodes
// of 2.
class SampleTrace : public ::testing::TestWithParam<std::string> {};

TEST_P(SampleTrace, ConformsOnOneNode) { conforms(fs::path(SFR_TRACES_DIR) / GetParam(), kOneNode); }

TEST_P(SampleTrace, ConformsOnNodesOfTwo) { conforms(fs::path(SFR_TRACES_DIR) / GetParam(), kNodeAware); }

namespace {
std::vector<std::string> sample_trace_files() {
  std::vector<std::string> out;
  for (const auto& p : sfr_test::sample_traces(8)) out.push_back(p.filename().string());
  return out;
}
}  // namespace

TEST(SampleTraces, AtLeastTenOfAtMostEightRanks) { EXPECT_GE(sample_trace_files().size(), 10u); }

INSTANTIATE_TEST_SUITE_P(Mpi, SampleTrace, ::testing::ValuesIn(sample_trace_files()), [](const auto& info) {
  std::string n = fs::path(info.param).stem().string();
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
});

// Seeded random forests of 1-8 ranks: the backends on one node, and the node-aware strategies on
// every node size from 1 to 4 ranks (the last node may be smaller).
TEST(MpiRandomForests, ConformOnOneNode) {
  for (int nranks : {1, 2, 3, 5, 8}) {
    const auto p = random_trace(nranks, 1000u + static_cast<unsigned>(nranks));
    conforms(p, kOneNode);
    fs::remove(p);
  }
}

TEST(MpiRandomForests, ConformOnEveryNodeSize) {
  for (int nranks : {1, 2, 3, 5, 8}) {
    const auto p = random_trace(nranks, 1000u + static_cast<unsigned>(nranks));
    for (int rpn = 1; rpn <= std::min(4, nranks); ++rpn) conforms(p, kNodeAware, rpn);
    fs::remove(p);
  }
}

// Issue 31: a persistent request that is not re-bound when the op's buffer changes passed the
// whole suite before this test. Node-aware backends also run with one rank per node, so that the
// two ranks' traffic crosses emulated nodes.
// One link, the ops that reuse it with other buffers: issue 31's three ops (the unit and op change
// under one block size), and the whole sequence over two block sizes; two tests, so that each
// fails on its own.
static void link_reused(bool issue_only) {
  const auto p = link_reuse_trace(issue_only);
  conforms(p, kOneNode);
  conforms(p, kNodeAware);
  conforms(p, kNodeAware, 1);
  fs::remove(p);
}

// Messages at and just under the size where shm leaves a contiguous on-node pair to MPI
// (core/shm_route.hpp), on every backend: the pairs that change route must still conform.
TEST(MpiLargeRuns, ConformOnEveryBackend) {
  const fs::path p = fs::temp_directory_path() / ("sfr_mpi_large_runs_" + std::to_string(::getpid()) + ".json");
  trace::write_trace_file(sfr_test::large_runs_trace(), p.string());
  conforms(p, kOneNode);
  conforms(p, kNodeAware);
  fs::remove(p);
}

TEST(MpiLinkReused, WithOtherUnitsAndOps) { link_reused(true); }

TEST(MpiLinkReused, WithOtherBuffersAndOps) { link_reused(false); }

TEST(MpiBadInput, WrongRankCountIsOneMessageAndExitTwo) {
  const auto r = mpirun(3, std::string("run ") + SFR_TRACES_DIR + "/handmade-4.json --backend basic");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("needs 4 ranks but this run has 3"), std::string::npos) << r.out;
  size_t count = 0;
  for (size_t pos = 0; (pos = r.out.find("needs 4 ranks", pos)) != std::string::npos; ++pos) ++count;
  EXPECT_EQ(count, 1u) << r.out;
}

TEST(MpiBadInput, UnknownBackend) {
  const auto r = mpirun(4, std::string("run ") + SFR_TRACES_DIR + "/handmade-4.json --backend carrier-pigeon");
  EXPECT_EQ(r.status, 2) << r.out;  // bad input: 2 on every rank, not a crash or an abort
  // The one parser's line (src/cli/options.cpp), from rank 0 alone, before MPI starts.
  EXPECT_EQ(sfr_test::occurrences(r.out, "unknown backend 'carrier-pigeon' (expected basic, neighbor,"), 1u) << r.out;
}

TEST(MpiBadInput, CollectiveBackendRefusesGeneralGraphs) {
  const auto r = mpirun(4, std::string("run ") + SFR_TRACES_DIR + "/handmade-4.json --backend collective --iters 1");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("/ops/0: backend collective"), std::string::npos) << r.out;
}

using sfr_test::occurrences;

// --ranks-per-node: at least 1, at most the trace's ranks, and only with a node-aware backend
// (an option that would do nothing is an error).
TEST(MpiBadInput, RanksPerNode) {
  const std::string t = sfr_test::kSample;
  const std::pair<const char*, const char*> cases[] = {
      {"--backend 3step --ranks-per-node 0", "--ranks-per-node: must be >= 1, got 0"},
      {"--backend 3step --ranks-per-node 5", "--ranks-per-node: 5 exceeds the trace's 4 ranks"},
      {"--backend basic,window --ranks-per-node 2", "--ranks-per-node: only shm and the node-aware backends"},
      {"--reference --ranks-per-node 2", "--ranks-per-node: only shm and the node-aware backends"},
  };
  for (const auto& [bad, says] : cases) {
    const auto r = mpirun(4, "run " + t + " " + bad);
    EXPECT_EQ(r.status, 2) << bad << ": " << r.out;
    EXPECT_EQ(occurrences(r.out, says), 1u) << bad << ": " << r.out;
  }
}

// --dump with several backends checks every one against the reference (node-aware ones on
// emulated nodes of 2), and says so per backend.
TEST(MpiDump, SeveralBackendsAreEachChecked) {
  const fs::path dump = fs::temp_directory_path() / ("sfr_mpi_dump_multi_" + std::to_string(::getpid()) + ".json");
  const auto r = mpirun(4, std::string("run ") + SFR_TRACES_DIR +
                               "/handmade-4.json --backend shm,3step,2step,split-md,split-dd --ranks-per-node 2 --dump " + dump.string());
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* b : {"shm", "3step", "2step", "split-md", "split-dd"})
    EXPECT_EQ(occurrences(r.out, std::string("backend ") + b + ": 25 ops conform to the reference"), 1u) << b << ": " << r.out;
  EXPECT_TRUE(fs::exists(dump));
  fs::remove(dump);
}

// Every rank sees the same bad command line; rank 0 alone says so.
TEST(MpiBadInput, OptionErrorsArePrintedOnce) {
  const std::string t = sfr_test::kSample;
  for (const std::string bad : {"--iters -1", "--iters abc", "--reference --backend basic", "--iters 0", "--bogus"}) {
    const auto r = mpirun(4, "run " + t + " " + bad);
    EXPECT_NE(r.status, 0) << bad;
    EXPECT_EQ(occurrences(r.out, "sf-replay run: error:"), 1u) << bad << ": " << r.out;
  }
}

// An error on a rank other than 0 reaches rank 0, which prints it with the rank.
TEST(MpiBadInput, AnotherRanksErrorIsPrintedByRankZero) {
  const fs::path p = fs::temp_directory_path() / ("sfr_mpi_roots_" + std::to_string(::getpid()) + ".json");
  // Rank 1 alone holds 2^40 roots: only its buffers are too large.
  std::ofstream(p) << R"({"name": "x", "nranks": 2, "sfs": {"A": {"ranks": [{"nroots": 1, "remote_rank": [1], "remote_index": [0]},
      {"nroots": 1099511627776, "remote_rank": [], "remote_index": []}]}}, "ops": [{"op": "bcast", "sf": "A", "unit": "int32"}]})";
  const auto r = mpirun(2, "run " + p.string() + " --backend basic --max-memory 1G");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_EQ(occurrences(r.out, "sf-replay run: error:"), 1u) << r.out;
  EXPECT_NE(r.out.find("error: rank 1: /ops/0: would build the data arrays of 1 op on this rank: about 4.0 TiB"), std::string::npos)
      << r.out;
  fs::remove(p);
}

TEST(MpiBadInput, MalformedTraceUnderMpi) {
  const fs::path p = fs::temp_directory_path() / ("sfr_mpi_bad_" + std::to_string(::getpid()) + ".json");
  std::ofstream(p)
      << "{\"name\": \"x\", \"nranks\": 2, \"sfs\": {}, \"ops\": [{\"op\": \"bcast\", \"sf\": \"nope\", \"unit\": \"int32\"}]}";
  const auto r = mpirun(2, "run " + p.string() + " --backend basic");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("/ops/0/sf: unknown SF \"nope\""), std::string::npos) << r.out;
  fs::remove(p);
}

TEST(MpiCollective, PatternTraceRunsAndConforms) {
  const fs::path p = fs::temp_directory_path() / ("sfr_mpi_pattern_" + std::to_string(::getpid()) + ".json");
  std::ofstream(p) << R"({"name": "patterns", "nranks": 3, "sfs": {
      "AG": {"pattern": "allgather", "nroots": [2, 0, 3]}, "G": {"pattern": "gather", "nroots": [1, 2, 2]},
      "AA": {"pattern": "alltoall", "nroots": [3, 3, 3]}},
    "ops": [{"op": "bcast", "sf": "AG", "unit": "float64", "bs": 3}, {"op": "bcast", "sf": "G", "unit": "int32_pair"},
            {"op": "bcast", "sf": "AA", "unit": "complex128"}]})";
  conforms(p, "collective");
  conforms(p, "basic");
  // --backend all: every backend, collective included where the trace allows it, skipped (said
  // once) where it does not.
  const fs::path timing = fs::temp_directory_path() / ("sfr_mpi_all_" + std::to_string(::getpid()) + ".json");
  auto r = mpirun(3, "run " + p.string() + " --backend all --iters 1 --warmup 0 --timing " + timing.string());
  ASSERT_EQ(r.status, 0) << r.out;
  std::set<std::string> ran;
  auto doc = nlohmann::json::parse(slurp(timing));
  for (const auto& res : doc["results"]) ran.insert(res["backend"].get<std::string>());
  EXPECT_EQ(ran, (std::set<std::string>{"basic", "neighbor", "window", "alltoallv", "collective", "shm", "3step", "2step", "split-md",
                                        "split-dd"}));
  r = mpirun(4, std::string("run ") + SFR_TRACES_DIR + "/handmade-4.json --backend all --iters 1 --warmup 0 --timing " + timing.string());
  ASSERT_EQ(r.status, 0) << r.out;
  // Said once, by rank 0, on stderr (mpirun's output here has both).
  EXPECT_EQ(sfr_test::occurrences(r.out, "sf-replay run: skipped backend collective: /ops/0:"), 1u) << r.out;
  ran.clear();
  doc = nlohmann::json::parse(slurp(timing));
  for (const auto& res : doc["results"]) ran.insert(res["backend"].get<std::string>());
  EXPECT_EQ(ran, (std::set<std::string>{"basic", "neighbor", "window", "alltoallv", "shm", "3step", "2step", "split-md", "split-dd"}));
  fs::remove(timing);
  fs::remove(p);
}

// The timing document, parsed: every (backend, op) once, every timed iteration's sample, min /
// median / max recomputed from the samples, and the provenance (trace hash from sha256sum).
TEST(MpiTiming, TimingJsonAndTable) {
  const fs::path timing = fs::temp_directory_path() / ("sfr_mpi_timing_" + std::to_string(::getpid()) + ".json");
  const std::string trace_file = sfr_test::kSample;
  const auto r = mpirun(4, "run " + trace_file + " --backend basic,neighbor --iters 10 --warmup 1 --timing " + timing.string());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("per_call(us)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("iter_median(us)"), std::string::npos) << r.out;
  // The table's rows in order: op#, op, sf, backend, unit, bs, bytes, msgs, repeat, per call
  // (median / repeat), p20 per call, then the iterations' min, median, max (all repeat calls).
  std::vector<std::vector<std::string>> rows;
  {
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
      std::istringstream w(line);
      std::vector<std::string> f;
      for (std::string x; w >> x;) f.push_back(x);
      if (f.size() == 14 && std::isdigit(static_cast<unsigned char>(f[0][0]))) rows.push_back(f);
    }
  }
  const auto j = nlohmann::json::parse(slurp(timing));
  const auto t = trace::read_trace_file(trace_file);
  EXPECT_EQ(j.at("format"), "sf-timing");
  EXPECT_EQ(j.at("iters"), 10);
  ASSERT_EQ(j.at("results").size(), 2 * t.trace().ops.size());
  ASSERT_EQ(rows.size(), j.at("results").size()) << r.out;
  std::map<std::string, std::size_t> per_backend;
  std::size_t row = 0;
  for (const auto& res : j.at("results")) {
    ++per_backend[res.at("backend").get<std::string>()];
    auto s = res.at("samples_us").get<std::vector<double>>();
    ASSERT_EQ(s.size(), 10u);
    std::sort(s.begin(), s.end());
    EXPECT_DOUBLE_EQ(res.at("min_us").get<double>(), s.front());
    const double median = 0.5 * (s[4] + s[5]);  // an even count: the mean of the middle two
    EXPECT_DOUBLE_EQ(res.at("median_us").get<double>(), median);
    EXPECT_DOUBLE_EQ(res.at("max_us").get<double>(), s.back());
    // Per call: the trace's repeat (op 14 of handmade-4 runs 10 times an iteration), not the document's.
    const double calls = static_cast<double>(t.trace().ops.at(res.at("index").get<std::size_t>()).repeat);
    EXPECT_DOUBLE_EQ(res.at("per_call_us").get<double>(), median / calls);
    // The 20th percentile of the 10 iterations: the second lowest (nearest rank below, floor(0.2 x
    // 9)), per call; 10 is a count where floor(0.2 x 10), one sample higher, differs.
    char p20[32], med[32];
    std::snprintf(p20, sizeof p20, "%.2f", s[1] / calls);
    std::snprintf(med, sizeof med, "%.2f", median / calls);
    EXPECT_EQ(rows[row][3], res.at("backend").get<std::string>());
    EXPECT_EQ(rows[row][8], std::to_string(static_cast<long long>(calls))) << r.out;
    EXPECT_EQ(rows[row][9], med) << r.out;
    EXPECT_EQ(rows[row++][10], p20) << r.out;
  }
  EXPECT_EQ(per_backend["basic"], t.trace().ops.size());
  EXPECT_EQ(per_backend["neighbor"], t.trace().ops.size());
  const auto& p = j.at("provenance");
  EXPECT_EQ(p.at("ranks"), 4);
  EXPECT_EQ(p.at("trace"), t.trace().name);
  const auto sum = sfr_test::run_command("sha256sum " + trace_file);
  ASSERT_EQ(sum.status, 0);
  EXPECT_EQ(p.at("trace_sha256").get<std::string>(), sum.out.substr(0, 64));
  EXPECT_NE(p.at("mpi").get<std::string>().find("MPI"), std::string::npos) << p.dump();
  EXPECT_TRUE(std::regex_match(p.at("date").get<std::string>(), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"))) << p.dump();
  for (const char* k : {"commit", "host", "cpu_model"}) EXPECT_FALSE(p.at(k).get<std::string>().empty()) << k;
  EXPECT_GE(p.at("cores").get<int>(), 1);
  fs::remove(timing);
}

// --store files a new document per run and never rewrites one; --store alone (no --timing)
// times and files.
TEST(MpiTiming, StoreFilesOneNewDocumentPerRun) {
  const fs::path dir = fs::temp_directory_path() / ("sfr_mpi_store_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string trace_file = sfr_test::kSample;
  for (int k = 0; k < 2; ++k) {
    const auto r = mpirun(4, "run " + trace_file + " --backend basic --iters 2 --store " + dir.string());
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_EQ(sfr_test::occurrences(r.out, "stored " + dir.string()), 1u) << r.out;
  }
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) files.push_back(e.path());
  ASSERT_EQ(files.size(), 2u);
  for (const auto& f : files) {
    EXPECT_EQ(f.extension(), ".json");
    const auto j = nlohmann::json::parse(slurp(f));
    EXPECT_EQ(j.at("format"), "sf-timing");
    EXPECT_EQ(j.at("provenance").at("command"), "run");
  }
  fs::remove_all(dir);
}

// The bytes a timing result reports are the bytes inspect reports for the same op (each counted
// its own way: the executor from its plan, inspect from the SF's edges), degree included.
TEST(MpiTiming, TimingBytesAgreeWithInspect) {
  const fs::path timing = fs::temp_directory_path() / ("sfr_mpi_bytes_" + std::to_string(::getpid()) + ".json");
  const std::string trace_file = sfr_test::kSample;
  ASSERT_EQ(mpirun(4, "run " + trace_file + " --backend basic --iters 1 --warmup 0 --timing " + timing.string()).status, 0);
  const auto ins = sfr_test::run_command(std::string(SFR_CLI) + " inspect " + trace_file + " --json");
  ASSERT_EQ(ins.status, 0) << ins.out;
  const auto j = nlohmann::json::parse(slurp(timing)), in = nlohmann::json::parse(ins.out);
  std::size_t checked = 0, degrees = 0;
  for (const auto& r : j["results"]) {
    const std::string op = r["op"];
    if (op == "gather" || op == "scatter" || op == "fetch_and_op") continue;  // multi-SF / two ways: not one SF's bytes
    const std::string unit = op == "degree" ? "int64(degree)" : r["unit"].get<std::string>();
    const int bs = op == "degree" ? 1 : r["bs"].get<int>();
    bool found = false;
    for (const auto& sf : in["sfs"])
      if (sf["name"] == r["sf"])
        for (const auto& b : sf["bytes_per_op"])
          if (b["unit"] == unit && b["bs"] == bs) {
            EXPECT_EQ(b["remote_bytes"].get<long long>(), r["bytes"].get<long long>()) << r.dump();
            found = true;
          }
    EXPECT_TRUE(found) << r.dump();
    ++checked;
    degrees += op == "degree";
  }
  EXPECT_GE(checked, 10u);
  EXPECT_GE(degrees, 2u);
  fs::remove(timing);
}
