// What one call of a device op asks of the device, pinned per transport and op on the emulated
// device (the counts come from the device interface itself, exec/cuda/runtime.hpp, where both
// implementations pass, so a GPU counts the same): a change that adds a launch, a
// synchronisation or a copy shows here. The numbers are the transports' designs, worked out by
// hand for 2 ranks whose 2 leaves each read the other rank's 2 roots (one peer each way, no self
// part), all data in device memory: a bcast and a reduce of 256 doubles a vertex (4 KiB a
// message), a fetch-and-op of int64 (16 B a message each way).
//   cuda-staged: pack (1 launch), the block down on its own event (1 D2H, 1 event sync), the
//     message up as it lands (1 H2D), unpack (1 launch), the stream at the end (1 stream sync);
//     a fetch-and-op does it there and back (the roots' fetch kernel between: 3 launches).
//   cuda-ipc: pack, the stream before the "done" note (1 stream sync), the block straight into
//     the peer's buffer (1 D2D), unpack, the stream at the end.
//   cuda-aware: pack, the stream before MPI takes the pointer, unpack, the stream at the end.
//   basic (device blocks handed to a CUDA-aware MPI): as cuda-aware.
//   shm (staged through the host): pack, each block down to its segment once (1 D2H), its sync,
//     the peer's block up from its segment (1 H2D), unpack, the end's sync.
//   window (host copies of the device arrays: its one-sided calls read and write the user's
//     arrays): no kernel; the arrays down and back with cudaMemcpy, each a device-wide sync.
// PetscSF's shape: one pack launch per direction, and no device-wide synchronisation but in the
// mirror route.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "support/process.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const char* kTrace = R"({"format": "sf-trace", "version": 1, "name": "device-pair", "nranks": 2,
 "sfs": {"A": {"ranks": [{"nroots": 2, "remote_rank": [1, 1], "remote_index": [0, 1]},
                         {"nroots": 2, "remote_rank": [0, 0], "remote_index": [0, 1]}]}},
 "ops": [{"op": "bcast", "sf": "A", "unit": "float64", "bs": 256, "mpi_op": "replace", "memtype": "device", "repeat": 1, "overlap_us": 0},
         {"op": "reduce", "sf": "A", "unit": "float64", "bs": 256, "mpi_op": "sum", "memtype": "device", "repeat": 1, "overlap_us": 0},
         {"op": "fetch_and_op", "sf": "A", "unit": "int64", "bs": 1, "mpi_op": "sum", "memtype": "device", "repeat": 1, "overlap_us": 0}]})";

// launches, stream_syncs, event_syncs, device_syncs, h2d, h2d_bytes, d2h, d2h_bytes, d2d, d2d_bytes
using Counts = std::array<double, 10>;
const char* const kKeys[] = {"launches", "stream_syncs", "event_syncs", "device_syncs", "h2d", "h2d_bytes", "d2h", "d2h_bytes", "d2d", "d2d_bytes"};

struct Case {
  const char* backend;
  Counts bcast, reduce, fetch;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.backend; }

const Case kCases[] = {
    {"cuda-staged", {2, 1, 1, 0, 1, 4096, 1, 4096, 0, 0}, {2, 1, 1, 0, 1, 4096, 1, 4096, 0, 0}, {3, 2, 2, 0, 2, 32, 2, 32, 0, 0}},
    {"cuda-ipc", {2, 2, 0, 0, 0, 0, 0, 0, 1, 4096}, {2, 2, 0, 0, 0, 0, 0, 0, 1, 4096}, {3, 4, 0, 0, 0, 0, 0, 0, 2, 32}},
    {"cuda-aware", {2, 2, 0, 0, 0, 0, 0, 0, 0, 0}, {2, 2, 0, 0, 0, 0, 0, 0, 0, 0}, {3, 4, 0, 0, 0, 0, 0, 0, 0, 0}},
    {"basic", {2, 2, 0, 0, 0, 0, 0, 0, 0, 0}, {2, 2, 0, 0, 0, 0, 0, 0, 0, 0}, {3, 3, 0, 0, 0, 0, 0, 0, 0, 0}},
    {"shm", {2, 2, 0, 0, 1, 4096, 1, 4096, 0, 0}, {2, 2, 0, 0, 1, 4096, 1, 4096, 0, 0}, {3, 3, 0, 0, 2, 32, 2, 32, 0, 0}},
    // bcast: roots and leaves down (2 x 4 KiB), the leaves back; reduce: the same with the roots
    // written; fetch-and-op: roots, leaves and leafupdate down (3 x 16 B), roots and leafupdate back.
    {"window", {0, 0, 0, 3, 1, 4096, 2, 8192, 0, 0}, {0, 0, 0, 3, 1, 4096, 2, 8192, 0, 0}, {0, 0, 0, 5, 2, 32, 3, 48, 0, 0}},
};

class DeviceCounts : public ::testing::TestWithParam<Case> {};

}  // namespace

TEST_P(DeviceCounts, PerCallAreTheTransportsDesign) {
  const Case& c = GetParam();
  const fs::path dir = fs::temp_directory_path() / ("sfr_device_counts_" + std::to_string(::getpid()) + "_" + c.backend);
  fs::create_directories(dir);
  std::ofstream(dir / "t.json") << kTrace;
  const auto r = sfr_test::run_command("env SFR_EMULATE_DEVICE=3 " + sfr_test::mpiexec(2) + SFR_CLI + " run " + (dir / "t.json").string() +
                                           " --backend " + c.backend + " --warmup 1 --iters 4 --timing " + (dir / "timing.json").string(),
                                       300);
  ASSERT_EQ(r.status, 0) << r.out;
  const json doc = json::parse(sfr_test::slurp(dir / "timing.json"));
  ASSERT_EQ(doc["results"].size(), 3u);
  const Counts* want[] = {&c.bcast, &c.reduce, &c.fetch};
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& res = doc["results"][i];
    ASSERT_TRUE(res.contains("device")) << res.dump();
    for (std::size_t k = 0; k < std::size(kKeys); ++k)
      EXPECT_EQ(res["device"][kKeys[k]].get<double>(), (*want[i])[k]) << c.backend << " " << res["op"] << ": " << kKeys[k];
    EXPECT_EQ(res["device"]["memsets"].get<double>(), 0) << c.backend << " " << res["op"];
  }
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Emulated, DeviceCounts, ::testing::ValuesIn(kCases), [](const auto& info) {
  std::string s = info.param.backend;
  for (char& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
});

