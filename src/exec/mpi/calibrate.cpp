#include "exec/mpi/calibrate.hpp"

#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <numeric>
#include <random>
#include <vector>

#include "core/backends.hpp"
#include "core/pack.hpp"
#include "core/statistic.hpp"
#include "core/tier.hpp"
#include "exec/cuda/device_terms.hpp"
#include "exec/cuda/runtime.hpp"
#include "exec/mpi/mpi_check.hpp"
#include "exec/mpi/runner.hpp"
#include "exec/mpi/stall.hpp"
#include "trace/calibration_ring.hpp"

namespace sfr::exec::mpi {

namespace {

using core::upper_median;

// The statistic of calibrate and validate-model alike (sim/README.md, "One statistic for fitting
// and judging"): a measurement is repeated in blocks, interleaved with the other measurements of
// its kind (every size of a ping-pong, every backend), and the least of the blocks' statistic is
// kept: load on a shared machine only ever adds time, so the least loaded block is the closest to
// the machine's own cost. A block's statistic is its median, and for the executor's own patterns
// (section 5, as validate-model's ops) the 20th percentile of its iterations (core::kLowShare).
constexpr int kRepeats = 15;
// The executor's rounds over the backends (section 5): each times every pattern on every backend
// once, so many rounds spread the measurement over time, past bursts of load that would otherwise
// shift every backend's cost (sim/README.md); core::kMinExecutorRounds to kMaxExecutorRounds, as
// CalibrateOptions::executor_seconds allows.
double least(const std::vector<double>& block_medians) {
  return block_medians.empty() ? 0 : *std::min_element(block_medians.begin(), block_medians.end());
}

// Ranks that take no part in a measurement wait here without spinning (an oversubscribed
// machine's cores stay with the ranks being measured), and outside the stall watch: a pair's
// ping-pong may take minutes on a loaded machine, and its own ranks are watched (they tick per
// size); the next step arms the watch again.
void idle_barrier(MPI_Comm comm) {
  stall::idle();
  MPI_Request r;
  SFR_MPI(MPI_Ibarrier, comm, &r);
  for (int done = 0;;) {
    SFR_MPI(MPI_Test, &r, &done, MPI_STATUS_IGNORE);
    if (done) return;
    usleep(200);
  }
}

constexpr int kTag = 7, kToken = 8;

// CPU seconds (user and system) this process has had.
double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

// The share of a core each rank of this host may expect: the CPUs its ranks may run on (the union
// of their affinity masks: a cluster node of .ci/cluster has its own) over its ranks, at most 1.
double fair_core_share(MPI_Comm comm) {
  MPI_Comm host;
  SFR_MPI(MPI_Comm_split_type, comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
  int n = 1;
  MPI_Comm_size(host, &n);
  cpu_set_t mine, all;
  CPU_ZERO(&mine);
  if (sched_getaffinity(0, sizeof mine, &mine) != 0) CPU_SET(0, &mine);
  SFR_MPI(MPI_Allreduce, &mine, &all, static_cast<int>(sizeof(cpu_set_t)), MPI_BYTE, MPI_BOR, host);
  MPI_Comm_free(&host);
  return std::min(1.0, static_cast<double>(std::max(1, CPU_COUNT(&all))) / static_cast<double>(n));
}

// The one CPU this rank is bound to, or -1 (bound to several, or unknown).
int bound_cpu() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) != 1) return -1;
  for (std::size_t c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) return static_cast<int>(c);
  return -1;
}

