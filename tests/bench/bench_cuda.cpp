// Benchmarks of the CUDA executor (not tests: they print a table and a JSON result; they need a GPU
// and refuse, with the reason, without one). `.ci/device-suite` runs all three.
//   sfr_bench_cuda pack [--json FILE] [--store DIR]
//     pack / unpack kernels (core/kernels.hpp on the GPU) against their rooflines, 1 MiB .. 256 MiB
//     of float64 payload: contiguous, strided (stride 2), random permutation (vertices of 1 and 4
//     values). Beside each time: the bytes the pattern must move (core/kernel_traffic.hpp: the
//     distinct 32-byte sectors it touches, the packed buffer, the index list; a sum unpack reads
//     its destination too) and that over the time as a share of the bandwidth a device-to-device
//     cudaMemcpy reaches on the same payload (the properties' peak is printed in the header).
//     Target (the pack and the replace unpack): >= 70 % of the roofline. A contiguous pack and a
//     replace unpack are cudaMemcpyAsync itself (no kernel), so their rows check that nothing else
//     is in the way; the sum unpack is the kernel.
//   mpiexec -n 2 sfr_bench_cuda latency [--json FILE] [--store DIR]
//     ping-pong latency (half a round trip, us) device to device, 8 B .. 4 MiB, in the PetscSF
//     paper's Table 1 layout: raw MPI on host memory (H-H), raw MPI on device pointers (when the
//     MPI library is CUDA-aware), a hand-staged exchange (D2H, MPI, H2D), a raw CUDA IPC exchange
//     (a copy into the peer's mapped buffer plus a zero-byte MPI note), and the device star forest
//     (bcast there, reduce back, as PETSc's sf_pingpong) over cuda-staged, cuda-aware and cuda-ipc.
//   mpiexec -n 4 sfr_bench_cuda copy -o MACHINE.json [--json FILE] [--store DIR]
//     cudaMemcpyAsync (+ stream synchronise) time per direction, 8 B .. 32 MiB, pinned host
//     memory: one process alone, then all processes of the run copying to / from one GPU at once;
//     alpha / beta fitted per direction and written as the `copy` block of a machine file (keys
//     "1" and, run with 4 processes, "4", as the node-aware study measured them; a run of 1
//     process leaves "4" at the base preset's values).
#include <cuda_runtime.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/kernel_traffic.hpp"
#include "core/kernels.hpp"
#include "exec/cuda/device_sf.hpp"
#include "exec/cuda/kernels.hpp"
#include "exec/cuda/runtime.hpp"
#include "exec/mpi/runner.hpp"
#include "io/output_file.hpp"
#include "mpi_timing.hpp"
#include "sim/calibration.hpp"
#include "sim/machine.hpp"
#include "trace/provenance.hpp"

using namespace sfr;
using core::Index;

namespace {

int me = 0, np = 0;
io::Json json_out;

void ck(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
#define CK(call) ck(call, #call)

// ---------------------------------------------------------------------------------------------
// pack

// Best (minimum over 5 trials) time per call of `f` on `s`, in seconds, from CUDA events. The
// `reps` calls are captured in a CUDA graph and the graph is launched, so that the host's launch
// cost (microseconds per call) does not hide a short kernel's time.
template <class F>
double best_gpu_seconds(cudaStream_t s, int reps, F&& f) {
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < reps; ++i) f();
  CK(cudaStreamEndCapture(s, &graph));
  CK(cudaGraphInstantiate(&exec, graph, 0));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  CK(cudaGraphLaunch(exec, s));  // warm-up
  CK(cudaStreamSynchronize(s));
  double best = 1e30;
  for (int trial = 0; trial < 5; ++trial) {
    CK(cudaEventRecord(a, s));
    CK(cudaGraphLaunch(exec, s));
    CK(cudaEventRecord(b, s));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    best = std::min(best, ms * 1e-3 / reps);
  }
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  CK(cudaGraphExecDestroy(exec));
  CK(cudaGraphDestroy(graph));
  return best;
}

struct PackCase {
  const char* pattern;
  int bs;      // values per vertex
  Index step;  // strided: the stride
  bool random;
};

// The device memory's peak from its properties: two transfers per clock (DDR / HBM) over the bus.
double peak_bandwidth() {
  int khz = 0, bits = 0, dev = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, dev));
  CK(cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, dev));
  return 2.0 * khz * 1e3 * bits / 8;
}

