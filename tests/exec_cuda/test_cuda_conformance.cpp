// The CUDA executor end to end: `mpiexec -n P sf-replay run TRACE --backend cuda-* --dump D` on
// the sample traces and on seeded random forests running every op x unit x legal mpi_op x bs in
// {1,3}, with every op's data in device memory and with mixed memtypes (roots on the GPU and leaves
// on the host, and the reverse), plus a duplicate-root stress test (thousands of leaves on one root:
// the atomics and vertex locks), each dump checked against the serial reference semantics.
// Each runs on a real GPU (the "Cuda*" suites; they skip, saying why, without one) and on the
// emulated device (the "EmulatedDevice*" suites, SFR_EMULATE_DEVICE=SEED under several delay seeds:
// the same transport code over streams that run their work late, in every CI run). Without a GPU
// and without emulation the cuda-* backends must refuse with one line and exit status 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "exec/cuda/runtime.hpp"
#include "exec/dump_check.hpp"
#include "exec/mpi/runner.hpp"
#include "support/process.hpp"
#include "support/random_trace.hpp"
#include "support/sample_traces.hpp"
#include "trace/reader.hpp"
#include "trace/writer.hpp"

namespace fs = std::filesystem;
using namespace sfr;

namespace {

const std::vector<std::string> kTransports = {"cuda-staged", "cuda-aware", "cuda-ipc"};

// `seed` > 0: on the emulated device with that delay seed; 0: on the real device. `env`: more
// VAR=VALUE settings for the run.
sfr_test::Proc mpirun(int np, const std::string& args, unsigned seed = 0, const std::string& more_env = "") {
  const std::string env =
      seed || !more_env.empty() ? "env " + (seed ? "SFR_EMULATE_DEVICE=" + std::to_string(seed) + " " : "") + more_env + " " : "";
  return sfr_test::run_command(env + sfr_test::mpiexec(np) + SFR_CLI + " " + args, 300);
}

// Memtype variants: every op on the GPU, roots on the GPU only, leaves on the GPU only.
const char* const kMemtypes[] = {R"("device")", R"({"root": "device", "leaf": "host"})", R"({"root": "host", "leaf": "device"})"};

fs::path tmp(const std::string& what) { return fs::temp_directory_path() / ("sfr_cuda_" + std::to_string(::getpid()) + "_" + what); }

// A copy of a trace with every op's memtype set. ordered_json keeps the objects' key order: the
// format is order-sensitive (an SF must come before the derived SFs that name it, spec 2.1).
fs::path with_memtype(const fs::path& trace, const std::string& memtype, const std::string& tag) {
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(sfr_test::slurp(trace));
  for (auto& op : j["ops"]) op["memtype"] = nlohmann::ordered_json::parse(memtype);
  const fs::path out = tmp(tag + ".json");
  std::ofstream(out) << j.dump();
  return out;
}

// Whether the MPI library takes device pointers, asked of the MPI itself (tests/exec_cuda/
// aware_probe.cpp: a raw device-buffer send between 2 ranks), never of sf-replay's cuda-aware
// transport: where the MPI takes them, a cuda-aware run that fails is a failure, not a skip.
bool aware_mpi() {
  static const int status = sfr_test::run_command(sfr_test::mpiexec(2) + SFR_AWARE_PROBE).status;
  return status == 0;
}

// `backends`: one, or several in one launch ("cuda-staged,cuda-ipc"; a launch costs 0.4 s): the
// executor checks each one's dump against the reference and says so per backend; the test
// requires each line (where there are several) and checks the dump written (the first backend's)
// itself. A node-aware backend or shm among them takes --ranks-per-node from `backends`
// ("shm,3step --ranks-per-node 2").
void conforms(const fs::path& trace_file, const std::string& backends, unsigned seed = 0, const std::string& env = "") {
  const auto t = trace::read_trace_file(trace_file.string());
  const fs::path dump = tmp("dump_" + std::to_string(std::hash<std::string>{}(backends)) + ".json");
  const auto r = mpirun(t.trace().nranks, "run " + trace_file.string() + " --backend " + backends + " --dump " + dump.string(), seed, env);
  ASSERT_EQ(r.status, 0) << backends << (seed ? " (emulated, seed " + std::to_string(seed) + ")" : "") << " on " << trace_file << ":\n"
                         << r.out;
  std::istringstream list(backends.substr(0, backends.find(' ')));
  for (std::string b; list.str().find(',') != std::string::npos && std::getline(list, b, ',');)  // several: each said
    EXPECT_EQ(sfr_test::occurrences(r.out, "backend " + b + ": " + std::to_string(t.trace().ops.size()) + " ops conform to the reference"),
              1u)
        << b << " on " << trace_file << ":\n"
        << r.out;
  const auto res = exec::check_dump(t, sfr_test::slurp(dump), dump.string());
  EXPECT_TRUE(res.ok()) << backends << " on " << trace_file << ": " << res.problems.size() << " problems, first: " << res.problems.front();
  EXPECT_EQ(res.ops_checked, t.trace().ops.size());
  fs::remove(dump);
}

#define SKIP_WITHOUT_GPU()                                    \
  do {                                                        \
    const std::string why = exec::cuda::no_gpu_reason();      \
    if (!why.empty()) GTEST_SKIP() << "needs a GPU: " << why; \
  } while (0)
#define SKIP_UNLESS_RUNNABLE(transport)                                                                       \
  do {                                                                                                        \
    SKIP_WITHOUT_GPU();                                                                                       \
    if (std::string(transport) == "cuda-aware" && !aware_mpi()) GTEST_SKIP() << "this MPI is not CUDA-aware"; \
  } while (0)

std::string name_of(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

}  // namespace

// Runs in every CI run (no GPU there): a cuda-* backend refuses with one line, naming the way out.
TEST(CudaBadInput, NoGpuIsOneLineAndExitTwo) {
  if (exec::cuda::no_gpu_reason().empty()) GTEST_SKIP() << "a GPU is present; the refusal is for machines without one";
  for (const std::string& b : kTransports) {
    const fs::path dump = tmp("refused.json");
    const auto r4 =
        mpirun(4, "run " + (fs::path(SFR_TRACES_DIR) / "handmade-4.json").string() + " --backend " + b + " --dump " + dump.string());
    EXPECT_EQ(r4.status, 2) << b << ": " << r4.out;
    EXPECT_EQ(sfr_test::occurrences(r4.out, std::string("sf-replay run: error: --backend: ") + b + ": no CUDA device"), 1u) << r4.out;
    EXPECT_FALSE(fs::exists(dump)) << b;
    // No GPU is said as such, not as the runtime's "driver version is insufficient".
    EXPECT_EQ(r4.out.find("insufficient"), std::string::npos) << r4.out;
  }
}

// Without a device the probe answers "not aware" (status 2) instead of crashing; with the emulated
// device, whose memory any MPI reads, it answers "aware", as sf-replay's emulated cuda-aware runs.
TEST(CudaBadInput, AwareProbeAsksTheMpi) {
  if (exec::cuda::no_gpu_reason().empty()) GTEST_SKIP() << "a GPU is present; the probe's answer depends on the MPI library";
  EXPECT_EQ(sfr_test::run_command(sfr_test::mpiexec(2) + SFR_AWARE_PROBE).status, 2);
  EXPECT_EQ(sfr_test::run_command("env SFR_EMULATE_DEVICE=7 " + sfr_test::mpiexec(2) + SFR_AWARE_PROBE).status, 0);
}

// A malformed SFR_EMULATE_DEVICE is bad input: one line naming the variable, exit 2, no dump.
TEST(CudaBadInput, MalformedEmulationSeedIsOneLine) {
  // cuda-ipc, and a host backend on a trace with an op in device memory (handmade-4); the seed
  // malformed on every rank, and for the host backend on rank 2 alone (the others have no device
  // and run that op in host memory; rank 0 says rank 2's error).
  for (const char* backend : {"cuda-ipc", "basic"})
    for (const bool one_rank : {false, true}) {
      if (one_rank && std::string(backend) == "cuda-ipc") continue;  // the others refuse it too: no GPU
      const fs::path dump = tmp("refused-seed.json");
      const std::string trace = (fs::path(SFR_TRACES_DIR) / "handmade-4.json").string(),
                        args = std::string(" run ") + trace + " --backend " + backend + " --dump " + dump.string();
      const std::string cmd = one_rank ? sfr_test::mpiexec(2) + SFR_CLI + args + " : -n 1 env SFR_EMULATE_DEVICE=12x " + SFR_CLI + args +
                                             " : -n 1 " + SFR_CLI + args
                                       : "env SFR_EMULATE_DEVICE=12x " + sfr_test::mpiexec(4) + SFR_CLI + args;
      const auto r = sfr_test::run_command(cmd, 120);
      EXPECT_EQ(r.status, 2) << backend << ": " << r.out;
      EXPECT_EQ(sfr_test::occurrences(r.out, std::string("sf-replay run: error: ") + (one_rank ? "rank 2: " : "") +
                                                 "SFR_EMULATE_DEVICE: expected a seed (an unsigned integer), got \"12x\""),
                1u)
          << backend << ": " << r.out;
      EXPECT_FALSE(fs::exists(dump));
    }
}

class CudaSample : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

// Every sample trace of at most 8 ranks, per transport and memtype variant.
TEST_P(CudaSample, Conforms) {
  const auto& [transport, m] = GetParam();
  SKIP_UNLESS_RUNNABLE(transport);
  for (const auto& p : sfr_test::sample_traces(8)) {
    const fs::path t = with_memtype(p, kMemtypes[m], p.stem().string());
    conforms(t, transport);
    fs::remove(t);
  }
}

// Seeded random forests (holes, degree-0 and high-degree roots, empty ranks, self edges) on 1..8
// ranks, every op x unit x legal mpi_op x bs {1,3}.
TEST_P(CudaSample, RandomForestsConform) {
  const auto& [transport, m] = GetParam();
  SKIP_UNLESS_RUNNABLE(transport);
  for (int nranks : {1, 2, 3, 5, 8}) {
    const fs::path p = tmp("random.json");
    trace::write_trace_file(sfr_test::sweep_trace(sfr_test::random_graph(nranks, 2000u + static_cast<unsigned>(nranks)), "random"),
                            p.string());
    const fs::path t = with_memtype(p, kMemtypes[m], "random-mem");
    conforms(t, transport);
    fs::remove(p);
    fs::remove(t);
  }
}

INSTANTIATE_TEST_SUITE_P(Cuda, CudaSample, ::testing::Combine(::testing::ValuesIn(kTransports), ::testing::Values(0, 1, 2)),
                         [](const auto& info) {
                           return name_of(std::get<0>(info.param)) + "_mem" + std::to_string(std::get<1>(info.param));
                         });

// Thousands of leaves on one root: 4 ranks with 3000 leaves each on root 0 of rank 0 and a few on
// other roots (the evidence's hot-root trace), every op x unit x legal mpi_op x bs {1,3} with the
// memtype variant m: many leaves meeting one root (atomics and vertex locks under contention on a
// GPU; on the emulated device, long kernels that a missing synchronisation lets a peer overtake).
fs::path hot_root_trace(int m) {
  core::Graph g(4);
  for (int r = 0; r < 4; ++r) {
    g[r].nroots = 3;
    for (core::Index j = 0; j < 3000; ++j) g[r].add_leaf(j, 0, 0);
    for (core::Index j = 0; j < 40; ++j) g[r].add_leaf(3000 + j, (r + 1) % 4, j % 3);
  }
  auto t = sfr_test::sweep_trace(g, "hot-root");
  for (auto& op : t.ops) {
    op.root_mem = m == 2 ? core::MemType::host : core::MemType::device;
    op.leaf_mem = m == 1 ? core::MemType::host : core::MemType::device;
  }
  const fs::path p = tmp("hot-root-" + std::to_string(m) + ".json");
  trace::write_trace_file(t, p.string());
  return p;
}

TEST(CudaAtomics, ThousandsOfLeavesOnOneRoot) {
  SKIP_WITHOUT_GPU();
  for (int m : {0, 1, 2}) {
    const fs::path p = hot_root_trace(m);
    for (const char* b : {"cuda-staged", "cuda-ipc"}) conforms(p, b);
    fs::remove(p);
  }
}

// Ranks sharing a GPU without MPS get one warning with the cost and the way out; with MPS, one rank
// per GPU, or the emulated device, nothing is said.
TEST(GpuPlacement, SharingWithoutMpsIsWarnedWithTheRemedy) {
  exec::mpi::GpuPlacement p;
  p.device = "NVIDIA H100 80GB HBM3";
  p.gpus = 1;
  p.ranks_per_gpu = 4;
  const std::string w = exec::mpi::gpu_sharing_warning(p);
  EXPECT_NE(w.find("4 ranks share one GPU (NVIDIA H100 80GB HBM3)"), std::string::npos) << w;
  EXPECT_NE(w.find("nvidia-cuda-mps-control -d"), std::string::npos) << w;
  EXPECT_NE(w.find("ms"), std::string::npos) << w;
  p.mps = true;
  EXPECT_EQ(exec::mpi::gpu_sharing_warning(p), "");
  p.mps = false;
  p.ranks_per_gpu = 1;
  EXPECT_EQ(exec::mpi::gpu_sharing_warning(p), "");
  p.ranks_per_gpu = 4;
  p.emulated = true;
  EXPECT_EQ(exec::mpi::gpu_sharing_warning(p), "");
}

// The timing document says where the cuda-* backends ran: the device, ranks per GPU, MPS.
TEST(GpuPlacement, TimingProvenanceNamesTheGpu) {
  const fs::path timing = tmp("timing.json");
  const auto r = mpirun(
      4, "run " + (fs::path(SFR_TRACES_DIR) / "handmade-4.json").string() + " --backend cuda-staged --iters 2 --timing " + timing.string(),
      5);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.find("warning"), std::string::npos) << r.out;  // emulated: nothing time-slices
  const auto j = nlohmann::json::parse(sfr_test::slurp(timing));
  const auto& g = j.at("provenance").at("gpu");
  EXPECT_EQ(g.at("ranks_per_gpu"), 4) << g;
  EXPECT_EQ(g.at("gpus"), 1) << g;
  EXPECT_EQ(g.at("emulated"), true) << g;
  EXPECT_EQ(g.at("mps"), false) << g;
  EXPECT_NE(g.at("device").get<std::string>().find("emulated device (SFR_EMULATE_DEVICE=5)"), std::string::npos) << g;
  fs::remove(timing);
}

