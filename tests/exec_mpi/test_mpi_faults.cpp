// Failures on one rank and signals under mpirun (src/cli/README.md, "Failures, signals and long runs"): the
// job ends promptly and clearly, every rank, and leaves no output, partial or whole.
//   - a fail point (SFR_FAILPOINT=NAME@RANK) on one rank, at set-up, at an op's begin or end, or
//     at writing an output: the job ends through MPI_Abort within 10 s with one line from the
//     failing rank and status 1, on backends whose other ranks wait in different places (point to
//     point, a fence, a shared-memory spin, a collective set-up);
//   - SIGINT / SIGTERM to one rank of run, calibrate and validate-model, to the launcher, and to a
//     rank that is writing its output: every rank gone within 10 s, status 128+N (the launcher's
//     own status when it was signalled), no output file and no temporary file left.
// A rank that waited for the failing one would hold the job until the test's timeout: each case
// fails then.
#include <gtest/gtest.h>

#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <set>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "support/process.hpp"

namespace fs = std::filesystem;

namespace {

// Two ranks, each with 2 roots and 2 leaves on the other rank's roots, 256 doubles a vertex (4 KiB
// messages): a bcast and a reduce.
const char* kTrace = R"({"format": "sf-trace", "version": 1, "name": "pair", "nranks": 2,
 "sfs": {"A": {"ranks": [{"nroots": 2, "remote_rank": [1, 1], "remote_index": [0, 1]},
                         {"nroots": 2, "remote_rank": [0, 0], "remote_index": [0, 1]}]}},
 "ops": [{"op": "bcast", "sf": "A", "unit": "float64", "bs": 256, "mpi_op": "replace", "memtype": "host", "repeat": 1, "overlap_us": 0},
         {"op": "reduce", "sf": "A", "unit": "float64", "bs": 256, "mpi_op": "sum", "memtype": "host", "repeat": 1, "overlap_us": 0}]})";

class MpiFaults : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("sfr_faults_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "store");
    std::ofstream(dir_ / "pair.json") << kTrace;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dir_str() const { return dir_.string(); }
  std::string trace() const { return (dir_ / "pair.json").string(); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  // `env` (VAR=VALUE ...) mpiexec -n 2 sf-replay ARGS, in the background, with the launcher's own
  // second between SIGTERM and SIGKILL as users have it (the suite's mpiexec has none).
  std::unique_ptr<sfr_test::Background> start(const std::string& args, const std::string& env = "") const {
    return std::make_unique<sfr_test::Background>("env OMPI_MCA_odls_base_sigkill_timeout=1 " + env + " " + sfr_test::mpiexec(2) + SFR_CLI + " " +
                                                  args);
  }
  // The files the command left in the test's folder and its store, but the trace.
  // (Polled while the command runs, a file may vanish as it is listed: an output folder's probe
  // file, a temporary file moved into place. The listing skips it rather than throwing.)
  std::set<std::string> left() const {
    std::set<std::string> s;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
      std::error_code gone;
      if (it->is_regular_file(gone) && it->path().filename() != "pair.json") s.insert(it->path().lexically_relative(dir_).string());
    }
    return s;
  }
  // Waits until the command runs its ranks (2 children of mpiexec), then `settle` seconds more.
  static std::vector<pid_t> ranks_running(const sfr_test::Background& b, double settle) {
    std::vector<pid_t> ranks;
    for (int k = 0; k < 1500 && ranks.size() < 2; ++k) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      ranks = sfr_test::children_of(b.pid());
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(settle));
    return ranks;
  }
  // Waits (up to 30 s) until a file whose name starts with `prefix` is in the test's folder.
  // Within 2 minutes (calibrate reaches its write in about a second, 30 s and more under ASan on
  // a loaded machine).
  bool temporary_appears(const std::string& prefix) const {
    for (int k = 0; k < 6000; ++k) {
      for (const auto& f : left())
        if (f.find(prefix) == 0) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
  fs::path dir_;
};

struct FailCase {
  const char* point;  // NAME@RANK
  const char* backend;
};

void PrintTo(const FailCase& c, std::ostream* os) { *os << c.point << " on " << c.backend; }

class FailPoints : public MpiFaults, public ::testing::WithParamInterface<FailCase> {};

}  // namespace