// Pack and unpack against their rooflines: the bytes each must move (core/kernel_traffic.hpp:
// the distinct 32-byte sectors its pattern touches, the packed buffer, an index list) over the
// bandwidth a device-to-device cudaMemcpy reaches (the stated bandwidth; the properties' peak is
// printed beside it). The target: pack and unpack at >= 70 % of their rooflines.
constexpr double kRooflineTarget = 0.7;

int pack_bench() {
  const exec::cuda::Stream stream;
  const auto s = static_cast<cudaStream_t>(stream.get());
  CK(cudaDeviceSynchronize());
  const exec::cuda::Launch launch{stream.get()};
  const std::vector<PackCase> cases = {{"contiguous", 1, 1, false}, {"strided-2", 1, 2, false}, {"random", 1, 1, true}, {"random", 4, 1, true}};
  const double peak = peak_bandwidth();
  std::printf("# pack / unpack against their rooflines, %s, float64 payload, best of 5 trials\n", exec::cuda::device_name().c_str());
  std::printf("# bandwidth: a device-to-device cudaMemcpy (bytes read + written per second, per row); the properties' peak: %.1f GB/s\n",
              peak * 1e-9);
  std::printf("# moved: the bytes the pattern must move (distinct 32 B sectors touched, the packed buffer, the index list); roof: "
              "moved / time / bandwidth; target: pack and unpack >= %.0f%%\n",
              kRooflineTarget * 100);
  std::printf("%-11s %3s %5s %9s %9s %9s %6s %9s %9s %6s %9s %9s %6s %7s\n", "pattern", "bs", "MiB", "copy GB/s", "pack us", "moved MiB",
              "roof", "unpack us", "moved MiB", "roof", "sum us", "moved MiB", "roof", "target");
  json_out = {{"benchmark", "cuda-pack"}, {"device", exec::cuda::device_name()}, {"peak_bandwidth_bytes_per_s", peak},
              {"roofline_target", kRooflineTarget}, {"results", io::Json::array()}};
  bool all_met = true;
  for (const std::size_t mib : {std::size_t{1}, std::size_t{4}, std::size_t{16}, std::size_t{64}, std::size_t{256}}) {
    const std::size_t bytes = mib << 20, n = bytes / sizeof(double);
    const int reps = static_cast<int>(std::clamp<std::size_t>((std::size_t{1024} << 20) / bytes, 3, 200));
    exec::cuda::DeviceMemory payload(bytes), copy(bytes), wide(2 * bytes);
    CK(cudaMemset(payload.data(), 0, bytes));
    CK(cudaMemset(wide.data(), 0, 2 * bytes));
    CK(cudaDeviceSynchronize());  // the memsets ran on the default stream, which `s` does not wait for
    const double t_copy =
        best_gpu_seconds(s, reps, [&] { CK(cudaMemcpyAsync(copy.data(), payload.data(), bytes, cudaMemcpyDeviceToDevice, s)); });
    const double copy_bw = 2.0 * static_cast<double>(bytes) / t_copy;  // read + write
    for (const PackCase& c : cases) {
      const Index nv = static_cast<Index>(n) / c.bs;
      const std::int64_t value_bytes = 8 * c.bs;
      core::IndexView idx, host_idx;  // the list on the device for the kernels, on the host for the traffic
      std::vector<Index> perm;
      exec::cuda::DeviceMemory list;
      if (c.random) {
        perm.resize(static_cast<std::size_t>(nv));
        std::iota(perm.begin(), perm.end(), Index{0});
        std::shuffle(perm.begin(), perm.end(), std::mt19937_64(static_cast<std::uint64_t>(nv)));
        list = exec::cuda::DeviceMemory(perm.size() * sizeof(Index));
        exec::cuda::copy(list.data(), perm.data(), list.size());
        idx = core::index_view(reinterpret_cast<const Index*>(list.data()));
        host_idx = core::index_view(perm.data());
      } else {
        idx.kind = c.step == 1 ? core::IndexShape::contiguous : core::IndexShape::strided;
        idx.stride = c.step;
        host_idx = idx;
      }
      std::byte* vertices = c.step == 1 ? payload.data() : wide.data();  // the indexed side
      const double t_pack =
          best_gpu_seconds(s, reps, [&] { exec::cuda::pack(launch, core::Unit::float64, c.bs, vertices, idx, nv, copy.data()); });
      const double t_unpack = best_gpu_seconds(s, reps, [&] {
        exec::cuda::unpack(launch, core::Unit::float64, c.bs, core::MpiOp::replace, copy.data(), idx, nv, vertices, core::Groups{});
      });
      const double t_sum = best_gpu_seconds(
          s, reps, [&] { exec::cuda::unpack(launch, core::Unit::float64, c.bs, core::MpiOp::sum, copy.data(), idx, nv, vertices, core::Groups{}); });
      const auto moved = [&](core::KernelKind k) { return core::kernel_traffic(k, host_idx, nv, value_bytes).total(); };
      const std::int64_t m_pack = moved(core::KernelKind::pack), m_unpack = moved(core::KernelKind::unpack_replace),
                         m_sum = moved(core::KernelKind::unpack_combine);
      const double r_pack = core::roofline_fraction(m_pack, t_pack, copy_bw), r_unpack = core::roofline_fraction(m_unpack, t_unpack, copy_bw),
                   r_sum = core::roofline_fraction(m_sum, t_sum, copy_bw);
      const bool met = std::min(r_pack, r_unpack) >= kRooflineTarget;  // the sum unpack is reported beside them
      all_met = all_met && met;
      const double mi = 1.0 / (1 << 20);
      std::printf("%-11s %3d %5zu %9.1f %9.1f %9.1f %5.0f%% %9.1f %9.1f %5.0f%% %9.1f %9.1f %5.0f%% %7s\n", c.pattern, c.bs, mib, copy_bw * 1e-9,
                  t_pack * 1e6, m_pack * mi, r_pack * 100, t_unpack * 1e6, m_unpack * mi, r_unpack * 100, t_sum * 1e6, m_sum * mi, r_sum * 100,
                  met ? "met" : "MISS");
      json_out["results"].push_back({{"pattern", c.pattern},
                                     {"bs", c.bs},
                                     {"bytes", bytes},
                                     {"memcpy_seconds", t_copy},
                                     {"bandwidth_bytes_per_s", copy_bw},
                                     {"pack_seconds", t_pack},
                                     {"unpack_replace_seconds", t_unpack},
                                     {"unpack_sum_seconds", t_sum},
                                     {"pack_moved_bytes", m_pack},
                                     {"unpack_replace_moved_bytes", m_unpack},
                                     {"unpack_sum_moved_bytes", m_sum},
                                     {"pack_of_roofline", r_pack},
                                     {"unpack_replace_of_roofline", r_unpack},
                                     {"unpack_sum_of_roofline", r_sum},
                                     {"met", met}});
    }
  }
  json_out["all_targets_met"] = all_met;
  std::printf("# targets: %s\n", all_met ? "all met" : "NOT all met (rows marked MISS)");
  return 0;
}