// --- The same sweeps on the emulated device (every CI run) ----------------------------------------

// The evidence's random forests (sf-replay generate random --max-roots 64 --max-leaves 64 --holes
// 0.2, seeds 10P+1 and 10P+2): many peers per rank and roots of high degree, every op x unit x
// legal mpi_op x bs {1,3} on them with the memtype variant m.
fs::path random_forest_trace(int nranks, unsigned gseed, int m) {
  const fs::path gen = tmp("gen-" + std::to_string(nranks) + ".json");
  const auto r = sfr_test::run_command(std::string(SFR_CLI) + " generate random --ranks " + std::to_string(nranks) + " --seed " +
                                       std::to_string(gseed) + " --max-roots 64 --max-leaves 64 --holes 0.2 -o " + gen.string());
  if (r.status != 0) throw std::runtime_error("generate random: " + r.out);
  const auto built = trace::read_trace_file(gen.string());
  fs::remove(gen);
  auto t = sfr_test::sweep_trace(built.graph(built.trace().sfs.front().name), "random-p" + std::to_string(nranks));
  for (auto& op : t.ops) {
    op.root_mem = m == 2 ? core::MemType::host : core::MemType::device;
    op.leaf_mem = m == 1 ? core::MemType::host : core::MemType::device;
  }
  const fs::path p = tmp("forest-" + std::to_string(nranks) + "-" + std::to_string(m) + ".json");
  trace::write_trace_file(t, p.string());
  return p;
}

