// sf-replay generate from the command line: the sample set regenerates byte for byte, bad input
// gives one line on stderr, exit status 2 and no output file.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>

#include "support/cli_fixture.hpp"
#include "support/matrices.hpp"

namespace {

namespace fs = std::filesystem;

using sfr_test::slurp;

class GenerateCli : public sfr_test::CliTest {
protected:
  sfr_test::CliResult gen(const std::string& args) { return run("generate " + args); }
};

const std::string kMat = SFR_MATRICES_DIR;

TEST_F(GenerateCli, SampleTracesRegenerateIdentically) {
  SFR_SKIP_WITHOUT_MATRICES();
  const fs::path out = dir_ / "traces";
  const auto r = sh("bash " + std::string(SFR_TRACES_DIR) + "/make_traces.sh " + SFR_CLI + " " + out.string() + " " + kMat);
  ASSERT_EQ(r.status, 0) << r.err;
  std::set<std::string> made, kept;
  for (const auto& e : fs::directory_iterator(out)) made.insert(e.path().filename().string());
  for (const auto& e : fs::directory_iterator(SFR_TRACES_DIR))
    if (e.path().extension() == ".json" && e.path().filename() != "handmade-4.json") kept.insert(e.path().filename().string());
  EXPECT_EQ(made, kept);
  std::uintmax_t total = 0;
  for (const auto& name : made) {
    const std::string fresh = slurp(out / name), saved = slurp(fs::path(SFR_TRACES_DIR) / name);
    EXPECT_TRUE(fresh == saved) << name << " differs from the regenerated file";
    total += saved.size();
  }
  EXPECT_LE(total, 2u * 1024 * 1024);
}

TEST_F(GenerateCli, EveryKindHasHelpAndWritesValidTraces) {
  for (const char* kind : {"spmv", "stencil", "hexmesh", "synthetic", "scatter", "scenario", "random"}) {
    const auto r = gen(std::string(kind) + " --help");
    EXPECT_EQ(r.status, 0) << kind;
    EXPECT_NE(r.out.find("usage: sf-replay generate"), std::string::npos) << kind;
  }
  EXPECT_EQ(gen("--help").status, 0);
  const std::string t = (dir_ / "t.json").string();
  ASSERT_EQ(gen("random --ranks 3 --seed 5 -o " + t).status, 0);
  const auto v = sh(std::string(SFR_CLI) + " validate " + t);
  EXPECT_EQ(v.status, 0) << v.err;
  // Deterministic for a seed: a second run gives the same bytes; another seed does not.
  const std::string first = slurp(t);
  ASSERT_EQ(gen("random --ranks 3 --seed 5 -o " + t).status, 0);
  EXPECT_EQ(slurp(t), first);
  ASSERT_EQ(gen("random --ranks 3 --seed 6 -o " + t).status, 0);
  EXPECT_NE(slurp(t), first);
}

TEST_F(GenerateCli, BadInputIsOneLineExitTwoNoOutput) {
  std::ofstream(dir_ / "bad.mtx") << "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n2 x 3\n";
  std::ofstream(dir_ / "junk.mtx") << "this is not a matrix\n";
  const std::string o = " -o " + (dir_ / "out.json").string();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"spmv --matrix " + (dir_ / "missing.mtx").string() + " --ranks 2", "missing.mtx"},
      {"spmv --matrix " + (dir_ / "bad.mtx").string() + " --ranks 2", "bad.mtx:4: expected an entry"},
      {"spmv --matrix " + (dir_ / "junk.mtx").string() + " --ranks 2", "junk.mtx"},
      {"spmv --matrix " + kMat + "/dwt_992.mtx --ranks 993", "993 ranks"},
      {"spmv --matrix " + kMat + "/dwt_992.mtx --ranks 2 --partition bogus", "--partition"},
      {"spmv --matrix " + kMat + "/Groebner_id2003_aug.mtx --ranks 2 --partition metis", "square"},
      {"stencil --dims 2 --size 4x4 --procs 5x1", "--procs"},
      {"stencil --dims 2 --size 4x4 --procs 2", "--procs"},
      {"stencil --dims 2 --size 4x4 --procs 4x1 --width 2", "--procs"},
      {"stencil --dims 4 --size 4x4 --procs 1x1", "--dims"},
      {"hexmesh --cells 1 --ranks 4", "--ranks"},
      {"hexmesh --cells 2 --ranks 2 --order bogus", "--order: unknown order 'bogus' (expected sequential, chunks or random)"},
      {"synthetic --pattern random --ranks 2 --direction sideways",
       "--direction: unknown direction 'sideways' (expected block-to-part or part-to-block)"},
      {"synthetic --pattern nope --ranks 2", "--pattern"},
      {"synthetic --pattern quasi-diagonal --fraction 1.5 --ranks 2", "--fraction"},
      {"scatter --pattern nope --ranks 2", "--pattern"},
      {"scenario --msgs 0 --nodes 4 --size 8", "--msgs"},
      {"random --ranks 0 --seed 1", "--ranks"},
      {"nonsense", "nonsense"},
  };
  for (const auto& [args, needle] : cases) {
    if (args.find(kMat) != std::string::npos && !sfr_test::have_shared_matrices()) continue;  // needs ../shared
    const auto r = gen(args + o);
    EXPECT_EQ(r.status, 2) << args << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << args << ": " << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "out.json")) << args;
  }
}