// Half round trips of a blocking ping-pong between rank 0 and `p`: kRepeats sweeps over the sizes,
// per size the least of the sweeps' medians.
std::vector<core::TimedSample> pingpong(MPI_Comm comm, int rank, int p) {
  // Four sizes per octave from 512 B to 8 KiB (where transports switch protocols), two above; and
  // just below each power of two from 1 KiB to 64 KiB (64 and 32 B below 1 KiB, 128 and 64 B below
  // the others): a transport's limits are powers of two less its header (Open MPI's shared-memory
  // eager limit here: 4 KiB, up to 4032 B sent at 1.2 us, 4048 B at 2.1), so that a fit's switch
  // point is not the octave's sample below it.
  static const int sizes[] = {8,     64,    256,    512,    640,    768,    896,    960,    992,    1024,   1280,  1536,
                              1792,  1920,  1984,   2048,   2560,   3072,   3584,   3968,   4032,   4096,   5120,  6144,
                              7168,  8064,  8128,   8192,   12288,  16256,  16320,  16384,  24576,  32640,  32704, 32768,
                              49152, 65408, 65472,  65536,  98304,  131072, 196608, 262144, 393216, 524288, 786432, 1048576};
  constexpr std::size_t nsizes = std::size(sizes);
  std::vector<std::vector<double>> medians(nsizes);
  std::vector<char> buf(1 << 20);
  for (int sweep = 0; sweep < kRepeats; ++sweep)
    for (std::size_t k = 0; k < nsizes; ++k) {
      const int n = sizes[k];
      const int reps = n <= 65536 ? 20 : 5, warm = 2;
      std::vector<double> t;
      for (int i = 0; i < warm + reps; ++i) {
        if (rank == 0) {
          const double t0 = MPI_Wtime();
          SFR_MPI(MPI_Send, buf.data(), n, MPI_BYTE, p, kTag, comm);
          SFR_MPI(MPI_Recv, buf.data(), n, MPI_BYTE, p, kTag, comm, MPI_STATUS_IGNORE);
          if (i >= warm) t.push_back((MPI_Wtime() - t0) / 2);
        } else if (rank == p) {
          SFR_MPI(MPI_Recv, buf.data(), n, MPI_BYTE, 0, kTag, comm, MPI_STATUS_IGNORE);
          SFR_MPI(MPI_Send, buf.data(), n, MPI_BYTE, 0, kTag, comm);
        }
      }
      medians[k].push_back(upper_median(t));
      stall::tick();
    }
  std::vector<core::TimedSample> out;
  if (rank == 0)
    for (std::size_t k = 0; k < nsizes; ++k) out.push_back({static_cast<double>(sizes[k]), least(medians[k])});
  return out;
}

// LogGP's o_send (CPU time of an MPI_Isend), o_recv (of an MPI_Recv whose message has arrived)
// and a train of k sends answered by one message (round trip against k), between rank 0 and p;
// o_recv on both, the rest on rank 0.
void overheads(MPI_Comm comm, int rank, int p, core::CalibrationData::Overheads& out) {
  constexpr int K = 64, reps = 7;
  double msg[K] = {};
  MPI_Request req[K];
  std::vector<double> os, orv;
  for (int r = 0; r < reps; ++r) {
    if (rank == 0) {
      double spent = 0;
      for (int i = 0; i < K; ++i) {
        const double t0 = MPI_Wtime();
        SFR_MPI(MPI_Isend, &msg[i], 1, MPI_DOUBLE, p, kTag, comm, &req[i]);
        spent += MPI_Wtime() - t0;
      }
      SFR_MPI(MPI_Waitall, K, req, MPI_STATUSES_IGNORE);
      os.push_back(spent / K);
      SFR_MPI(MPI_Send, msg, 0, MPI_BYTE, p, kToken, comm);
      stall::tick();
    } else if (rank == p) {
      SFR_MPI(MPI_Recv, msg, 0, MPI_BYTE, 0, kToken, comm, MPI_STATUS_IGNORE);
      usleep(2000);  // the data messages, sent before the token, have arrived
      double spent = 0;
      for (int i = 0; i < K; ++i) {
        const double t0 = MPI_Wtime();
        SFR_MPI(MPI_Recv, &msg[i], 1, MPI_DOUBLE, 0, kTag, comm, MPI_STATUS_IGNORE);
        spent += MPI_Wtime() - t0;
      }
      orv.push_back(spent / K);
    }
  }
  if (rank == 0) out.o_send = upper_median(os);
  if (rank == p) out.o_recv = upper_median(orv);
  if (rank == p) SFR_MPI(MPI_Send, &out.o_recv, 1, MPI_DOUBLE, 0, kToken, comm);
  if (rank == 0) SFR_MPI(MPI_Recv, &out.o_recv, 1, MPI_DOUBLE, p, kToken, comm, MPI_STATUS_IGNORE);
  for (const int k : {1, 2, 4, 8, 16, 32, 64}) {
    std::vector<double> t;
    for (int r = 0; r < 3 + 20; ++r) {
      if (rank == 0) {
        const double t0 = MPI_Wtime();
        for (int i = 0; i < k; ++i) SFR_MPI(MPI_Isend, &msg[i], 1, MPI_DOUBLE, p, kTag, comm, &req[i]);
        SFR_MPI(MPI_Waitall, k, req, MPI_STATUSES_IGNORE);
        SFR_MPI(MPI_Recv, msg, 0, MPI_BYTE, p, kToken, comm, MPI_STATUS_IGNORE);
        if (r >= 3) t.push_back(MPI_Wtime() - t0);
      } else if (rank == p) {
        for (int i = 0; i < k; ++i) SFR_MPI(MPI_Recv, &msg[i], 1, MPI_DOUBLE, 0, kTag, comm, MPI_STATUS_IGNORE);
        SFR_MPI(MPI_Send, msg, 0, MPI_BYTE, 0, kToken, comm);
      }
    }
    if (rank == 0) out.train.push_back({static_cast<double>(k), upper_median(t)});
  }
}