// (memtype variant, delay seed); cuda-staged and cuda-ipc in each launch.
class EmulatedDevice : public ::testing::TestWithParam<std::tuple<int, unsigned>> {};

// 2-8 ranks: each delay seed takes its share of the rank counts (all of them over the three seeds),
// both forest seeds of each.
TEST_P(EmulatedDevice, RandomForestsConform) {
  const auto& [m, seed] = GetParam();
  static const std::vector<std::vector<int>> kShare = {{2, 5, 8}, {3, 6}, {4, 7}};
  for (int nranks : kShare[(seed - 1) % 3])
    for (unsigned s : {1u, 2u}) {
      const fs::path p = random_forest_trace(nranks, 10u * static_cast<unsigned>(nranks) + s, m);
      conforms(p, "cuda-staged,cuda-ipc", seed);
      fs::remove(p);
    }
}

TEST_P(EmulatedDevice, HotRootConforms) {
  const auto& [m, seed] = GetParam();
  const fs::path p = hot_root_trace(m);
  conforms(p, "cuda-staged,cuda-ipc", seed);
  fs::remove(p);
}

INSTANTIATE_TEST_SUITE_P(Emulated, EmulatedDevice, ::testing::Combine(::testing::Values(0, 1, 2), ::testing::Values(1u, 2u, 3u)),
                         [](const auto& info) {
                           return "mem" + std::to_string(std::get<0>(info.param)) + "_seed" + std::to_string(std::get<1>(info.param));
                         });