// One rank fails at a fail point: the job ends within 10 s, status 1, the failing rank's line
// once, and none of the three outputs exists (they appear together at the end, or not at all).
TEST_P(FailPoints, EndTheJobPromptlyAndLeaveNoOutput) {
  const auto& c = GetParam();
  const std::string point(c.point), name = point.substr(0, point.find('@')), rank = point.substr(point.find('@') + 1);
  const std::string nodes = std::string(c.backend) == "split-md" ? " --ranks-per-node 1" : "";
  auto run = start("run " + trace() + " --backend " + c.backend + nodes + " --dump " + path("d.json") + " --timing " + path("t.json") +
                       " --store " + path("store"),
                   std::string("SFR_FAILPOINT=") + c.point);
  const int status = run->wait_for(60);
  ASSERT_NE(status, sfr_test::Background::kRunning) << c.point << " on " << c.backend << ": the other rank waits\n" << run->output();
  EXPECT_LT(run->seconds_since_start(), 10) << run->output();
  EXPECT_EQ(status, 1) << run->output();
  const std::string line = "sf-replay run: internal error: rank " + rank + ": fail point '" + name + "' reached (SFR_FAILPOINT)";
  EXPECT_EQ(sfr_test::occurrences(run->output(), line), 1u) << run->output();
  EXPECT_EQ(left(), std::set<std::string>{}) << run->output();
}

INSTANTIATE_TEST_SUITE_P(Mpi, FailPoints,
                         ::testing::Values(FailCase{"setup@1", "basic"}, FailCase{"setup@0", "window"}, FailCase{"setup@1", "shm"},
                                           FailCase{"begin@1", "basic"}, FailCase{"begin@1", "window"}, FailCase{"begin@0", "shm"},
                                           FailCase{"begin@1", "neighbor"}, FailCase{"begin@1", "split-md"}, FailCase{"end@1", "basic"},
                                           FailCase{"end@0", "window"}, FailCase{"end@1", "shm"}, FailCase{"end@1", "alltoallv"},
                                           FailCase{"write@0", "basic"}),
                         [](const auto& info) {
                           std::string s = std::string(info.param.point) + "_" + info.param.backend;
                           for (char& ch : s)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return s;
                         });

// validate-model's and calibrate's outputs, the same way (calibrate times the executor's ops too).
TEST_F(MpiFaults, FailPointsEndValidateModelAndCalibrate) {
  auto vm = start("validate-model " + trace() + " --machine generic --backend basic,shm --json " + path("m.json") + " --store " +
                      path("store"),
                  "SFR_FAILPOINT=write@0");
  ASSERT_NE(vm->wait_for(60), sfr_test::Background::kRunning) << vm->output();
  EXPECT_EQ(vm->wait_for(0), 1) << vm->output();
  EXPECT_EQ(sfr_test::occurrences(vm->output(), "internal error: rank 0: fail point 'write'"), 1u) << vm->output();
  auto cal = start("calibrate --no-default -o " + path("machine.json"), "SFR_FAILPOINT=begin@1");
  ASSERT_NE(cal->wait_for(120), sfr_test::Background::kRunning) << cal->output();
  EXPECT_EQ(cal->wait_for(0), 1) << cal->output();
  EXPECT_EQ(sfr_test::occurrences(cal->output(), "internal error: rank 1: fail point 'begin'"), 1u) << cal->output();
  EXPECT_EQ(left(), std::set<std::string>{}) << vm->output() << cal->output();
}