// The address-space limit the size tests run under: an attempt to build a refused trace dies of
// "out of memory" at 1 GB instead of swapping. Not under AddressSanitizer, whose shadow memory
// alone reserves terabytes of address space (its build still checks every refusal, unlimited).
#if defined(__SANITIZE_ADDRESS__)
const std::string kMemoryLimit;
#else
const std::string kMemoryLimit = "ulimit -v 1000000; ";
#endif

// Sizes that would need terabytes are refused from the options alone.
TEST_F(GenerateCli, HugeInputsAreRefusedBeforeAllocating) {
  const std::string o = " -o " + (dir_ / "out.json").string();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"scatter --pattern par-to-seq --ranks 4000 --per-rank 1000", "--ranks: would build 1.6e+10 leaves on 4000 ranks"},
      {"scatter --pattern par-to-par --ranks 4 --per-rank 100000000000", "--per-rank: would build 4e+11 leaves"},
      {"scenario --msgs 32 --nodes 4 --size 100000000000", "--size: would build 4e+11 leaves"},
      {"random --ranks 4 --seed 1 --max-leaves 100000000000", "--max-leaves: would build 4e+11 leaves"},
      {"random --ranks 4 --seed 1 --max-roots 100000000000", "--max-roots: would build 4e+11 roots"},
      {"stencil --dims 3 --size 100000x100000x100000 --procs 2x2x2", "--size: would build 1e+15 leaves"},
      {"stencil --dims 1 --size 10000000000 --procs 2", "--size: would build 1e+10 leaves"},
      {"hexmesh --cells 100000 --ranks 8", "--cells: would build 1e+16 leaves"},
      {"synthetic --pattern random --ranks 4 --per-rank 100000000000", "--per-rank: would build 4e+11 leaves"},
      {"spmv --matrix " + kMat + "/bcsstk13.mtx --ranks 2000000000", "--ranks: would build"},
      // --max-memory lowers the limit; the same small trace is fine without it (below).
      {"random --ranks 4 --seed 1 --max-leaves 100000 --max-memory 1M", "over the memory limit of 1.0 MiB (--max-memory)"},
  };
  for (const auto& [args, needle] : cases) {
    sfr_test::expect_refused(sh(kMemoryLimit + std::string(SFR_CLI) + " generate " + args + o), args, needle);
    EXPECT_FALSE(fs::exists(dir_ / "out.json")) << args;
  }
  EXPECT_EQ(sh(kMemoryLimit + std::string(SFR_CLI) + " generate random --ranks 4 --seed 1 --max-leaves 100000" + o).status, 0);
  EXPECT_EQ(gen("random --ranks 4 --seed 1 --max-leaves 100000 --max-memory 1G" + o).status, 0);
}