// A host op on a host backend asks nothing of a device: its result has no device counts.
TEST(DeviceCountsHost, AHostOpHasNone) {
  const fs::path dir = fs::temp_directory_path() / ("sfr_device_counts_host_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string host(kTrace);
  for (std::size_t at; (at = host.find("\"device\"")) != std::string::npos;) host.replace(at, 8, "\"host\"");
  std::ofstream(dir / "t.json") << host;
  const auto r = sfr_test::run_command(sfr_test::mpiexec(2) + SFR_CLI + " run " + (dir / "t.json").string() +
                                       " --backend basic --iters 2 --timing " + (dir / "timing.json").string());
  ASSERT_EQ(r.status, 0) << r.out;
  const json doc = json::parse(sfr_test::slurp(dir / "timing.json"));  // named: a range-for would free a temporary's member
  for (const auto& res : doc["results"]) EXPECT_FALSE(res.contains("device")) << res.dump();
  fs::remove_all(dir);
}

// cuda-staged pipelines messages over kPipelineMin (512 KiB) in chunks of kPipelineChunk (256 KiB):
// a bcast of 2 vertices of 40,000 doubles (640,000 B a message) goes down, across and up in 3
// pieces (262,144 + 262,144 + 115,712 B), each on its own event; a reduce of 1 vertex (320,000 B)
// stays whole. The results conform under the emulated device's delays, for data on the device and
// for each side on the host (a host side's pieces are not copied).
TEST(DeviceCountsPipeline, LargeMessagesGoInChunksAndConform) {
  const fs::path dir = fs::temp_directory_path() / ("sfr_device_pipeline_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string sfs = R"("sfs": {"A": {"ranks": [{"nroots": 2, "remote_rank": [1, 1], "remote_index": [0, 1]},
                                                  {"nroots": 2, "remote_rank": [0, 0], "remote_index": [0, 1]}]},
                                    "B": {"ranks": [{"nroots": 1, "remote_rank": [1], "remote_index": [0]},
                                                  {"nroots": 1, "remote_rank": [0], "remote_index": [0]}]}})";
  for (const std::string memtype : {R"("device")", R"({"root": "device", "leaf": "host"})", R"({"root": "host", "leaf": "device"})"}) {
    std::ofstream(dir / "t.json") << R"({"format": "sf-trace", "version": 1, "name": "pipeline", "nranks": 2, )" << sfs << R"(,
 "ops": [{"op": "bcast", "sf": "A", "unit": "float64", "bs": 40000, "mpi_op": "replace", "memtype": )" << memtype << R"(},
         {"op": "reduce", "sf": "B", "unit": "float64", "bs": 40000, "mpi_op": "sum", "memtype": )" << memtype << R"(}]})";
    for (const int seed : {1, 2, 3}) {
      const auto r = sfr_test::run_command("env SFR_EMULATE_DEVICE=" + std::to_string(seed) + " " + sfr_test::mpiexec(2) + SFR_CLI +
                                               " run " + (dir / "t.json").string() + " --backend cuda-staged --warmup 1 --iters 2 --timing " +
                                               (dir / "timing.json").string() + " --dump " + (dir / "dump.json").string(),
                                           300);
      ASSERT_EQ(r.status, 0) << memtype << " seed " << seed << ": " << r.out;
      const auto chk = sfr_test::run_command(std::string(SFR_CLI) + " check " + (dir / "t.json").string() + " " + (dir / "dump.json").string());
      EXPECT_EQ(chk.status, 0) << memtype << " seed " << seed << ": " << chk.out;
    }
    const json res = json::parse(sfr_test::slurp(dir / "timing.json"))["results"];
    const bool root_dev = memtype.find("\"root\": \"host\"") == std::string::npos, leaf_dev = memtype.find("\"leaf\": \"host\"") == std::string::npos;
    // bcast: the roots' side goes down in 3 pieces where it is on the device, the leaves' comes up in 3.
    EXPECT_EQ(res[0]["device"]["d2h"].get<double>(), root_dev ? 3 : 0) << memtype;
    EXPECT_EQ(res[0]["device"]["event_syncs"].get<double>(), root_dev ? 3 : 0) << memtype;
    EXPECT_EQ(res[0]["device"]["d2h_bytes"].get<double>(), root_dev ? 640000 : 0) << memtype;
    EXPECT_EQ(res[0]["device"]["h2d"].get<double>(), leaf_dev ? 3 : 0) << memtype;
    EXPECT_EQ(res[0]["device"]["h2d_bytes"].get<double>(), leaf_dev ? 640000 : 0) << memtype;
    // reduce: one piece each way (320,000 B: under the threshold).
    EXPECT_EQ(res[1]["device"]["d2h"].get<double>(), leaf_dev ? 1 : 0) << memtype;
    EXPECT_EQ(res[1]["device"]["h2d"].get<double>(), root_dev ? 1 : 0) << memtype;
  }
  fs::remove_all(dir);
}
