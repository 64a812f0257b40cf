// sf-replay capture on PETSc's own example programs (Debian's libpetsc3.18-dev-examples, built by
// tests/CMakeLists.txt), each checked against what PETSc itself says:
//  - the application's output is the same with and without the capture;
//  - the trace validates, and the reference executor and every MPI backend conform on it;
//  - every captured graph equals PETSc's own print of that SF (PetscSFView, ascii_info_detail);
//  - the op counts account for PETSc's -log_view counts of its SF events (the mapping is in
//    src/capture/README.md: bcast -> SFBcastBegin, reduce -> SFReduceBegin, fetch_and_op ->
//    SFFetchOpBegin, ops made by VecScatterBegin -> VecScatterBegin only, and the calls PETSc makes
//    inside gather, scatter, degree and SF construction -> their own events).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <set>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/process.hpp"
#include "trace/reader.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using sfr_test::run_command;
using sfr_test::slurp;

namespace {

struct Example {
  const char* name;
  const char* exe;
  int ranks;
  const char* args;
};

std::ostream& operator<<(std::ostream& o, const Example& e) { return o << e.name; }

const Example kExamples[] = {
    // KSP: a 2-D Laplacian solved with GMRES + block Jacobi (MatMult's VecScatter).
    {"ksp_ex2", SFR_EX_KSP, 3, "-m 24 -n 20"},
    // SNES on a DMDA: the Bratu problem (ghost updates, Jacobian coloring).
    {"snes_ex5", SFR_EX_SNES, 4, "-da_grid_x 17 -da_grid_y 13 -snes_monitor -snes_converged_reason"},
    // PetscSF's own tutorial: every op kind, the multi-SF, embedded and inverse SFs.
    {"sf_ex1", SFR_EX_SF, 3,
     "-test_bcast -test_reduce -test_degree -test_fetchandop -test_gather -test_scatter -test_embed -test_invert -sf_type basic"},
    // DMPlex: distributing a mesh (many SFs, an embedded one, a reduce with PETSc's own MPI_Op).
    {"plex_ex1", SFR_EX_PLEX, 2, "-dm_plex_dim 2 -dm_plex_simplex 0 -dm_plex_box_faces 5,4 -dm_distribute"},
};

struct Leaf {
  long position, rank, index;
  bool operator==(const Leaf&) const = default;
};
struct RankPrint {
  long nroots = -1;
  std::vector<Leaf> leaves;
};

// PetscSFView's ascii lines "[r] Number of roots=N, leaves=L, remote ranks=K" and "[r] i <- (rank,index)".
std::map<long, RankPrint> parse_view(const std::string& text) {
  std::map<long, RankPrint> ranks;
  static const std::regex header(R"(^\s*\[(\d+)\] Number of roots=(\d+), leaves=(\d+), remote ranks=(\d+)\s*$)");
  static const std::regex leaf(R"(^\s*\[(\d+)\] (\d+) <- \((\d+),(\d+)\)\s*$)");
  std::istringstream in(text);
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_match(line, m, header))
      ranks[std::stol(m[1])].nroots = std::stol(m[2]);
    else if (std::regex_match(line, m, leaf))
      ranks[std::stol(m[1])].leaves.push_back({std::stol(m[2]), std::stol(m[3]), std::stol(m[4])});
  }
  return ranks;
}

// -log_view's event table: name -> (max count over ranks, max/min ratio).
std::map<std::string, std::pair<long, double>> parse_log(const std::string& text) {
  std::map<std::string, std::pair<long, double>> events;
  static const std::regex row(R"(^(SFBcastBegin|SFReduceBegin|SFFetchOpBegin|VecScatterBegin)\s+(\d+)\s+([0-9.]+)\s.*$)");
  std::istringstream in(text);
  std::smatch m;
  for (std::string line; std::getline(in, line);)
    if (std::regex_match(line, m, row)) events[m[1]] = {std::stol(m[2]), std::stod(m[3])};
  return events;
}

// Runs a command line with its standard output in `out` (the application's output, compared
// byte for byte) and returns the exit status and standard error.
sfr_test::Proc run_to(const std::string& cmd, const std::string& out) {
  const std::string err = out + ".err";
  const int raw = std::system(("timeout 300 " + cmd + " > " + out + " 2> " + err).c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(err)};
}

class CapturePetsc : public ::testing::TestWithParam<Example> {
protected:
  fs::path dir;
  void SetUp() override {
    dir = fs::temp_directory_path() / ("sfr_capture_petsc_" + std::to_string(::getpid()) + "_" + GetParam().name);
    fs::remove_all(dir);
    fs::create_directories(dir);  // not views/: --sf-view makes its folder
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir);
  }
  std::string app(const std::string& extra = "") const {
    const auto& e = GetParam();
    return sfr_test::mpiexec(e.ranks) + e.exe + " " + e.args + (extra.empty() ? "" : " " + extra);
  }
  std::string path(const char* f) const { return (dir / f).string(); }
};

}  // namespace

