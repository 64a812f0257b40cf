// Bounded resources and an honest command line (issue 16), through the sf-replay binary: inputs that
// would need more memory than the limit are refused from estimates (exit 2, one line) before
// anything is built, under `ulimit -v` so that a regression fails fast instead of swapping;
// options that would do nothing are refused; every file is reported.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/cli_fixture.hpp"
#include "support/sample_traces.hpp"

namespace fs = std::filesystem;

namespace {

using Cli = sfr_test::CliTest;

using sfr_test::kSample;

// AddressSanitizer reserves terabytes of address space: no address-space limit under it (every
// refusal is still checked there).
#if defined(__SANITIZE_ADDRESS__)
const std::string kLimit1G, kLimit120M;
#else
const std::string kLimit1G = "ulimit -v 1000000; ";
const std::string kLimit120M = "ulimit -v 120000; ";
#endif

size_t lines(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }

// A pattern trace of 4 ranks whose allgather has 10^9 roots on rank 0: 4*10^9 leaves once built.
const char* kHugePattern = R"({"name": "p", "nranks": 4, "sfs": {"P": {"pattern": "allgather", "nroots": [1000000000, 0, 0, 0]}},
  "ops": [{"op": "bcast", "sf": "P", "unit": "float64"}]})";
// One leaf, 10^12 roots: a tiny graph whose root buffer would take 8 TB.
const char* kHugeRoots = R"({"name": "r", "nranks": 2, "sfs": {"A": {"ranks": [
  {"nroots": 1000000000000, "remote_rank": [0], "remote_index": [5]}, {"nroots": 0, "remote_rank": [], "remote_index": []}]}},
  "ops": [{"op": "bcast", "sf": "A", "unit": "float64"}]})";

}  // namespace

TEST_F(Cli, HugeTracesAreRefusedOrCheckedWithoutBuilding) {
  const auto pat = write("pattern.json", kHugePattern).string();
  const auto roots = write("roots.json", kHugeRoots).string();
  const auto deep = write("deep.json", std::string(200000, '[')).string();
  // Validation needs neither the pattern's leaves nor the root buffers.
  for (const auto& f : {pat, roots}) {
    const auto r = sh(kLimit1G + SFR_CLI + " validate " + f);
    EXPECT_EQ(r.status, 0) << f << ": " << r.err;
  }
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"validate " + deep, "deep.json: /0/0/0/0/0/0/0/0/...: nested deeper than 64 levels"},
      {"run --reference " + pat, "/sfs/P: would build pattern allgather with 4e+09 leaves: about 119.2 GiB, over the memory limit"},
      {"simulate " + pat, "/sfs/P: would build pattern allgather with 4e+09 leaves"},
      {"compare " + pat, "/sfs/P: would build pattern allgather with 4e+09 leaves"},
      {"inspect " + pat, "/sfs/P: would build pattern allgather with 4e+09 leaves"},
      {"report " + pat + " -o " + (dir_ / "r.md").string(), "/sfs/P: would build pattern allgather"},
      {"run --reference " + roots, "/ops/0: would build the data arrays of 1 op on all ranks: about 7.3 TiB"},  // 10^12 roots x 8 bytes
      {"report --reference " + roots + " -o " + (dir_ / "r.md").string(), "/ops/0: would build the data arrays"},
      {"check " + roots + " " + kSample, "/ops/0: would build the data arrays"},
      {
          "validate " + kSample + " --max-memory 1K",
          "would build",
      },
      {"validate " + kSample + " --max-memory 0", "--max-memory: must be more than 0"},
      // The graphs fit, the simulator's plans (up to 128 bytes per leaf of each op) do not.
      {"simulate " + kSample + " --max-memory 20K", "/ops/"},
  };
  for (const auto& [args, want] : refused) sfr_test::expect_refused(sh(kLimit1G + SFR_CLI + " " + args), args, want);
  EXPECT_FALSE(fs::exists(dir_ / "r.md"));
}