// The sample traces (every one of at most 8 ranks) on every transport, cuda-aware included (the
// emulated device's memory is host memory, which MPI reads), one delay seed, the three in one
// launch. Each sample runs once, its memtype rotating with the sample: every (transport, sample)
// and every (transport, memtype) pair runs, in a third of the time of all triples (the
// random-forest sweeps above run every memtype on every transport).
class EmulatedSample : public ::testing::TestWithParam<int> {};

TEST_P(EmulatedSample, Conforms) {
  const int m = GetParam();
  const auto samples = sfr_test::sample_traces(8);
  std::string all;
  for (const auto& b : kTransports) all += (all.empty() ? "" : ",") + b;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (i % std::size(kMemtypes) != static_cast<std::size_t>(m)) continue;
    const fs::path& p = samples[i];
    const fs::path t = with_memtype(p, kMemtypes[m], p.stem().string());
    conforms(t, all, 7);
    fs::remove(t);
  }
}

INSTANTIATE_TEST_SUITE_P(Emulated, EmulatedSample, ::testing::Values(0, 1, 2),
                         [](const auto& info) { return "mem" + std::to_string(info.param); });

// --- Every host backend on device data (one star-forest interface, exec/sf.hpp) ------------------

// The host backends take device buffers as PetscSF does: packed and unpacked on the device, the
// blocks staged through host memory where the transport is host-only (shm, the node-aware
// strategies, alltoallv; and every one with an MPI that takes no device pointers), handed to MPI in
// device memory where it takes them (basic; neighbor, with the nearest-neighbour schedule of the
// GPU-aware neighborhood-collectives paper), host copies of the arrays for the backends that read
// them themselves (window). Each memtype variant, on the evidence's random forests at 3 and 6 ranks
// (every op x unit x legal mpi_op x bs {1,3}) and the hot root, with 2 ranks per node for the
// node-aware strategies and shm.
// Seeds > 0: on the emulated device (`env`: more settings for it); 0: on the real GPU, whose MPI
// (Debian's Open MPI) takes no device pointers, so there every backend stages or copies through
// host memory.
void host_backend_conforms(const std::string& backend, int m, unsigned forest_seed, unsigned hot_seed, const std::string& env = "") {
  const std::string b = backend == "3step" || backend == "split-md" || backend == "shm" ? backend + " --ranks-per-node 2" : backend;
  for (int nranks : {3, 6}) {
    const fs::path p = random_forest_trace(nranks, 10u * static_cast<unsigned>(nranks) + 1, m);
    conforms(p, b, forest_seed, env);
    fs::remove(p);
  }
  // Not window: on the hot root, its fetch-and-op of complex128 PROD (bs 3) overflows to inf and
  // NaN, where Open MPI's one-sided complex product and C++'s (Annex G) part ways, so its
  // leafupdates chain to no exact serial order, in host memory as in device memory.
  if (backend == "window") return;
  const fs::path p = hot_root_trace(m);
  conforms(p, b, hot_seed, env);
  fs::remove(p);
}

