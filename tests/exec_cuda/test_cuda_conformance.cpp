// The CUDA executor end to end: `mpiexec -n P sf-replay run TRACE --backend cuda-* --dump D` on
// the sample traces and on seeded random forests running every op x unit x legal mpi_op x bs in
// {1,3}, with every op's data in device memory and with mixed memtypes (roots on the GPU and leaves
// on the host, and the reverse), plus a duplicate-root stress test (thousands of leaves on one root:
// the atomics and vertex locks), each dump checked against the serial reference semantics.
// These need a GPU and skip, saying why, without one. Without a GPU the cuda-* backends must refuse
// with one line and exit status 2 (checked here in every CI run).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "exec/cuda/runtime.hpp"
#include "exec/dump_check.hpp"
#include "support/process.hpp"
#include "support/random_trace.hpp"
#include "support/sample_traces.hpp"
#include "trace/reader.hpp"
#include "trace/writer.hpp"

namespace fs = std::filesystem;
using namespace sfr;

namespace {

const std::vector<std::string> kTransports = {"cuda-staged", "cuda-aware", "cuda-ipc"};

sfr_test::Proc mpirun(int np, const std::string& args) { return sfr_test::run_command(sfr_test::mpiexec(np) + SFR_CLI + " " + args, 300); }

// Memtype variants: every op on the GPU, roots on the GPU only, leaves on the GPU only.
const char* const kMemtypes[] = {R"("device")", R"({"root": "device", "leaf": "host"})", R"({"root": "host", "leaf": "device"})"};

fs::path tmp(const std::string& what) { return fs::temp_directory_path() / ("sfr_cuda_" + std::to_string(::getpid()) + "_" + what); }

// A copy of a trace with every op's memtype set.
fs::path with_memtype(const fs::path& trace, const std::string& memtype, const std::string& tag) {
  nlohmann::json j = nlohmann::json::parse(sfr_test::slurp(trace));
  for (auto& op : j["ops"]) op["memtype"] = nlohmann::json::parse(memtype);
  const fs::path out = tmp(tag + ".json");
  std::ofstream(out) << j.dump();
  return out;
}

// Whether the MPI library takes device pointers (cuda-aware refuses otherwise, by design).
bool aware_mpi() {
  const auto r = sfr_test::run_command(sfr_test::mpiexec(1) + SFR_CLI + " run " + (fs::path(SFR_TRACES_DIR) / "handmade-4.json").string() +
                                           " --backend cuda-aware --dump /dev/null",
                                       60);
  return r.out.find("does not report CUDA support") == std::string::npos && r.out.find("no run-time CUDA support") == std::string::npos;
}

void conforms(const fs::path& trace_file, const std::string& transport) {
  const auto t = trace::read_trace_file(trace_file.string());
  const fs::path dump = tmp("dump_" + transport + ".json");
  const auto r = mpirun(t.trace().nranks, "run " + trace_file.string() + " --backend " + transport + " --dump " + dump.string());
  ASSERT_EQ(r.status, 0) << transport << " on " << trace_file << ":\n" << r.out;
  const auto res = exec::check_dump(t, sfr_test::slurp(dump), dump.string());
  EXPECT_TRUE(res.ok()) << transport << " on " << trace_file << ": " << res.problems.size() << " problems, first: " << res.problems.front();
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

// Runs in every CI run (this machine has nvcc, no GPU): a cuda-* backend refuses with one line.
TEST(CudaBadInput, NoGpuIsOneLineAndExitTwo) {
  if (exec::cuda::no_gpu_reason().empty()) GTEST_SKIP() << "a GPU is present; the refusal is for machines without one";
  for (const std::string& b : kTransports) {
    const fs::path dump = tmp("refused.json");
    const auto r4 =
        mpirun(4, "run " + (fs::path(SFR_TRACES_DIR) / "handmade-4.json").string() + " --backend " + b + " --dump " + dump.string());
    EXPECT_EQ(r4.status, 2) << b << ": " << r4.out;
    EXPECT_EQ(sfr_test::occurrences(r4.out, std::string("sf-replay run: error: --backend: ") + b + ": no CUDA device"), 1u) << r4.out;
    EXPECT_FALSE(fs::exists(dump)) << b;
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

// Thousands of leaves on one root: 4 ranks with 3000 leaves each on root 0 of rank 0 and a few
// on other roots, every op x unit x legal mpi_op x bs {1,3}: the device atomics (native, CAS loops)
// and the vertex locks (replace with bs > 1, complex products, fetch-and-op) under contention.
TEST(CudaAtomics, ThousandsOfLeavesOnOneRoot) {
  SKIP_WITHOUT_GPU();
  core::Graph g(4);
  for (int r = 0; r < 4; ++r) {
    g[r].nroots = 3;
    for (core::Index j = 0; j < 3000; ++j) g[r].add_leaf(j, 0, 0);
    for (core::Index j = 0; j < 40; ++j) g[r].add_leaf(3000 + j, (r + 1) % 4, j % 3);
  }
  const fs::path p = tmp("hot-root.json");
  trace::write_trace_file(sfr_test::sweep_trace(g, "hot-root"), p.string());
  for (const char* b : {"cuda-staged", "cuda-ipc"}) conforms(p, b);
  fs::remove(p);
}