// An MPI call that MPI refuses (fail point mpi-error: a send to rank 2 of 2) is returned to the
// executor, not Open MPI's abort: one line naming the call, MPI's text and the rank; status 1; no
// output.
TEST_F(MpiFaults, AnMpiErrorIsOneLineNamingTheCallAndTheRank) {
  for (const char* rank : {"0", "1"}) {
    auto run = start("run " + trace() + " --backend basic --timing " + path("t.json"), std::string("SFR_FAILPOINT=mpi-error@") + rank);
    ASSERT_NE(run->wait_for(60), sfr_test::Background::kRunning) << run->output();
    EXPECT_EQ(run->wait_for(0), 1) << run->output();
    const std::string line = std::string("sf-replay run: MPI error: rank ") + rank + ": MPI_Send: MPI_ERR_RANK: invalid rank";
    EXPECT_EQ(sfr_test::occurrences(run->output(), line), 1u) << run->output();
    EXPECT_EQ(left(), std::set<std::string>{}) << run->output();
  }
}

TEST_F(MpiFaults, AMalformedFailPointIsBadInput) {
  for (const char* bad : {"begn@1", "begin", "begin@", "begin@-1", "begin@x"}) {
    auto run = start("run " + trace() + " --backend basic", std::string("SFR_FAILPOINT=") + bad);
    ASSERT_EQ(run->wait_for(60), 2) << bad << ": " << run->output();
    EXPECT_EQ(sfr_test::occurrences(run->output(), "error: SFR_FAILPOINT: '" + std::string(bad) + "' is not NAME@RANK"), 1u)
        << run->output();
  }
}

struct SignalCase {
  int sig;
  const char* command;  // run, calibrate, validate-model
};

void PrintTo(const SignalCase& c, std::ostream* os) { *os << "signal " << c.sig << " to " << c.command; }

class RankSignals : public MpiFaults, public ::testing::WithParamInterface<SignalCase> {};

// A signal to one rank in the middle of a long run: mpirun reports it as 128+N, the other rank
// is ended with it within 10 s, and there is no output. (calibrate at 2 ranks takes about a second:
// it is signalled while rank 0 writes the machine file, held there by the fail point stall-write.)
TEST_P(RankSignals, EndEveryRankWithTheSignalsStatus) {
  const auto& c = GetParam();
  const std::string cmd(c.command);
  const std::string args = cmd == "run"         ? "run " + trace() + " --backend basic --iters 100000000 --timing " + path("t.json")
                           : cmd == "calibrate" ? "calibrate --no-default -o " + path("machine.json")
                                                : "validate-model " + trace() + " --machine generic --iters 100000000 --json " + path("m.json");
  auto job = start(args, cmd == "calibrate" ? "SFR_FAILPOINT=stall-write@0" : "");
  const auto ranks = ranks_running(*job, 1.5);
  ASSERT_EQ(ranks.size(), 2u) << job->output();
  if (cmd == "calibrate") {
    EXPECT_TRUE(temporary_appears(".machine.json.tmp.")) << job->output();
  }
  ASSERT_EQ(job->wait_for(0), sfr_test::Background::kRunning) << job->output();
  ::kill(ranks[1], c.sig);
  const int status = job->wait_for(10);
  ASSERT_NE(status, sfr_test::Background::kRunning) << "still running 10 s after the signal\n" << job->output();
  EXPECT_EQ(status, 128 + c.sig) << job->output();
  EXPECT_EQ(sfr_test::still_alive_after(ranks, 10), std::vector<pid_t>{}) << "ranks still running 10 s after the launcher ended";
  EXPECT_EQ(left(), std::set<std::string>{}) << job->output();
}

INSTANTIATE_TEST_SUITE_P(Mpi, RankSignals,
                         ::testing::Values(SignalCase{SIGINT, "run"}, SignalCase{SIGTERM, "run"}, SignalCase{SIGTERM, "calibrate"},
                                           SignalCase{SIGINT, "validate_model"}),
                         [](const auto& info) {
                           return std::string(info.param.command) + (info.param.sig == SIGINT ? "_SIGINT" : "_SIGTERM");
                         });