// (backend, memtype variant, MPI takes device pointers)
class EmulatedHostBackend : public ::testing::TestWithParam<std::tuple<std::string, int, bool>> {};

TEST_P(EmulatedHostBackend, RandomForestsAndHotRootConform) {
  const auto& [backend, m, aware] = GetParam();
  host_backend_conforms(backend, m, 5, 6, aware ? "" : "SFR_EMULATE_DEVICE_MPI=host");
}

// The same on a real GPU (skips without one): device kernels on CUDA streams, real copies.
class CudaHostBackend : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(CudaHostBackend, RandomForestsAndHotRootConform) {
  SKIP_WITHOUT_GPU();
  const auto& [backend, m] = GetParam();
  host_backend_conforms(backend, m, 0, 0);
}

INSTANTIATE_TEST_SUITE_P(Cuda, CudaHostBackend,
                         ::testing::Combine(::testing::Values("basic", "neighbor", "window", "alltoallv", "shm", "3step", "split-md"),
                                            ::testing::Values(0, 1, 2)),
                         [](const auto& info) {
                           return name_of(std::get<0>(info.param)) + "_mem" + std::to_string(std::get<1>(info.param));
                         });

INSTANTIATE_TEST_SUITE_P(Emulated, EmulatedHostBackend,
                         ::testing::Combine(::testing::Values("basic", "neighbor", "window", "alltoallv", "shm", "3step", "split-md"),
                                            ::testing::Values(0, 1, 2), ::testing::Values(true)),
                         [](const auto& info) {
                           return name_of(std::get<0>(info.param)) + "_mem" + std::to_string(std::get<1>(info.param));
                         });