// The bytes each sender of node 0 sends to its rank of node 1 in the injection measurement.
constexpr int kInjectionBytes = 1 << 20;

// Seconds `senders` ranks of node 0 take to send kInjectionBytes each to a rank of node 1 at once
// (the slowest sender's median).
double injection(MPI_Comm comm, int rank, const std::vector<int>& from, const std::vector<int>& to, std::size_t senders) {
  constexpr int bytes = kInjectionBytes, reps = 10;
  std::vector<char> buf(bytes);
  const auto me_from = std::find(from.begin(), from.begin() + static_cast<std::ptrdiff_t>(senders), rank) - from.begin();
  const auto me_to = std::find(to.begin(), to.begin() + static_cast<std::ptrdiff_t>(senders), rank) - to.begin();
  std::vector<double> t;
  for (int r = 0; r < 2 + reps; ++r) {
    SFR_MPI(MPI_Barrier, comm);
    const double t0 = MPI_Wtime();
    if (static_cast<std::size_t>(me_from) < senders) {
      SFR_MPI(MPI_Send, buf.data(), bytes, MPI_BYTE, to[static_cast<std::size_t>(me_from)], kTag, comm);
      SFR_MPI(MPI_Recv, buf.data(), 0, MPI_BYTE, to[static_cast<std::size_t>(me_from)], kToken, comm, MPI_STATUS_IGNORE);
    } else if (static_cast<std::size_t>(me_to) < senders) {
      SFR_MPI(MPI_Recv, buf.data(), bytes, MPI_BYTE, from[static_cast<std::size_t>(me_to)], kTag, comm, MPI_STATUS_IGNORE);
      SFR_MPI(MPI_Send, buf.data(), 0, MPI_BYTE, from[static_cast<std::size_t>(me_to)], kToken, comm);
    }
    if (r >= 2) t.push_back(MPI_Wtime() - t0);
    stall::tick();
  }
  double mine = upper_median(t), worst = 0;
  if (static_cast<std::size_t>(me_from) >= senders) mine = 0;
  SFR_MPI(MPI_Allreduce, &mine, &worst, 1, MPI_DOUBLE, MPI_MAX, comm);
  return worst;
}

// The slowest rank's time per call of `f` (all ranks call it): per rank the least of kRepeats
// blocks' medians.
template <class F>
double per_call(MPI_Comm comm, F&& f) {
  std::vector<double> blocks;
  for (int b = 0; b < kRepeats; ++b) {
    std::vector<double> t;
    for (int r = 0; r < 3 + 20; ++r) {
      const double t0 = MPI_Wtime();
      f();
      if (r >= 3) t.push_back(MPI_Wtime() - t0);
    }
    blocks.push_back(upper_median(t));
    stall::tick();
  }
  double mine = least(blocks), worst = 0;
  SFR_MPI(MPI_Allreduce, &mine, &worst, 1, MPI_DOUBLE, MPI_MAX, comm);
  return worst;
}