// SIGTERM to the launcher (what a batch system's cancel or a Ctrl-C reaches): it ends the ranks
// (SIGTERM from Open MPI's mpirun) within 10 s and exits non-zero (Open MPI's mpirun says 1);
// nothing is written.
TEST_F(MpiFaults, ASignalToTheLauncherEndsEveryRank) {
  auto job = start("run " + trace() + " --backend shm --iters 100000000 --timing " + path("t.json"));
  const auto ranks = ranks_running(*job, 1.5);
  ASSERT_EQ(ranks.size(), 2u) << job->output();
  ::kill(job->pid(), SIGTERM);
  const int status = job->wait_for(10);
  ASSERT_NE(status, sfr_test::Background::kRunning) << job->output();
  EXPECT_NE(status, 0) << job->output();
  EXPECT_EQ(sfr_test::still_alive_after(ranks, 10), std::vector<pid_t>{}) << "ranks still running 10 s after the launcher ended";
  EXPECT_EQ(left(), std::set<std::string>{}) << job->output();
}

// A signal while rank 0 writes the timing document (the fail point stall-write holds it between
// writing the temporary file and moving it into place): the temporary file is removed.
TEST_F(MpiFaults, ASignalWhileWritingLeavesNoTemporaryFile) {
  auto job = start("run " + trace() + " --backend basic --timing " + path("t.json"), "SFR_FAILPOINT=stall-write@0");
  const auto ranks = ranks_running(*job, 0);
  ASSERT_EQ(ranks.size(), 2u) << job->output();
  ASSERT_TRUE(temporary_appears(".t.json.tmp.")) << "no temporary file appeared\n" << job->output();
  ::kill(ranks[0], SIGTERM);
  const int status = job->wait_for(10);
  ASSERT_NE(status, sfr_test::Background::kRunning) << job->output();
  EXPECT_EQ(status, 128 + SIGTERM) << job->output();
  EXPECT_EQ(left(), std::set<std::string>{}) << job->output();
}

// A long run keeps a bounded sample of its iterations (core::kSampleCap, 65,536): the timing
// document says when its percentiles come from a sample, and its minimum, maximum and mean are
// over every iteration (checked against the samples it kept); a short run keeps every iteration,
// and its median is theirs.
TEST_F(MpiFaults, LongRunsKeepABoundedSampleOfTheirIterations) {
  for (const int iters : {50, 70000}) {
    auto job = start("run " + trace() + " --backend basic --warmup 0 --iters " + std::to_string(iters) + " --timing " + path("t.json"));
    ASSERT_EQ(job->wait_for(120), 0) << job->output();
    const auto doc = nlohmann::json::parse(sfr_test::slurp(dir_ / "t.json"));
    EXPECT_EQ(doc["iters"], iters);
    for (const auto& r : doc["results"]) {
      const auto samples = r["samples_us"].get<std::vector<double>>();
      const double lo = r["min_us"], hi = r["max_us"], mean = r["mean_us"];
      EXPECT_EQ(samples.size(), std::min<std::size_t>(iters, 65536)) << iters;
      EXPECT_EQ(r["samples_exact"].get<bool>(), iters <= 65536) << iters;
      EXPECT_LE(lo, *std::min_element(samples.begin(), samples.end()));
      EXPECT_GE(hi, *std::max_element(samples.begin(), samples.end()));
      EXPECT_LE(lo, mean);
      EXPECT_LE(mean, hi);
      if (iters <= 65536) {
        auto s = samples;
        std::sort(s.begin(), s.end());
        EXPECT_DOUBLE_EQ(r["median_us"].get<double>(), 0.5 * (s[s.size() / 2 - 1] + s[s.size() / 2]));
        EXPECT_DOUBLE_EQ(lo, s.front());
        EXPECT_DOUBLE_EQ(hi, s.back());
        EXPECT_NEAR(mean, std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(s.size()), 1e-9 * hi);
      }
    }
    if (iters > 65536) {
      EXPECT_NE(job->output().find("median and p20 from a uniform sample of 65536"), std::string::npos) << job->output();
    }
    fs::remove(dir_ / "t.json");
  }
}