// The staged route of the backends that hand device blocks to MPI where it can.
INSTANTIATE_TEST_SUITE_P(EmulatedStaged, EmulatedHostBackend,
                         ::testing::Combine(::testing::Values("basic", "neighbor"), ::testing::Values(0, 1, 2), ::testing::Values(false)),
                         [](const auto& info) {
                           return name_of(std::get<0>(info.param)) + "_mem" + std::to_string(std::get<1>(info.param)) + "_staged";
                         });

// The GPU-aware neighborhood-collectives paper's three VecScatter routines (sf-replay generate
// scatter: par-to-par, seq-to-par, par-to-seq) on 8 ranks, their bcast in device memory and back
// (a reduce of the same SF), on neighbor, device-direct and staged.
// seed > 0: on the emulated device, device-direct and staged; 0: on the real GPU (staged there).
void scatter_patterns_conform(unsigned seed) {
  for (const char* pattern : {"par-to-par", "seq-to-par", "par-to-seq"})
    for (const bool aware : {true, false}) {
      if (!seed && aware) continue;
      const fs::path gen = tmp(std::string("scatter-") + pattern + ".json");
      const auto r = sfr_test::run_command(std::string(SFR_CLI) + " generate scatter --pattern " + pattern +
                                           " --ranks 8 --per-rank 37 -o " + gen.string());
      ASSERT_EQ(r.status, 0) << r.out;
      nlohmann::ordered_json j = nlohmann::ordered_json::parse(sfr_test::slurp(gen));
      nlohmann::ordered_json back = j["ops"][0];
      back["op"] = "reduce";
      back["mpi_op"] = "sum";
      j["ops"].push_back(back);
      for (auto& op : j["ops"]) op["memtype"] = "device";
      std::ofstream(gen) << j.dump();
      conforms(gen, "neighbor", seed, seed && !aware ? "SFR_EMULATE_DEVICE_MPI=host" : "");
      fs::remove(gen);
    }
}

TEST(EmulatedNeighbor, PaperScatterPatternsConform) { scatter_patterns_conform(4); }

TEST(CudaNeighbor, PaperScatterPatternsConform) {
  SKIP_WITHOUT_GPU();
  scatter_patterns_conform(0);
}