// Seeds are unsigned decimal integers: "-1" is refused instead of wrapping to 2^64 - 1; output
// paths are checked before any work; --max-memory takes a byte count.
TEST_F(GenerateCli, SeedsOutputPathsAndMemoryLimitsAreChecked) {
  const std::string o = " -o " + (dir_ / "out.json").string();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"random --ranks 4 --seed -1" + o, "--seed: expected an integer from 0 to 18446744073709551615, got '-1'"},
      {"random --ranks 4 --seed 18446744073709551616" + o, "--seed"},
      {"random --ranks 4 --seed 12abc" + o, "--seed"},
      {"synthetic --pattern random --ranks 2 --seed -5" + o, "--seed"},
      {"hexmesh --cells 2 --ranks 2 --order random --seed -1" + o, "--seed"},
      {"spmv --matrix " + kMat + "/bcsstk13.mtx --ranks 2 --partition metis --seed -1" + o, "--seed"},
      {"random --ranks 4 --seed 1 -o " + dir_.string(), "is a folder, not a file"},
      {"random --ranks 4 --seed 1 -o " + (dir_ / "missing" / "t.json").string(), "does not exist"},
      {"random --ranks 4 --seed 1 --max-memory 0" + o, "--max-memory: must be more than 0"},
      {"random --ranks 4 --seed 1 --max-memory lots" + o, "--max-memory: expected a byte count"},
  };
  for (const auto& [args, needle] : cases) {
    if (args.find(kMat) != std::string::npos && !sfr_test::have_shared_matrices()) continue;  // needs ../shared
    sfr_test::expect_refused(gen(args), args, needle);
    EXPECT_FALSE(fs::exists(dir_ / "out.json")) << args;
  }
  EXPECT_EQ(gen("random --ranks 4 --seed 18446744073709551615" + o).status, 0);
}

}  // namespace

// generate suite: the same seed gives byte-identical files (traces and manifest), another seed
// another suite; every manifest entry's command regenerates its trace; every trace is valid and of
// at most 8 ranks.
TEST_F(GenerateCli, SuiteIsReproducibleFromItsSeed) {
  const bool have_mats = sfr_test::have_shared_matrices();
  const std::string mats = have_mats ? " --matrices " + kMat : "";
  for (const char* d : {"a", "b", "c"}) {
    const auto r = run(std::string("generate suite --seed ") + (d[0] == 'c' ? "8" : "7") + " -o " + (dir_ / d).string() + mats);
    ASSERT_EQ(r.status, 0) << r.err;
  }
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir_ / "a")) {
    ++files;
    EXPECT_EQ(slurp(e.path()), slurp(dir_ / "b" / e.path().filename())) << e.path().filename();
  }
  EXPECT_EQ(files, have_mats ? 18u : 9u);  // 8 patterns (+ 9 matrices) and the manifest
  EXPECT_NE(slurp(dir_ / "a/manifest.json"), slurp(dir_ / "c/manifest.json"));
  const auto m = nlohmann::json::parse(slurp(dir_ / "a/manifest.json"));
  EXPECT_EQ(m["seed"], 7);
  std::set<std::string> kinds;
  for (const auto& t : m["traces"]) {
    kinds.insert(t["kind"].get<std::string>());
    EXPECT_LE(t["ranks"].get<int>(), 8);
    const std::string f = (dir_ / "a" / t["file"].get<std::string>()).string();
    EXPECT_EQ(run("validate " + f).status, 0) << f;
    // The manifest's command, run in a fresh folder, writes the same file.
    fs::create_directories(dir_ / "again");
    const std::string cmd = t["command"].get<std::string>();
    const auto r = sh("cd " + (dir_ / "again").string() + " && " + std::string(SFR_CLI) + cmd.substr(std::string("sf-replay").size()));
    ASSERT_EQ(r.status, 0) << cmd << ": " << r.err;
    EXPECT_EQ(slurp(dir_ / "again" / t["file"].get<std::string>()), slurp(f)) << cmd;
  }
  for (const char* k : {"synthetic", "random", "stencil", "hexmesh", "scatter", "scenario"}) EXPECT_TRUE(kinds.count(k)) << k;
  if (have_mats) {
    EXPECT_TRUE(kinds.count("spmv"));
  }
}