TEST_P(CapturePetsc, TraceMatchesWhatPetscSaysAndConforms) {
  const auto& ex = GetParam();
  // 1. The application's own output, without and with the capture.
  const auto plain = run_to(app(), path("plain.out"));
  ASSERT_EQ(plain.status, 0) << plain.out;
  const auto cap = run_to(SFR_CLI " capture -o " + path("t.json") + " --sf-view " + path("views") + " -- " + app(), path("captured.out"));
  ASSERT_EQ(cap.status, 0) << cap.out;
  EXPECT_EQ(slurp(path("plain.out")), slurp(path("captured.out"))) << "the capture changed the application's output";

  // 2. The trace validates; the reference executor and every backend conform on it.
  const auto val = run_command(SFR_CLI " validate " + path("t.json"));
  EXPECT_EQ(val.status, 0) << val.out;
  const auto ref = run_command(SFR_CLI " run " + path("t.json") + " --reference --dump " + path("ref.json"));
  EXPECT_EQ(ref.status, 0) << ref.out;
  const auto all = run_command(sfr_test::mpiexec(ex.ranks) + SFR_CLI " run " + path("t.json") + " --backend all --dump " + path("all.json"));
  EXPECT_EQ(all.status, 0) << all.out;
  for (const char* d : {"ref.json", "all.json"}) {
    const auto chk = run_command(SFR_CLI " check " + path("t.json") + " " + path(d));
    EXPECT_EQ(chk.status, 0) << d << ": " << chk.out;
  }

  // 3. Every SF's graph (patterns and derived forms rebuilt by sf-replay) equals PETSc's print.
  const auto t = sfr::trace::read_trace_file(path("t.json"));
  const auto meta = json::parse(t.trace().meta_json);
  EXPECT_EQ(meta["generator"], "capture");
  EXPECT_EQ(meta["petsc_version"], "3.18.5");
  EXPECT_EQ(meta["ranks"], ex.ranks);
  // Every rank ran on this host (one launch here): the trace places them all on one node.
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  EXPECT_EQ(meta["hosts"], json(std::vector<std::string>(static_cast<std::size_t>(ex.ranks), host))) << meta.dump();
  ASSERT_TRUE(t.trace().machine);
  EXPECT_EQ(t.trace().machine->ranks_per_node, ex.ranks);
  // SNES ex5 solves on a 2-D DMDA, star stencil of width 1, one dof, the grid its arguments give
  // (17 x 13), which PETSc splits over 4 ranks as 2 x 2: the capture says which SF is the DMDA's
  // ghost update and which the MatMult of the Jacobian DMCreateMatrix made from it.
  if (ex.name == std::string("snes_ex5")) {
    const json dmda = {{"dim", 2}, {"sizes", {17, 13, 1}}, {"processes", {2, 2, 1}}, {"dof", 1}, {"stencil", "star"},
                       {"stencil_width", 1}, {"boundary", {"none", "none", "none"}}, {"refine_level", 0}, {"coarsen_level", 0}};
    std::set<std::string> roles;
    for (const auto& s : meta["sfs"])
      if (s.contains("built_by")) {
        EXPECT_EQ(s["built_by"]["dmda"], dmda) << s.dump();
        roles.insert(s["built_by"]["role"].get<std::string>());
      }
    EXPECT_EQ(roles, (std::set<std::string>{"global_to_local", "matmult"})) << meta["sfs"].dump();
  }
  EXPECT_FALSE(meta["command"].empty());
  EXPECT_FALSE(meta["date"].get<std::string>().empty());
  ASSERT_FALSE(t.trace().sfs.empty());
  for (const auto& def : t.trace().sfs) {
    const fs::path view = dir / "views" / ("view-" + def.name + ".txt");
    ASSERT_TRUE(fs::exists(view)) << def.name;
    const auto printed = parse_view(slurp(view));
    const auto& g = t.graph(def.name);
    ASSERT_EQ(printed.size(), static_cast<std::size_t>(g.nranks)) << def.name;
    for (int r = 0; r < g.nranks; ++r) {
      const auto& p = printed.at(r);
      EXPECT_EQ(p.nroots, g[r].nroots) << def.name << " rank " << r;
      std::vector<Leaf> mine;
      for (sfr::core::Index j = 0; j < g[r].nleaves(); ++j)
        mine.push_back({static_cast<long>(g[r].leaf_position(j)), g[r].remote_rank[static_cast<std::size_t>(j)],
                        static_cast<long>(g[r].remote_index[static_cast<std::size_t>(j)])});
      EXPECT_EQ(p.leaves, mine) << def.name << " rank " << r;
    }
  }

  // 4. A cap of one op record: one record, the SFs it needs, and still every op counted.
  const auto capped = run_to(SFR_CLI " capture --max-ops 1 -o " + path("t1.json") + " -- " + app(), path("capped.out"));
  ASSERT_EQ(capped.status, 0) << capped.out;
  const auto t1 = sfr::trace::read_trace_file(path("t1.json"));
  const auto m1 = json::parse(t1.trace().meta_json);
  EXPECT_EQ(t1.trace().ops.size(), 1u);
  EXPECT_LE(t1.trace().sfs.size(), 3u);  // the op's SF and what it was derived from
  EXPECT_EQ(m1["ops_recorded"], meta["ops_recorded"]);
  long counted = 0;
  for (const auto& c : m1["op_counts"]) counted += c["count"].get<long>();
  EXPECT_EQ(counted, m1["ops_recorded"].get<long>());

  // 5. The op counts account for PETSc's own -log_view counts (a capture of a run with -log_view).
  const auto logged = run_to(SFR_CLI " capture -o " + path("t2.json") + " -- " + app("-log_view"), path("log.out"));
  ASSERT_EQ(logged.status, 0) << logged.out;
  const auto events = parse_log(slurp(path("log.out")));
  const auto m2 = json::parse(sfr::trace::read_trace_file(path("t2.json")).trace().meta_json);
  // What the op counts, PETSc's internal calls and the ops not recorded imply, summed over ranks.
  std::map<std::string, long> implied;
  const std::map<std::string, std::string> event_of = {
      {"bcast", "SFBcastBegin"}, {"reduce", "SFReduceBegin"}, {"fetch_and_op", "SFFetchOpBegin"}};
  for (const auto& c : m2["op_counts"]) {
    const long n = c["count"], vs = c["vecscatter"];
    implied["VecScatterBegin"] += ex.ranks * vs;
    if (event_of.count(c["op"])) implied[event_of.at(c["op"])] += ex.ranks * (n - vs);
  }
  for (const char* table : {"internal_calls", "not_recorded"})
    for (const auto& c : m2[table])
      if (event_of.count(c["op"])) implied[event_of.at(c["op"])] += c["count_all_ranks"].get<long>();
  long nevents = 0;
  for (const char* e : {"SFBcastBegin", "SFReduceBegin", "SFFetchOpBegin", "VecScatterBegin"}) {
    const long logged_max = events.count(e) ? events.at(e).first : 0;
    long lib_max = 0, lib_sum = 0;
    for (const auto& r : m2["petsc_events_per_rank"]) {
      const long v = r.value(e, 0L);
      lib_max = std::max(lib_max, v);
      lib_sum += v;
    }
    EXPECT_EQ(lib_max, logged_max) << e << ": the capture library's count of calls against -log_view";
    EXPECT_EQ(implied[e], lib_sum) << e << ": the trace's op counts do not account for the calls";
    if (events.count(e)) {
      EXPECT_DOUBLE_EQ(events.at(e).second, 1.0) << e;  // the same on every rank
    }
    nevents += logged_max;
  }
  EXPECT_GT(nevents, 0) << "PETSc logged no SF event: -log_view output not parsed?";
}