// ---------------------------------------------------------------------------------------------
// latency

// A device buffer and a pinned host buffer of one size, zeroed, and a stream.
struct Buffers {
  exec::cuda::DeviceMemory dev;
  exec::cuda::PinnedMemory host;
  exec::cuda::Stream stream;
  explicit Buffers(std::size_t bytes) : dev(bytes), host(bytes) {
    CK(cudaMemset(dev.data(), 0, bytes));
    CK(cudaDeviceSynchronize());  // on the default stream, which `stream` does not wait for
    std::memset(host.data(), 0, bytes);
  }
  cudaStream_t s() const { return static_cast<cudaStream_t>(stream.get()); }
};

// The speed targets on the latency table, printed as "# target" lines and kept in the
// JSON: each SF transport's 8-byte latency within 5 us of its raw transport (cuda-staged against
// the hand-staged exchange, cuda-aware against MPI on device pointers, cuda-ipc against the raw
// IPC copy), and cuda-staged at 1 and 4 MiB within 1.15x of host MPI.
template <class Row>
void latency_targets(const std::vector<Row>& rows, const std::vector<std::size_t>& sizes) {
  const auto at = [&](const char* name, std::size_t bytes) {
    const auto r = std::find_if(rows.begin(), rows.end(), [&](const Row& x) { return x.name == name; });
    const auto k = std::find(sizes.begin(), sizes.end(), bytes) - sizes.begin();
    return r->us[static_cast<std::size_t>(k)];
  };
  io::Json targets = io::Json::array();
  const auto target = [&](const std::string& what, double measured, double goal) {
    if (measured < 0 || goal < 0) return;  // a row that did not run (not CUDA-aware, no IPC)
    const bool met = measured <= goal;
    std::printf("# target %-44s %9.1f us, goal <= %9.1f us: %s\n", what.c_str(), measured, goal, met ? "met" : "MISS");
    targets.push_back({{"target", what}, {"measured_us", measured}, {"goal_us", goal}, {"met", met}});
  };
  for (const auto& [sf, raw] : {std::pair{"SF cuda-staged", "staged D-D"}, {"SF cuda-aware", "MPI D-D"}, {"SF cuda-ipc", "IPC D-D"}})
    if (at(raw, 8) >= 0) target(std::string(sf) + " 8 B <= " + raw + " + 5 us", at(sf, 8), at(raw, 8) + 5);
  for (const std::size_t mib : {std::size_t{1}, std::size_t{4}})
    target("SF cuda-staged " + std::to_string(mib) + " MiB <= 1.15 x MPI H-H", at("SF cuda-staged", mib << 20), 1.15 * at("MPI H-H", mib << 20));
  json_out["targets"] = targets;
}