// Every seed plans a suite its generators accept (the synthetic label draws a fresh one each run;
// seed 2094377302 once planned a hexmesh of 5 ranks on 3 cells per side).
TEST_F(GenerateCli, SuiteGeneratesForManySeeds) {
  for (const std::string seed : {"2094377302", "1",  "2",  "3",  "4",  "5",  "6",  "7",  "8",  "9",  "10", "11", "12", "13",
                                 "14",         "15", "16", "17", "18", "19", "20", "21", "22", "23", "24", "25", "26", "27",
                                 "28",         "29", "30", "31", "32", "33", "34", "35", "36", "37", "38", "39", "40"}) {
    const auto r = run("generate suite --seed " + seed + " -o " + (dir_ / ("s" + seed)).string());
    EXPECT_EQ(r.status, 0) << "seed " << seed << ": " << r.err;
    fs::remove_all(dir_ / ("s" + seed));
  }
}

TEST_F(GenerateCli, SuiteBadInput) {
  fs::create_directories(dir_ / "busy");
  write("busy/keep.txt", "x");
  sfr_test::expect_refused(run("generate suite --seed 1 -o " + (dir_ / "busy").string()), "foreign folder", "holds no suite");
  sfr_test::expect_refused(run("generate suite --seed 1 -o " + (dir_ / "s").string() + " --matrices " + (dir_ / "nope").string()),
                           "no matrices", "--matrices");
  sfr_test::expect_refused(run("generate suite -o " + (dir_ / "s").string()), "no seed", "--seed");
  EXPECT_FALSE(fs::exists(dir_ / "s"));
}

// A generator never writes a trace that does not validate: what it made is checked by the trace
// validator before it is written, and a refusal is the validator's one line, exit 2, no file.
TEST_F(GenerateCli, OutputIsValidatedBeforeItIsWritten) {
  const fs::path out = dir_ / "out.json";
  std::vector<std::string> cases = {"stencil --dims 1 --size 16 --procs 4 --ranks-per-node 4 --ranks-per-socket 3",
                                    "random --ranks 4 --seed 1 --ranks-per-node 4 --ranks-per-socket 3"};
  if (sfr_test::have_shared_matrices())
    cases.push_back("spmv --matrix " + kMat + "/dwt_992.mtx --ranks 4 --ranks-per-node 4 --ranks-per-socket 3");
  for (const auto& args : cases) {
    sfr_test::expect_refused(gen(args + " -o " + out.string()), args, out.string() + ": /machine");
    sfr_test::expect_refused(gen(args + " -o " + out.string()), args, "ranks_per_socket 3 must divide ranks_per_node 4");
    EXPECT_FALSE(fs::exists(out)) << args;
  }
}

// Random option combinations of every generator against the validator: each run either writes a
// trace that validates, or is refused with one line, exit 2 and no file.
TEST_F(GenerateCli, RandomOptionCombinationsWriteOnlyValidTraces) {
  std::mt19937_64 rng(20261126);
  auto in = [&](int lo, int hi) { return std::to_string(std::uniform_int_distribution<int>(lo, hi)(rng)); };
  auto pick = [&](std::vector<std::string> v) { return v[std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng)]; };
  const bool mats = sfr_test::have_shared_matrices();
  const fs::path out = dir_ / "out.json";
  int written = 0, refused = 0;
  for (int k = 0; k < 60; ++k) {
    const std::string kind = pick({"stencil", "hexmesh", "synthetic", "scatter", "scenario", "random", mats ? "spmv" : "random"});
    std::string a;
    if (kind == "stencil")
      a = "--dims 2 --size " + in(2, 12) + "x" + in(2, 12) + " --procs " + in(1, 3) + "x" + in(1, 3) + " --stencil " +
          pick({"star", "box"}) + " --width " + in(0, 2) + " --dof " + in(1, 2) + " --periodic " + pick({"none", "all", "x"});
    else if (kind == "hexmesh")
      a = "--cells " + in(1, 5) + " --ranks " + in(1, 9) + " --order " + pick({"sequential", "chunks"});
    else if (kind == "synthetic")
      a = "--pattern " + pick({"diagonal", "random"}) + " --ranks " + in(1, 8) + " --per-rank " + in(0, 30);
    else if (kind == "scatter")
      a = "--pattern " + pick({"par-to-par", "seq-to-par", "par-to-seq", "ring-send"}) + " --ranks " + in(1, 8) + " --per-rank " +
          in(0, 20);
    else if (kind == "scenario")
      a = "--msgs " + in(1, 8) + " --nodes " + in(1, 4) + " --size " + in(1, 256);
    else if (kind == "random")
      a = "--ranks " + in(1, 8) + " --seed " + in(0, 1000) + " --max-roots " + in(0, 9) + " --max-leaves " + in(0, 9);
    else
      a = "--matrix " + kMat + "/dwt_992.mtx --ranks " + in(1, 8) + " --partition " + pick({"rows", "nnz", "rcm"});
    a += " --ranks-per-node " + in(1, 9) + " --ranks-per-socket " + in(0, 9);
    fs::remove(out);
    const auto r = gen(kind + " " + a + " -o " + out.string());
    if (r.status == 0) {
      ++written;
      const auto v = run("validate " + out.string());
      EXPECT_EQ(v.status, 0) << kind << " " << a << " wrote a trace that does not validate: " << v.err;
    } else {
      ++refused;
      EXPECT_EQ(r.status, 2) << kind << " " << a << ": " << r.err;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << kind << " " << a << ": " << r.err;
      EXPECT_FALSE(fs::exists(out)) << kind << " " << a;
    }
  }
  EXPECT_GT(written, 5);
  EXPECT_GT(refused, 5);
}