INSTANTIATE_TEST_SUITE_P(Tutorials, CapturePetsc, ::testing::ValuesIn(kExamples),
                         [](const ::testing::TestParamInfo<Example>& i) { return std::string(i.param.name); });

// The decoding against the program: tests/capture/known_ops.c runs 16 ops whose unit, block size
// and MPI op it chose (PETSc's own MPIU types, MPI's named ones, a contiguous block, a duplicated
// type; sums, extrema, logical, bitwise and maxloc reductions; fetch-and-op, degree, gather,
// scatter) and prints each as the trace must record it. The trace's ops, in order (repeats
// expanded), are exactly those; degree takes no unit, gather, scatter and degree no MPI op.
TEST(CaptureDecoding, EveryOpOfAKnownProgramIsDecodedAsItWasCalled) {
  const fs::path dir = fs::temp_directory_path() / ("sfr_capture_known_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string trace = (dir / "t.json").string();
  const auto cap = run_to(SFR_CLI " capture -o " + trace + " -- " + sfr_test::mpiexec(2) + SFR_KNOWN_OPS, (dir / "out").string());
  ASSERT_EQ(cap.status, 0) << cap.out;
  std::vector<std::string> said;
  {
    std::istringstream in(slurp(dir / "out"));
    for (std::string line; std::getline(in, line);)
      if (line.rfind("op ", 0) == 0) said.push_back(line.substr(3));
  }
  ASSERT_EQ(said.size(), 16u) << slurp(dir / "out");
  std::vector<std::string> recorded;
  const auto t = json::parse(slurp(trace));
  for (const auto& o : t["ops"]) {
    const std::string kind = o["op"];
    std::string line = kind + " " + (kind == "degree" ? std::string("int64 1") : o["unit"].get<std::string>() + " " + std::to_string(o["bs"].get<int>()));
    line += " " + (o.contains("mpi_op") ? o["mpi_op"].get<std::string>() : std::string("-"));
    EXPECT_EQ(o["memtype"], "host");
    for (int k = 0; k < o["repeat"].get<int>(); ++k) recorded.push_back(line);
  }
  EXPECT_EQ(recorded, said);
  fs::remove_all(dir);
}