int latency_bench() {
  const int other = 1 - me;
  const std::size_t max_bytes = std::size_t{4} << 20;
  const Buffers buf(max_bytes);  // each rank's, device and pinned host
  const auto& dbuf = buf.dev;
  const auto& hbuf = buf.host;
  const cudaStream_t s = buf.s();
  // The peer's device buffer, mapped here (raw IPC), where CUDA IPC works between the two ranks
  // (not across nodes, not on MIG instances): else the IPC rows are left out, as cuda-aware is.
  std::byte* peer = nullptr;
  std::string ipc_why;
  {
    exec::cuda::IpcHandle mine{}, theirs{};
    int ok = 1, all = 0;
    try {
      mine = exec::cuda::ipc_handle(dbuf.data());
    } catch (const std::exception& e) {
      ok = 0, ipc_why = e.what();
    }
    MPI_Sendrecv(&mine, sizeof mine, MPI_BYTE, other, 1, &theirs, sizeof theirs, MPI_BYTE, other, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all) try {
        peer = exec::cuda::ipc_open(theirs, dbuf.size());  // (the peer allocated as much)
      } catch (const std::exception& e) {
        ok = 0, ipc_why = e.what();
      }
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all && peer) exec::cuda::ipc_close(peer), peer = nullptr;
    if (!all && ipc_why.empty()) ipc_why = "CUDA IPC failed on the other rank";
  }
  const bool ipc = peer != nullptr;
  const std::string aware_why = exec::cuda::cuda_aware_refusal();
  const bool aware = aware_why.empty();

  const std::vector<std::size_t> sizes = {8, 1024, 4096, 16384, 65536, 262144, std::size_t{1} << 20, std::size_t{4} << 20};
  struct Row {
    std::string name;
    std::vector<double> us;
  };
  std::vector<Row> rows;
  for (const char* name : {"MPI H-H", "MPI D-D", "staged D-D", "IPC D-D", "SF cuda-staged", "SF cuda-aware", "SF cuda-ipc"})
    rows.push_back({name, {}});
  json_out = {{"benchmark", "cuda-latency"}, {"device", exec::cuda::device_name()}, {"ranks", 2}, {"cuda_aware", aware}, {"cuda_ipc", ipc},
              {"results", io::Json::array()}};
  for (const std::size_t bytes : sizes) {
    const int count = static_cast<int>(bytes);
    // One root per float64 on rank 0, one leaf per root on rank 1, connected consecutively (no pack).
    const Index n = static_cast<Index>(bytes / sizeof(double));
    core::Graph g(2);
    g[0].nroots = n;
    for (Index i = 0; i < n; ++i) g[1].add_leaf(i, 0, i);
    std::vector<std::unique_ptr<exec::cuda::DeviceStarForest>> sfs;
    for (const auto t : {core::BackendId::cuda_staged, core::BackendId::cuda_aware, core::BackendId::cuda_ipc}) {
      sfs.emplace_back();
      if ((t != core::BackendId::cuda_aware || aware) && (t != core::BackendId::cuda_ipc || ipc))
        sfs.back() = std::make_unique<exec::cuda::DeviceStarForest>(MPI_COMM_WORLD, g, t);
    }
    const exec::Data d{dbuf.data(), core::MemType::device};

    std::vector<std::function<void()>> run(rows.size());
    // One round trip: rank 0 sends, rank 1 receives and sends back.
    const auto ping_pong = [](auto send, auto recv) {
      return [=] {
        if (me == 0)
          send(1), recv(1);
        else
          recv(0), send(0);
      };
    };
    const auto mpi_send = [&](std::byte* p) { return [&, p](int to) { MPI_Send(p, count, MPI_BYTE, to, 7, MPI_COMM_WORLD); }; };
    const auto mpi_recv = [&](std::byte* p) {
      return [&, p](int from) { MPI_Recv(p, count, MPI_BYTE, from, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE); };
    };
    run[0] = ping_pong(mpi_send(hbuf.data()), mpi_recv(hbuf.data()));
    if (aware) run[1] = ping_pong(mpi_send(dbuf.data()), mpi_recv(dbuf.data()));
    const auto staged_send = [&](int to) {
      CK(cudaMemcpyAsync(hbuf.data(), dbuf.data(), bytes, cudaMemcpyDeviceToHost, s));
      CK(cudaStreamSynchronize(s));
      mpi_send(hbuf.data())(to);
    };
    const auto staged_recv = [&](int from) {
      mpi_recv(hbuf.data())(from);
      CK(cudaMemcpyAsync(dbuf.data(), hbuf.data(), bytes, cudaMemcpyHostToDevice, s));
      CK(cudaStreamSynchronize(s));
    };
    run[2] = ping_pong(staged_send, staged_recv);
    const auto ipc_put = [&](int to) {
      CK(cudaMemcpyAsync(peer, dbuf.data(), bytes, cudaMemcpyDeviceToDevice, s));
      CK(cudaStreamSynchronize(s));
      MPI_Send(nullptr, 0, MPI_BYTE, to, 8, MPI_COMM_WORLD);
    };
    const auto ipc_wait = [](int from) { MPI_Recv(nullptr, 0, MPI_BYTE, from, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE); };
    if (ipc) run[3] = ping_pong(ipc_put, ipc_wait);
    for (std::size_t k = 0; k < sfs.size(); ++k)
      if (sfs[k])
        run[4 + k] = [&, k] {
          auto& sf = *sfs[k];
          sf.bcast_begin(core::Unit::float64, 1, core::MpiOp::replace, d, d);
          sf.end();
          sf.reduce_begin(core::Unit::float64, 1, core::MpiOp::replace, d, d);
          sf.end();
        };
    const int iters = bytes <= 65536 ? 2000 : 200;
    for (int w = 0; w < 50; ++w)
      for (auto& f : run)
        if (f) f();
    std::vector<double> best(run.size(), 1e30);
    for (int trial = 0; trial < 5; ++trial)
      for (std::size_t k = 0; k < run.size(); ++k)
        if (run[k]) best[k] = std::min(best[k], slowest_mean_seconds(iters, run[k]) * 1e6 / 2);  // one way: half a round trip
    io::Json rj = {{"bytes", bytes}};
    for (std::size_t k = 0; k < run.size(); ++k) {
      rows[k].us.push_back(run[k] ? best[k] : -1);
      rj[rows[k].name] = run[k] ? io::Json(best[k]) : io::Json(nullptr);
    }
    json_out["results"].push_back(rj);
  }
  if (ipc) exec::cuda::ipc_close(peer);
  MPI_Barrier(MPI_COMM_WORLD);  // both unmapped before either frees (CUDA IPC)
  if (me == 0) {
    std::printf("# device-to-device ping-pong latency (us, half a round trip, best of 5 interleaved trials), 2 ranks on %s\n",
                exec::cuda::device_name().c_str());
    if (!aware) std::printf("# MPI D-D and SF cuda-aware: not run, %s\n", aware_why.c_str());
    if (!ipc) std::printf("# IPC D-D and SF cuda-ipc: not run, %s\n", ipc_why.c_str());
    std::printf("%-15s", "Msg (Bytes)");
    for (const std::size_t b : sizes)
      b >= (std::size_t{1} << 20) ? std::printf(" %9zuM", b >> 20) : b >= 1024 ? std::printf(" %9zuK", b >> 10) : std::printf(" %10zu", b);
    std::printf("\n");
    for (const Row& r : rows) {
      std::printf("%-15s", r.name.c_str());
      for (const double v : r.us) v < 0 ? std::printf(" %10s", "-") : std::printf(" %10.1f", v);
      std::printf("\n");
    }
    latency_targets(rows, sizes);
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------
// copy

// Mean seconds of one cudaMemcpyAsync + stream synchronise of `bytes` (best of 5 trials); every
// rank with `active` copies, all starting together; the slowest active rank's time is returned.
double copy_seconds(bool active, bool to_device, std::byte* dev, std::byte* host, std::size_t bytes, cudaStream_t s) {
  const int iters = bytes <= (std::size_t{1} << 20) ? 200 : 20;
  double best = 1e30;
  for (int trial = 0; trial < 6; ++trial) {  // the first trial warms up
    MPI_Barrier(MPI_COMM_WORLD);
    double dt = 0;
    if (active) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < iters; ++i) {
        CK(to_device ? cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s)
                     : cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, s));
        CK(cudaStreamSynchronize(s));
      }
      dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / iters;
    }
    double mx = 0;
    MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (trial > 0) best = std::min(best, mx);
  }
  return best;
}