// What the samples will hold is estimated before the run: 2 ops x 9 backends x 65,536 samples
// (8 bytes each, 32 on rank 0 with its document's text) is 36 MiB per node, refused under 4 MiB.
TEST_F(MpiFaults, TheSamplesAreInTheMemoryEstimate) {
  auto job = start("run " + trace() + " --backend all --iters 100000000 --max-memory 4M");
  ASSERT_EQ(job->wait_for(60), 2) << job->output();
  EXPECT_EQ(sfr_test::occurrences(job->output(), "--iters: would build the timing samples of 2 op(s) on 9 backend(s): about 36.0 MiB"), 1u)
      << job->output();
}

// --stall-timeout's line, its numbers checked against the clock: rank 1 sleeps at its first op's
// begin (fail point stall-begin, 60 s), so rank 0 makes no progress in op 0 waiting for rank 1's
// messages; after the timeout (2 s) rank 0 says so once, naming the op, the backend and rank 1,
// and the job ends with status 1 — not before 2 s, and long before rank 1 would wake.
TEST_F(MpiFaults, TheStallLineSaysTheTimeoutTheOpAndTheRankWaitedFor) {
  const auto t0 = std::chrono::steady_clock::now();
  auto job = start("run " + trace() + " --backend basic --stall-timeout 2 --timing " + path("t.json"), "SFR_FAILPOINT=stall-begin@1");
  const int status = job->wait_for(40);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(status, 1) << job->output();
  EXPECT_EQ(sfr_test::occurrences(job->output(), "sf-replay run: error: rank 0: no progress for 2 s in op 0 (bcast A) on basic, waiting for "
                                                 "rank 1 (--stall-timeout)"),
            1u)
      << job->output();
  EXPECT_GE(took, 2.0) << job->output();
  EXPECT_LT(took, 30.0) << job->output();
  EXPECT_EQ(left(), std::set<std::string>{}) << job->output();
}

// A run that makes progress all along is never taken for stalled, however long it lasts: 3 s of
// iterations of 300 ms each (compute between the op's begin and end: longer than the watch's
// 100 ms poll, so that most polls see no new progress, shorter than the timeout) under a
// --stall-timeout of 1 s finish with status 0 and the timing document: the watch counts the
// timeout from the last progress, not from the start of the op.
TEST_F(MpiFaults, ARunLongerThanTheStallTimeoutThatProgressesFinishes) {
  const std::string slow = R"({"format": "sf-trace", "version": 1, "name": "slow", "nranks": 2,
 "sfs": {"A": {"ranks": [{"nroots": 2, "remote_rank": [1, 1], "remote_index": [0, 1]},
                         {"nroots": 2, "remote_rank": [0, 0], "remote_index": [0, 1]}]}},
 "ops": [{"op": "bcast", "sf": "A", "unit": "float64", "overlap_us": 300000}]})";
  std::ofstream(dir_ / "slow.json") << slow;
  const auto t0 = std::chrono::steady_clock::now();
  auto job = start("run " + path("slow.json") + " --backend basic --warmup 0 --iters 10 --stall-timeout 1 --timing " + path("t.json"));
  ASSERT_EQ(job->wait_for(120), 0) << job->output();
  EXPECT_GT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 3.0) << "the run must outlast the timeout";
  EXPECT_EQ(job->output().find("--stall-timeout"), std::string::npos) << job->output();
  EXPECT_TRUE(fs::exists(dir_ / "t.json"));
}