// --seed where nothing is random does nothing, so it is an error.
TEST_F(GenerateCli, SeedThatWouldDoNothingIsAnError) {
  const std::string o = " -o " + (dir_ / "out.json").string();
  std::vector<std::pair<std::string, std::string>> cases = {
      {"hexmesh --cells 2 --ranks 2 --order chunks --seed 3", "--seed: does nothing with --order chunks"},
      {"hexmesh --cells 2 --ranks 2 --seed 3", "--seed: does nothing with --order chunks"},
      {"synthetic --pattern diagonal --ranks 2 --seed 3", "--seed: does nothing with --pattern diagonal"},
  };
  if (sfr_test::have_shared_matrices())
    cases.push_back(
        {"spmv --matrix " + kMat + "/dwt_992.mtx --ranks 2 --partition rows --seed 3", "--seed: does nothing with --partition rows"});
  for (const auto& [args, needle] : cases) {
    sfr_test::expect_refused(gen(args + o), args, needle);
    EXPECT_FALSE(fs::exists(dir_ / "out.json")) << args;
  }
  EXPECT_EQ(gen("hexmesh --cells 2 --ranks 2 --order random --seed 3" + o).status, 0);
  EXPECT_EQ(gen("synthetic --pattern random --ranks 2 --seed 3" + o).status, 0);
}

// validate takes a suite (its folder or its manifest) and checks every trace it lists; the
// manifest among the suite's files (suite/*.json) stands for its traces, each checked once.
TEST_F(GenerateCli, ValidateTakesASuite) {
  const fs::path s = dir_ / "suite";
  ASSERT_EQ(run("generate suite --seed 5 -o " + s.string()).status, 0);
  const auto m = nlohmann::json::parse(slurp(s / "manifest.json"));
  const std::size_t n = m["traces"].size();
  for (const std::string& arg : {s.string(), (s / "manifest.json").string(), s.string() + "/*.json"}) {
    const auto r = sh(std::string(SFR_CLI) + " validate " + arg);
    EXPECT_EQ(r.status, 0) << arg << ": " << r.err;
    EXPECT_EQ(static_cast<std::size_t>(std::count(r.out.begin(), r.out.end(), '\n')), n) << arg << ": " << r.out;
  }
  // A trace changed since the suite was made is named by its manifest entry.
  const std::string first = m["traces"][0]["file"];
  std::ofstream(s / first, std::ios::app) << "\n";
  const auto r = run("validate " + s.string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("manifest.json: /traces/0: " + (s / first).string() + " is not the file the suite was generated with"),
            std::string::npos)
      << r.err;
  // A folder that holds no suite.
  fs::create_directories(dir_ / "empty");
  sfr_test::expect_refused(run("validate " + (dir_ / "empty").string()), "empty folder",
                           "is a directory, not a file (nor a suite's folder: no manifest.json in it)");
}