// Packing n doubles through a random index list (the executor's pack kernel).
std::vector<core::TimedSample> pack_costs() {
  std::vector<core::TimedSample> out;
  std::mt19937_64 rng(1);
  for (const int n : {1, 4, 16, 64, 256, 1024, 4096, 16384, 65536}) {
    std::vector<double> src(4 * static_cast<std::size_t>(n), 1.0), dst(static_cast<std::size_t>(n));
    std::vector<core::Index> idx(static_cast<std::size_t>(n));
    for (auto& i : idx) i = static_cast<core::Index>(rng() % src.size());
    const core::IndexShape shape = core::classify_indices(idx);
    const int reps = std::max(5, 200000 / n);
    std::vector<double> t;
    for (int r = 0; r < 7; ++r) {
      const double t0 = MPI_Wtime();
      for (int k = 0; k < reps; ++k)
        core::pack(reinterpret_cast<const std::byte*>(src.data()), idx, shape, sizeof(double), reinterpret_cast<std::byte*>(dst.data()));
      t.push_back((MPI_Wtime() - t0) / reps);
    }
    out.push_back({8.0 * n, upper_median(t)});
  }
  return out;
}

// Each step is said on the progress line and, where it waits for other ranks, to the stall watch
// (--stall-timeout); rank 0's own measurements (packs, the device) wait for no one.
struct Say {
  int rank;
  const CalibrateOptions& o;
  void operator()(const std::string& s, bool watched = true) const {
    if (watched)
      stall::doing("calibrate's " + s, {});
    else
      stall::idle();
    if (rank == 0 && o.progress) o.progress(s);
  }
};

// Every rank's node (numbered from 0) and socket: emulated nodes of o.ranks_per_node consecutive
// ranks, else the ranks that share memory. Sets d.nodes, d.ranks_per_node, d.ranks_per_socket.
std::pair<std::vector<int>, std::vector<int>> nodes_and_sockets(MPI_Comm comm, int rank, int size, const CalibrateOptions& o,
                                                                core::CalibrationData& d) {
  int my_node = 0, local = 0, local_size = 1;
  if (o.ranks_per_node > 0) {
    my_node = rank / o.ranks_per_node;
    local = rank % o.ranks_per_node;
    local_size = std::min(o.ranks_per_node, size - my_node * o.ranks_per_node);
  } else {
    MPI_Comm shm;
    SFR_MPI(MPI_Comm_split_type, comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shm);
    MPI_Comm_rank(shm, &local);
    MPI_Comm_size(shm, &local_size);
    int lowest = rank;
    SFR_MPI(MPI_Allreduce, &rank, &lowest, 1, MPI_INT, MPI_MIN, shm);
    MPI_Comm_free(&shm);
    my_node = lowest;  // renumbered below
  }
  const int rps = o.ranks_per_socket > 0 ? o.ranks_per_socket : local_size;
  std::vector<int> node(static_cast<std::size_t>(size)), socket(node.size());
  const int my_socket = local / rps;
  SFR_MPI(MPI_Allgather, &my_node, 1, MPI_INT, node.data(), 1, MPI_INT, comm);
  SFR_MPI(MPI_Allgather, &my_socket, 1, MPI_INT, socket.data(), 1, MPI_INT, comm);
  std::vector<int> ids = node;
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  for (auto& n : node) n = static_cast<int>(std::lower_bound(ids.begin(), ids.end(), n) - ids.begin());
  d.nodes = static_cast<int>(ids.size());
  int rank0_local = local_size;
  SFR_MPI(MPI_Bcast, &rank0_local, 1, MPI_INT, 0, comm);
  d.ranks_per_node = o.ranks_per_node > 0 ? o.ranks_per_node : rank0_local;
  d.ranks_per_socket = std::min(rps, d.ranks_per_node);
  return {node, socket};
}