// The reader streams the file and packs its numbers: a 26 MB trace (3.2 million leaves) is read
// under a 120 MB address-space limit (the whole-document reader needed about twice that).
TEST_F(Cli, LargeTraceReadsInBoundedMemory) {
  const auto big = (dir_ / "big.json").string();
  ASSERT_EQ(run("generate random --ranks 16 --seed 3 --max-roots 400000 --max-leaves 400000 -o " + big).status, 0);
  ASSERT_GT(fs::file_size(big), 20'000'000u);
  const auto r = sh(kLimit120M + SFR_CLI + " validate " + big);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("valid sf-trace v1 (16 ranks, 1 SFs, 6 ops)"), std::string::npos) << r.out;
}

TEST_F(Cli, OptionsThatWouldDoNothingAreRefused) {
  const std::string out = (dir_ / "o.json").string();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"run --reference " + kSample + " --timing " + out, "--timing: the reference executor is not timed"},
      {"run --reference " + kSample + " --iters 3", "--iters: the reference executor is not timed"},
      {"run --reference " + kSample + " --warmup 1", "--warmup: the reference executor is not timed"},
      {"run --reference " + kSample + " --iters 0 --timing " + out, "--iters: must be >= 1"},
      {"run --reference " + kSample + " --iters -1", "--iters: must be >= 1"},
      {"report " + kSample + " -o " + (dir_ / "r.md").string() + " --dump " + out, "--dump: only a run writes a dump: add --reference"},
      {"compare " + kSample + " --analytic", "--analytic: takes no trace"},
      {"compare --messages 5", "--messages: applies only with --analytic"},
      {"compare --analytic --max-memory 1G", "--max-memory: applies to a trace"},
      {"run --reference " + kSample + " --dump " + (dir_ / "none" / "d.json").string(), "--dump: cannot write"},
      {"simulate " + kSample + " --json " + (dir_ / "none" / "s.json").string(), "--json: cannot write"},
      {"simulate " + kSample + " --timeline " + dir_.string(), "--timeline: '" + dir_.string() + "' is a folder, not a file"},
      {"inspect " + kSample + " -o " + (dir_ / "none" / "i.txt").string(), "--output: cannot write"},
  };
  for (const auto& [args, want] : cases) sfr_test::expect_refused(run(args), args, want);
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(dir_ / "r.md"));
}

TEST_F(Cli, ValidateReportsEveryFile) {
  const auto bad = write("bad.json", R"({"name": "x", "nranks": 0, "sfs": {}, "ops": []})").string();
  const auto pat = write("pattern.json", kHugePattern).string();
  const auto r = run("validate " + kSample + " " + bad + " " + dir_.string() + " " + pat + " " + (dir_ / "none.json").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(lines(r.out), 2u) << r.out;
  EXPECT_NE(r.out.find(kSample + ": valid"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(pat + ": valid"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find(bad + ": /nranks: a rank count 0 is out of range"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(dir_.string() + ": is a directory, not a file"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("none.json: no such file"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("3 of 5 traces are invalid"), std::string::npos) << r.err;
  EXPECT_EQ(lines(r.err), 4u) << r.err;
}

TEST_F(Cli, FilesThatAreNotTracesOrMatricesSaySo) {
  const auto empty = write("empty.json", "").string();
  const auto bin = write("bin.json", std::string("\x7f"
                                                 "ELF\x02",
                                                 5))
                       .string();
  const auto mtx = write("empty.mtx", "").string();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"validate " + empty, "empty.json: is empty (expected JSON text)"},
      {"validate " + bin, "bin.json: is not JSON text (byte 0x7f at offset 0)"},
      {"validate " + dir_.string(), "is a directory, not a file"},
      {"simulate " + kSample + " --machine " + empty, "empty.json: is empty"},
      {"generate spmv --matrix " + mtx + " --ranks 2 -o " + (dir_ / "s.json").string(), "empty.mtx: is empty (expected a Matrix Market"},
      {"generate spmv --matrix " + dir_.string() + " --ranks 2 -o " + (dir_ / "s.json").string(), "is a directory, not a matrix file"},
  };
  for (const auto& [args, want] : cases) sfr_test::expect_refused(run(args), args, want);
}