int copy_bench(const std::string& out) {
  const std::size_t max_bytes = std::size_t{32} << 20;
  const Buffers buf(max_bytes);
  std::vector<std::size_t> sizes;
  for (std::size_t b = 8; b <= max_bytes; b *= 4) sizes.push_back(b);
  const int groups = np > 1 ? 2 : 1;             // one process alone; all np at once
  std::vector<core::TimedSample> samples[2][2];  // [to_device][group]
  for (const std::size_t b : sizes)
    for (const bool to_device : {true, false})
      for (int g = 0; g < groups; ++g) {
        const bool active = g == 0 ? me == 0 : true;
        samples[to_device][g].push_back(
            {static_cast<double>(b), copy_seconds(active, to_device, buf.dev.data(), buf.host.data(), b, buf.s())});
      }
  if (me != 0) return 0;
  io::Json copy = io::Json::object(), fits = io::Json::object(), measured = io::Json::object();
  std::printf("# cudaMemcpyAsync + synchronise, pinned host memory, %s: seconds per copy (best of 5 trials)\n",
              exec::cuda::device_name().c_str());
  std::printf("%12s %12s %12s", "bytes", "h2d 1 proc", "d2h 1 proc");
  if (groups > 1) std::printf(" %9s%-3d %9s%-3d", "h2d x", np, "d2h x", np);
  std::printf("\n");
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    std::printf("%12zu %12.3e %12.3e", sizes[i], samples[1][0][i].seconds, samples[0][0][i].seconds);
    if (groups > 1) std::printf(" %12.3e %12.3e", samples[1][1][i].seconds, samples[0][1][i].seconds);
    std::printf("\n");
  }
  for (const bool to_device : {true, false}) {
    const char* dir = to_device ? "h2d" : "d2h";
    for (int g = 0; g < groups; ++g) {
      double rms = 0;
      const sim::AlphaBeta ab = sim::fit_alpha_beta(samples[to_device][g], &rms);
      const char* key = g == 0 ? "1" : "4";
      copy[dir][key] = {ab.alpha, ab.beta};
      fits[dir][key] = {{"alpha_s", ab.alpha}, {"beta_s_per_byte", ab.beta}, {"fit_rms_relative", rms}, {"processes", g == 0 ? 1 : np}};
      io::Json pts = io::Json::array();
      for (const auto& p : samples[to_device][g]) pts.push_back({p.x, p.seconds});
      measured[dir][key] = pts;
      std::printf("# %s, %d process%s: alpha %.2f us, beta %.3e s/B (%.1f GB/s), fit error %.1f%%\n", dir, g == 0 ? 1 : np,
                  g == 0 ? "" : "es at once", ab.alpha * 1e6, ab.beta, ab.beta > 0 ? 1e-9 / ab.beta : 0.0, rms * 100);
    }
  }
  if (groups == 1) std::printf("# \"4\" not measured (run with 4 processes): the machine file keeps the base preset's values\n");
  io::Json machine = {{"format", "sf-machine"},
                      {"name", "copy-" + exec::cuda::device_name()},
                      {"base", "generic"},
                      {"copy", copy},
                      {"calibration",
                       {{"tool", "sfr_bench_cuda copy"},
                        {"device", exec::cuda::device_name()},
                        {"processes", np},
                        {"fits", fits},
                        {"samples_bytes_seconds", measured}}}};
  sim::parse_machine(machine, out);  // what it writes, the simulator reads
  io::write_file_atomic(out, machine.dump(2) + "\n");
  std::printf("# wrote %s (simulate --machine %s)\n", out.c_str(), out.c_str());
  json_out = {{"benchmark", "cuda-copy"}, {"device", exec::cuda::device_name()}, {"ranks", np}, {"copy", copy}, {"fits", fits}};
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  std::string mode = argc > 1 ? argv[1] : "", json, store, out;
  bool bad = false;  // an unknown option, or one without its value: a usage error, never ignored
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--json") == 0 && i + 1 < argc)
      json = argv[++i];
    else if (std::strcmp(argv[i], "--store") == 0 && i + 1 < argc)
      store = argv[++i];
    else if (std::strcmp(argv[i], "-o") == 0 && i + 1 < argc && mode == "copy")
      out = argv[++i];
    else
      bad = true;
  }
  const bool usage = bad || (mode != "pack" && mode != "latency" && mode != "copy") || (mode == "copy") != !out.empty() ||
                     (mode == "pack" && np != 1) || (mode == "latency" && np != 2) || (mode == "copy" && np != 1 && np != 4);
  int rc = 2;
  try {
    if (usage) {
      if (me == 0)
        std::fprintf(
            stderr,
            "usage: sfr_bench_cuda pack (1 rank) | latency (2 ranks) | copy -o MACHINE.json (1 or 4 ranks) [--json FILE] [--store DIR]\n");
      MPI_Finalize();
      return 2;
    }
    if (mode == "copy") io::check_output_path("-o", out);  // before any work
    if (!json.empty()) io::check_output_path("--json", json);
    if (const std::string why = exec::cuda::no_gpu_reason(); !why.empty()) {
      if (me == 0) std::fprintf(stderr, "sfr_bench_cuda %s: %s\n", mode.c_str(), why.c_str());
      MPI_Finalize();
      return 1;
    }
    if (mode == "copy")
      exec::cuda::select_device(0);  // every process on one GPU, as the machine file means
    else
      exec::cuda::select_node_device(MPI_COMM_WORLD);
    rc = mode == "pack" ? pack_bench() : mode == "latency" ? latency_bench() : copy_bench(out);
    if (rc == 0 && me == 0)
      std::printf("%s", trace::bench_document(json_out, {"bench_cuda " + mode, np, "", "", exec::mpi::mpi_library()}, json, store).c_str());
  } catch (const InputError& e) {  // the same on every rank (checked before any work)
    if (me == 0) std::fprintf(stderr, "sfr_bench_cuda %s: %s\n", mode.c_str(), e.what());
    rc = 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sfr_bench_cuda %s: %s\n", mode.c_str(), e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return rc;
}