// The nearest partner of each tier: its lowest rank, and where the ranks are bound to one CPU
// each, its lowest on another CPU than rank 0's if there is one. Ranks that share a core (more
// ranks than cores) pass every message of a ping-pong through a context switch, which the
// exchanges the executor's costs are fitted on (rings across cores) do not: an emulated network
// tier measured between rank 0 and a rank of its core got 0.64 us of short latency against 0.22
// across cores, and every trace's messages between ranks of one core were predicted too slow.
void choose_partners(MPI_Comm comm, int size, const std::vector<int>& node, const std::vector<int>& socket, core::CalibrationData& d) {
  std::vector<int> cpu(static_cast<std::size_t>(size));
  const int my_cpu = bound_cpu();
  SFR_MPI(MPI_Allgather, &my_cpu, 1, MPI_INT, cpu.data(), 1, MPI_INT, comm);
  auto on_cpu_of_0 = [&](int p) { return cpu[0] >= 0 && cpu[static_cast<std::size_t>(p)] == cpu[0]; };
  for (int p = 1; p < size; ++p) {
    const auto q = static_cast<std::size_t>(p);
    int& partner = d.partner[static_cast<std::size_t>(core::tier_between({node[q], socket[q]}, {node[0], socket[0]}))];
    if (partner < 0 || (on_cpu_of_0(partner) && !on_cpu_of_0(p))) partner = p;
  }
}

// Synchronisation: a fence on a window as the window backend makes it (MPI_Win_allocate: Open
// MPI's shared-memory osc on one node), so the fence timed is the one it pays (MPI_Win_create on
// user memory takes osc rdma or pt2pt instead, which also fails outright where the shared-memory
// transport offers no single-copy path: MPI_ERR_WIN on the GPU machine's virtual machine); a
// neighbourhood collective and an alltoallv of empty messages on the ring.
void measure_sync(MPI_Comm comm, int rank, int size, core::CalibrationData& d) {
  double* cell = nullptr;
  MPI_Win win;
  SFR_MPI(MPI_Win_allocate, sizeof(double), sizeof(double), MPI_INFO_NULL, comm, &cell, &win);
  return_errors(win);
  d.fence = per_call(comm, [&] { SFR_MPI(MPI_Win_fence, 0, win); });
  MPI_Win_free(&win);
  std::vector<int> nb;
  for (int x : {(rank + size - 1) % size, (rank + 1) % size})
    if (x != rank && std::find(nb.begin(), nb.end(), x) == nb.end()) nb.push_back(x);
  MPI_Comm ring;
  SFR_MPI(MPI_Dist_graph_create_adjacent, comm, static_cast<int>(nb.size()), nb.data(), MPI_UNWEIGHTED, static_cast<int>(nb.size()), nb.data(),
                                 MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &ring);
  std::vector<int> zn(nb.size() + 1, 0);
  char dummy = 0;
  d.neighbor =
      per_call(comm, [&] { SFR_MPI(MPI_Neighbor_alltoallv, &dummy, zn.data(), zn.data(), MPI_BYTE, &dummy, zn.data(), zn.data(), MPI_BYTE, ring); });
  MPI_Comm_free(&ring);
  std::vector<int> za(static_cast<std::size_t>(size), 0);
  d.alltoallv = per_call(comm, [&] { SFR_MPI(MPI_Alltoallv, &dummy, za.data(), za.data(), MPI_BYTE, &dummy, za.data(), za.data(), MPI_BYTE, comm); });
}

// The executor itself, per backend: a bcast and a reduce on core::calibration_ring, permuted, in
// order, large and small (in order), and a bcast on core::calibration_fan and on the large fan.
// The ring permuted (a run of roots per value) and in order (one run): the backend's cost per op
// and per run of roots its transfers name (one-sided datatypes: a block per run), for each
// direction; the fan (a run per peer, P - 1 peers): its cost per peer; the large ring both ways
// (8 times the values) and the large fan: its costs per byte and per large message; the small
// ring in order (a quarter of the values): its cost per byte below the ring's; the large ring
// permuted: its cost per value packed or unpacked in messages past the ring's; the strided ring,
// on the one-sided backends: their cost per cache line of the peer's roots. And the rings between
// core mates, on basic only (a property of the host, not of a backend).
void measure_executor(MPI_Comm comm, int size, const CalibrateOptions& o, core::CalibrationData& d) {
  using trace::CalibrationShape;
  constexpr std::size_t nb = std::size(core::kCalibratedBackends);
  struct Pattern {
    trace::BuiltTrace bt;
    double* into;  // per backend, or one value (the mates' rings)
    std::vector<std::vector<double>> rounds;  // per backend (one for the mates), its rounds' medians
    bool one_sided_only = false;
    bool times(std::size_t k) const { return !one_sided_only || core::find_backend(core::kCalibratedBackends[k])->transport == core::Transport::one_sided; }
  };
  // A pattern per backend, or with `cores` (the host's) one between core mates.
  auto pattern = [&](CalibrationShape shape, core::OpKind kind, double* into, int cores = 0) {
    return Pattern{trace::BuiltTrace(trace::calibration_trace(size, std::nullopt, shape, kind, std::max(1, cores))), into,
                   std::vector<std::vector<double>>(cores ? 1 : nb)};
  };
  // Every measurement of core::kExecutorMeasurements, on the backends it names.
  using Timed = core::ExecutorMeasurement::Timed;
  std::vector<Pattern> patterns, mates;
  for (const core::ExecutorMeasurement& m : core::kExecutorMeasurements)
    if (m.timed != Timed::from_three_ranks || size >= 3) {
      patterns.push_back(pattern(m.shape, m.kind, (d.*m.field).data()));
      patterns.back().one_sided_only = m.timed == Timed::one_sided;
    }
  if (o.cores > 0 && size > o.cores)
    for (const auto& [shape, into] : {std::pair{CalibrationShape::mate_ring_small, &d.sf_mate_ring_small}, std::pair{CalibrationShape::mate_ring, &d.sf_mate_ring}})
      mates.push_back(pattern(shape, core::OpKind::bcast, into, o.cores));
  // The backends that use nodes run on the measured placement; the node-aware ones only where
  // there is more than one node (on one they have nothing to route, and auto never picks them).
  std::vector<std::size_t> timed;
  for (std::size_t k = 0; k < nb; ++k)
    if (d.nodes > 1 || !core::find_backend(core::kCalibratedBackends[k])->node_aware) timed.push_back(k);
  // Rounds over the backends (each round times every pattern on every backend once), then per
  // backend the least of its rounds' medians: the rounds spread the machine's load over all of
  // them alike.
  auto low_us = [&](const Pattern& p, const char* backend) { return time_ops(comm, p.bt, *core::find_choice(backend), core::kExecutorWarmup, core::kExecutorIters, nullptr, d.ranks_per_node).at(0).low_us; };
  const double t0 = MPI_Wtime(), cpu0 = cpu_seconds();
  int rounds = 0;
  for (int more = 1; more && rounds < core::kMaxExecutorRounds; ++rounds) {
    for (const std::size_t k : timed)
      for (auto& p : patterns)
        if (p.times(k)) p.rounds[k].push_back(low_us(p, core::kCalibratedBackends[k]));
    for (auto& p : mates) p.rounds[0].push_back(low_us(p, core::backend_name(core::BackendId::basic)));
    // Rank 0's clock decides, so that every rank stops after the same round.
    more = rounds + 1 < core::kMinExecutorRounds || MPI_Wtime() - t0 < o.executor_seconds;
    SFR_MPI(MPI_Bcast, &more, 1, MPI_INT, 0, comm);
  }
  d.executor_rounds = rounds;
  static_assert(core::kExecutorMeasurements[1].field == &core::CalibrationData::sf_op_backend_contiguous);
  d.executor_spread = core::round_spread(patterns[1].rounds[0]);  // basic's ring in order, bcast
  // A rank that waits for MPI spins: it holds its share of the cores the whole time unless other
  // processes take them.
  const double share = (cpu_seconds() - cpu0) / std::max(1e-9, MPI_Wtime() - t0) / fair_core_share(comm);
  SFR_MPI(MPI_Allreduce, &share, &d.executor_cpu_share, 1, MPI_DOUBLE, MPI_MIN, comm);
  // Of the rounds, what validate-model's least of its repeats would measure (not the luckiest of
  // 60: core/statistic.hpp).
  for (auto& p : patterns)
    for (const std::size_t k : timed)
      if (p.times(k)) p.into[k] = core::expected_least_of(p.rounds[k], core::kJudgedRepeats) * 1e-6;
  for (auto& p : mates) *p.into = core::expected_least_of(p.rounds[0], core::kJudgedRepeats) * 1e-6;
}

}  // namespace

core::CalibrationData calibrate(MPI_Comm comm, const CalibrateOptions& o) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  core::CalibrationData d;
  d.ranks = size;
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(host, &len);
  d.host.assign(host, static_cast<std::size_t>(len));
  const Say say{rank, o};
  const auto [node, socket] = nodes_and_sockets(comm, rank, size, o, d);
  choose_partners(comm, size, node, socket, d);
  // 1. Ping-pong per tier.
  for (std::size_t k = 0; k < 3; ++k) {
    const int p = d.partner[k];
    if (p < 0) continue;
    say(std::string("ping-pong, tier ") + core::tier_name(static_cast<core::Tier>(k)) + " (rank 0 and " + std::to_string(p) + ")");
    if (rank == 0 || rank == p) d.pingpong[k] = pingpong(comm, rank, p);
    idle_barrier(comm);
  }
  // 2. Overheads and gap per tier: the fastest tier's are every message's unless a slower tier has
  // its own.
  bool fastest = true;
  for (std::size_t k = 0; k < 3; ++k) {
    const int p = d.partner[k];
    if (p < 0) continue;
    say(std::string("LogGP overheads and gap, tier ") + core::tier_name(static_cast<core::Tier>(k)));
    core::CalibrationData::Overheads measured;
    if (rank == 0 || rank == p) overheads(comm, rank, p, measured);
    if (fastest)
      d.overheads = std::move(measured);
    else if (rank == 0)
      d.slower_overheads[k] = std::move(measured);
    fastest = false;
    idle_barrier(comm);
  }
  // 3. Injection: node 0's ranks to node 1's.
  if (d.nodes > 1) {
    std::vector<int> from, to;
    for (int r = 0; r < size; ++r)
      if (node[static_cast<std::size_t>(r)] <= 1) (node[static_cast<std::size_t>(r)] == 0 ? from : to).push_back(r);
    const std::size_t senders = std::min(from.size(), to.size());
    if (senders >= 2) {
      say("injection limit of a node (" + std::to_string(senders) + " senders, then one)");
      d.injection = {static_cast<int>(senders), kInjectionBytes, injection(comm, rank, from, to, senders), injection(comm, rank, from, to, 1)};
    }
  }
  // 4. Synchronisation.
  say("synchronisation: fence, neighbourhood collective, alltoallv");
  measure_sync(comm, rank, size, d);
  // 5. The executor itself.
  say("the executor's own cost per op, per run of roots, per peer and per byte");
  measure_executor(comm, size, o, d);
  // 6. Pack costs (rank 0; the others wait).
  say("pack costs", false);
  if (rank == 0) d.pack = pack_costs();
  idle_barrier(comm);
  // 7. The device's terms, where rank 0 has a device (rank 0 alone on it; the others wait).
  int has_device = rank == 0 && cuda::device_count() > 0 ? 1 : 0;
  SFR_MPI(MPI_Bcast, &has_device, 1, MPI_INT, 0, comm);
  if (has_device) {
    say("device copies, kernel launch and bandwidth", false);
    if (rank == 0) {
      cuda::select_device(0);
      d.device = cuda::measure_device_terms();
    }
    idle_barrier(comm);
  }
  stall::idle();
  return d;
}

}  // namespace sfr::exec::mpi
