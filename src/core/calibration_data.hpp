// What `sf-replay calibrate` measures on a machine (filled by the MPI executor, fitted by the
// simulator's calibration into a machine model). Plain data: times in seconds, sizes in bytes.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/backends.hpp"
#include "core/graph.hpp"
#include "core/op_spec.hpp"
#include "core/statistic.hpp"

namespace sfr::core {

// Values per rank of the ring bcast that measures the executor's own cost per op (2 KiB of
// doubles: a typical ghost exchange message, below the usual shared-memory protocol switch).
constexpr int kCalibrationSfOpValues = 256;
// Values per rank of the large ring (16 KiB of doubles, past the usual switch to rendezvous):
// what each byte beyond the ring of kCalibrationSfOpValues costs the backend beyond the ping-pong's
// wire (copies of ranks that share cores, a protocol's extra copy).
constexpr int kCalibrationLargeValues = 2048;
// Values per rank of the small ring (512 B of doubles, in order: the small end of ghost messages,
// past the usual inline-send sizes): against the ring in order, what each byte below the ring's
// bytes costs the backend (copies between cores and protocols are not linear in size).
constexpr int kCalibrationSmallValues = 64;
// Values per peer of the large fan (5456 B: past the usual 4 KiB eager limit at any rank count;
// at 4 ranks the large ring's bytes).
constexpr int kCalibrationLargeFanValues = 682;
// How the name of a machine calibrate wrote begins ("calibrated on HOST"): a report knows from it
// that a prediction is for the machine measured.
inline constexpr const char* kCalibratedMachinePrefix = "calibrated on ";

// The patterns calibrate times the executor on: the ring permuted (a run of roots per value), in
// order (one run), the fan (a run per peer, P - 1 peers), the large ring both ways
// (kCalibrationLargeValues per rank, calibration_ring_both_ways) and the large fan
// (kCalibrationLargeFanValues per peer): messages past the usual rendezvous switch, the small ring
// in order (kCalibrationSmallValues per rank), the large ring with each half's roots permuted, and
// the ring in order between core mates, of the small ring's values and of the ring's (each rank
// reads the roots of the rank `cores` after it: CalibrationData::sf_mate_ring), and the ring with
// its roots a cache line apart (calibration_ring_strided). Here, beside the graphs, since
// kExecutorMeasurements (below) names them for the executor that times them and the simulator
// that fits them (trace/calibration_ring.hpp makes their traces).
enum class CalibrationShape {
  ring_permuted, ring_in_order, fan, ring_large, fan_large, ring_small, ring_large_permuted, mate_ring_small, mate_ring, ring_strided
};

// The ring of that measurement: rank r has kCalibrationSfOpValues leaves on the roots of rank
// r+1, in a permuted order (so they are packed, as ghost values are, and no two leaves read
// neighbouring roots: kCalibrationSfOpValues runs of roots per rank); with `permuted` false, in
// order (one run). `values`: the leaves (and roots) per rank. `step`: the roots are those of
// rank r+step (the ring between core mates: step = the cores ranks share round robin).
inline Graph calibration_ring(int nranks, bool permuted = true, int values = kCalibrationSfOpValues, int step = 1) {
  Graph g(nranks);
  for (int r = 0; r < nranks; ++r) g[r].nroots = values;
  for (int r = 0; r < nranks; ++r)
    for (int i = 0; i < values; ++i) g[r].add_leaf(i, (r + step) % nranks, permuted ? (37 * i) % values : i);
  return g;
}

// Doubles per 64-byte cache line: the stride of the strided ring below.
constexpr int kCalibrationLineValues = 8;
// The ring of that measurement with its roots a cache line apart: rank r's `values` leaves read
// every kCalibrationLineValues-th root of rank r+1, in order. A run of roots per value, as the
// permuted ring has, but each in a cache line of its own (the permuted ring's lie within 2 KiB,
// as its values would in one block). Against the permuted ring: what a one-sided backend spends
// per cache line of its peer's memory a call touches beyond those its values would fill.
inline Graph calibration_ring_strided(int nranks, int values = kCalibrationSfOpValues) {
  Graph g(nranks);
  for (int r = 0; r < nranks; ++r) g[r].nroots = values * kCalibrationLineValues;
  for (int r = 0; r < nranks; ++r)
    for (int i = 0; i < values; ++i) g[r].add_leaf(i, (r + 1) % nranks, i * kCalibrationLineValues);
  return g;
}

// The large ring of that measurement, both ways: rank r reads the first half of its `values`
// leaves on roots 0.. of rank r+1 and the rest on the following roots of rank r-1, each in order (a
// halo's shape: from 3 ranks two peers each way, one on the rank's emulated node and one off it
// where nodes hold 2 ranks; at 2 ranks both halves are the one peer's roots in order, the ring in
// order).
// With `permuted`, each half reads its roots in a permuted order (a run per value, as
// calibration_ring's): packed (and unpacked) through an index list as scattered ghost values
// are, in messages past the ring's.
inline Graph calibration_ring_both_ways(int nranks, int values, bool permuted = false) {
  Graph g(nranks);
  for (int r = 0; r < nranks; ++r) g[r].nroots = values;
  const int half = values / 2;
  // i -> 37 i mod n is a permutation where 37 shares no factor with n (the halves of
  // kCalibrationLargeValues: powers of two), with no neighbours adjacent.
  auto root = [&](int i) { return !permuted ? i : i < half ? (37 * i) % half : half + (37 * (i - half)) % (values - half); };
  for (int r = 0; r < nranks; ++r)
    for (int i = 0; i < values; ++i) g[r].add_leaf(i, i < half ? (r + 1) % nranks : (r + nranks - 1) % nranks, root(i));
  return g;
}

// The fan of that measurement (at least 3 ranks): rank r reads kCalibrationSfOpValues / (P - 1)
// consecutive roots of every other rank, one run each: P - 1 peers in each direction where the
// ring has one, about the same bytes. Against the ring in order: the backend's cost per peer.
inline int calibration_fan_per_peer(int nranks) { return std::max(1, kCalibrationSfOpValues / std::max(1, nranks - 1)); }
// That fan with `per` values read from each peer (calibration_fan_per_peer, or the large fan's
// kCalibrationLargeFanValues).
inline Graph calibration_fan(int nranks, int per) {
  Graph g(nranks);
  for (int r = 0; r < nranks; ++r) g[r].nroots = per;
  for (int r = 0; r < nranks; ++r) {
    Index j = 0;
    for (int k = 1; k < nranks; ++k)
      for (int i = 0; i < per; ++i) g[r].add_leaf(j++, (r + k) % nranks, i);
  }
  return g;
}

struct TimedSample {
  double x = 0;        // bytes (ping-pong, pack) or messages (train)
  double seconds = 0;  // median over repetitions
};

// One value per calibrated backend (core::kCalibratedBackends' order); -1: not measured.
using PerBackend = std::array<double, kCalibratedBackends.size()>;
inline PerBackend unmeasured() {
  PerBackend v{};
  v.fill(-1);
  return v;
}

struct CalibrationData {
  std::string host;
  int ranks = 0, ranks_per_node = 0, ranks_per_socket = 0, nodes = 1;
  // Half round trips of a blocking ping-pong, per locality tier (socket, node, network); empty
  // when the tier has no pair of ranks.
  std::array<std::vector<TimedSample>, 3> pingpong;
  std::array<int, 3> partner{-1, -1, -1};  // rank 0's partner in each tier
  // LogGP's terms between rank 0 and a partner: CPU time of one MPI_Isend of a small message, of
  // one MPI_Recv of a message already arrived, and a train of k small non-blocking sends and a
  // one-message reply (round trip against k).
  struct Overheads {
    double o_send = 0, o_recv = 0;
    std::vector<TimedSample> train;
  };
  // In the fastest tier measured: the model's.
  Overheads overheads;
  // In each slower tier with a partner of rank 0 (none: the fastest tier's apply). Across a
  // network they are the transport's CPU work per message (TCP: microseconds against a node
  // mate's tenths), which the fastest tier's would leave to the backends' costs per op.
  std::array<std::optional<Overheads>, 3> slower_overheads;
  // Several ranks of node 0 each sending `bytes` to a rank of node 1 of their own at once, then
  // one of them alone: the slowest sender's median time (senders 0: one node, not measured). What
  // went through node 0's NIC is senders x bytes (the fit, sim/calibration.cpp).
  struct Injection {
    int senders = 0;
    double bytes = 0;                        // per sender
    double seconds = 0, single_seconds = 0;  // all senders at once; one alone
  };
  Injection injection;
  // Synchronisation per call, the slowest rank's median: MPI_Win_fence, a neighbourhood
  // alltoallv with empty messages on a ring, an MPI_Alltoallv with empty messages.
  double fence = -1, neighbor = -1, alltoallv = -1;
  // The executor on each of kCalibratedBackends (in its order): a bcast on calibration_ring (each
  // rank packs, sends one message, receives one, unpacks), per call the 20th percentile of the
  // iterations (each the slowest rank's time; core::kLowShare (core/statistic.hpp)).
  // -1: not measured.
  PerBackend sf_op_backend = unmeasured();
  // The same bcast on the ring in order (its roots one run, calibration_ring(n, false)): against
  // the permuted ring, the backend's cost per run of roots (-1: not measured).
  PerBackend sf_op_backend_contiguous = unmeasured();
  // The same rings with a reduce (sum) instead of the bcast: the leaf-to-root direction's own
  // cost per op and per run (a one-sided accumulate walks its datatype applying the op).
  PerBackend sf_reduce_backend = unmeasured();
  PerBackend sf_reduce_backend_contiguous = unmeasured();
  // The bcast and the reduce on the strided ring (calibration_ring_strided), on the one-sided
  // backends only: against the permuted ring, the cost per cache line of the peer's roots
  // (-1: not measured).
  PerBackend sf_op_backend_strided = unmeasured();
  PerBackend sf_reduce_backend_strided = unmeasured();
  // The bcast on calibration_fan (at least 3 ranks; -1: not measured): the cost per peer.
  PerBackend sf_op_backend_fan = unmeasured();
  // The bcast on the large ring (calibration_ring_both_ways(n, kCalibrationLargeValues)):
  // against the ring in order, the backend's cost per byte (-1: not measured).
  PerBackend sf_op_backend_large = unmeasured();
  // The same with a reduce (sum): the leaf-to-root direction's own cost per byte.
  PerBackend sf_reduce_backend_large = unmeasured();
  // The bcast and the reduce on the large ring permuted (calibration_ring_both_ways(n,
  // kCalibrationLargeValues, true)): against the large ring in order, the backend's cost per value
  // packed or unpacked through an index list in messages past the ring's (-1: not measured).
  PerBackend sf_op_backend_large_permuted = unmeasured();
  PerBackend sf_reduce_backend_large_permuted = unmeasured();
  // The bcast and the reduce on the small ring in order (calibration_ring(n, false,
  // kCalibrationSmallValues)): against the ring in order, the backend's cost per byte below the
  // ring's bytes (-1: not measured).
  PerBackend sf_op_backend_small = unmeasured();
  PerBackend sf_reduce_backend_small = unmeasured();
  // The bcast on the large fan (calibration_fan(n, kCalibrationLargeFanValues): at least 3 ranks):
  // against the fan, the backend's cost per large message (-1: not measured).
  PerBackend sf_op_backend_fan_large = unmeasured();
  // Packing n doubles through an index list (bytes, seconds).
  std::vector<TimedSample> pack;
  // Rank 0's device, where the ranks have one (exec/cuda/device_terms.hpp): the copies between
  // pinned host and device memory (bytes, seconds of a cudaMemcpyAsync and its stream's
  // synchronisation), a kernel's launch (seconds a one-value pack kernel and its synchronisation
  // take beyond the synchronisation alone) and the device's bandwidth (bytes read plus written
  // per second by a device-to-device copy). Absent where no device was found.
  struct Device {
    std::string name;
    bool emulated = false;
    std::vector<TimedSample> h2d, d2h;
    double launch = 0, bandwidth = 0;
  };
  std::optional<Device> device;
  // Where the ranks on this host (`ranks_on_host`) outnumber its `cores` (0: they do not, or
  // unknown), placed round robin: the bcast on basic on the ring between core mates
  // (calibration_ring(n, false, values, cores): rank r reads rank r+cores's roots in order), of
  // kCalibrationSmallValues and of kCalibrationSfOpValues per rank, as sf_op_backend (-1: not
  // measured). Against the model of those rings: the share of a message across cores that one
  // between core mates costs.
  int ranks_on_host = 0, cores = 0;
  double sf_mate_ring_small = -1, sf_mate_ring = -1;
  // How the executor's rounds went: how many ran; their spread on basic's ring in order (the
  // median of the rounds over their least: about 1 on a quiet machine, higher under bursts of
  // load); and the least CPU any rank had while they ran, as a share of what it could expect (its
  // CPU time over the wall time, over its fair share of its host's cores: an MPI rank spins while
  // it waits, so about 1 unless other processes took the cores: steady load, which the spread
  // does not see). The fit keeps the least, but a loaded machine's least is loaded too.
  int executor_rounds = 0;
  double executor_spread = 0, executor_cpu_share = 0;
};
// What calibrate times the executor on, one row per CalibrationData::PerBackend field (each a cost
// term's measurement: sim/machine.hpp's kCostTerms names a term's rows): the pattern and op, the
// field, its object of one time per backend in the machine file's calibration.measured, and which
// backends time it. The executor times every row (exec/mpi/calibrate.cpp) and calibrate writes
// every row (cli/cmd_calibrate.cpp) from here: a new measurement is a field above and a row here.
// (Here, not beside kCostTerms: the executor, a lower layer than the simulator, times them.)
struct ExecutorMeasurement {
  // Which backends time it: every one, every one from 3 ranks (the fans: at 2 ranks a fan is the
  // ring), the one-sided ones (the strided ring: only their transfers touch the peer's roots
  // where they lie).
  enum class Timed : std::uint8_t { all, from_three_ranks, one_sided };
  CalibrationShape shape;
  OpKind kind;
  PerBackend CalibrationData::*field;
  std::string_view key;
  Timed timed;
  // Whether the machine file has only the backends measured (a pattern not every backend times);
  // otherwise every backend, -1 where not measured.
  bool measured_only;
};
// In the order the file has them (and the executor times them in each round).
inline constexpr std::array<ExecutorMeasurement, 14> kExecutorMeasurements{{
    {CalibrationShape::ring_permuted, OpKind::bcast, &CalibrationData::sf_op_backend, "sf_op_by_backend_s", ExecutorMeasurement::Timed::all, false},
    {CalibrationShape::ring_in_order, OpKind::bcast, &CalibrationData::sf_op_backend_contiguous, "sf_op_in_order_by_backend_s",
     ExecutorMeasurement::Timed::all, false},
    {CalibrationShape::ring_permuted, OpKind::reduce, &CalibrationData::sf_reduce_backend, "sf_reduce_by_backend_s", ExecutorMeasurement::Timed::all,
     false},
    {CalibrationShape::ring_in_order, OpKind::reduce, &CalibrationData::sf_reduce_backend_contiguous, "sf_reduce_in_order_by_backend_s",
     ExecutorMeasurement::Timed::all, false},
    {CalibrationShape::fan, OpKind::bcast, &CalibrationData::sf_op_backend_fan, "sf_fan_by_backend_s", ExecutorMeasurement::Timed::from_three_ranks,
     true},
    {CalibrationShape::ring_large, OpKind::bcast, &CalibrationData::sf_op_backend_large, "sf_large_by_backend_s", ExecutorMeasurement::Timed::all,
     false},
    {CalibrationShape::ring_large, OpKind::reduce, &CalibrationData::sf_reduce_backend_large, "sf_reduce_large_by_backend_s",
     ExecutorMeasurement::Timed::all, false},
    {CalibrationShape::ring_large_permuted, OpKind::bcast, &CalibrationData::sf_op_backend_large_permuted, "sf_large_permuted_by_backend_s",
     ExecutorMeasurement::Timed::all, false},
    {CalibrationShape::ring_large_permuted, OpKind::reduce, &CalibrationData::sf_reduce_backend_large_permuted,
     "sf_reduce_large_permuted_by_backend_s", ExecutorMeasurement::Timed::all, false},
    {CalibrationShape::ring_small, OpKind::bcast, &CalibrationData::sf_op_backend_small, "sf_small_by_backend_s", ExecutorMeasurement::Timed::all,
     false},
    {CalibrationShape::ring_small, OpKind::reduce, &CalibrationData::sf_reduce_backend_small, "sf_reduce_small_by_backend_s",
     ExecutorMeasurement::Timed::all, false},
    {CalibrationShape::fan_large, OpKind::bcast, &CalibrationData::sf_op_backend_fan_large, "sf_fan_large_by_backend_s",
     ExecutorMeasurement::Timed::from_three_ranks, true},
    {CalibrationShape::ring_strided, OpKind::bcast, &CalibrationData::sf_op_backend_strided, "sf_strided_by_backend_s",
     ExecutorMeasurement::Timed::one_sided, true},
    {CalibrationShape::ring_strided, OpKind::reduce, &CalibrationData::sf_reduce_backend_strided, "sf_reduce_strided_by_backend_s",
     ExecutorMeasurement::Timed::one_sided, true},
}};
// The row of a field (every PerBackend field has one: tests/sim/test_calibration.cpp checks).
inline constexpr const ExecutorMeasurement& executor_measurement(PerBackend CalibrationData::*field) {
  for (const auto& m : kExecutorMeasurements)
    if (m.field == field) return m;
  return kExecutorMeasurements[0];
}

// calibrate's executor rounds: at least kMinExecutorRounds, then until kExecutorSeconds (its
// --executor-seconds) have passed, at most kMaxExecutorRounds. Each round times every pattern on
// every backend once: a few milliseconds on one node, about a second over TCP between nodes.
inline constexpr int kMinExecutorRounds = 10, kMaxExecutorRounds = 60;
inline constexpr double kExecutorSeconds = 20;
// The untimed and timed iterations of one pattern in a round (validate-model's calibration ring
// check times calibrate's ring the same way).
inline constexpr int kExecutorWarmup = 5, kExecutorIters = 60;
// calibrate says that it met load above this spread, or below this share of the CPU expected.
inline constexpr double kLoadedSpread = 1.5, kLoadedCpuShare = 0.8;
// The median of `rounds` over their least (0 when empty or the least is not positive).
inline double round_spread(const std::vector<double>& rounds) {
  const double least = rounds.empty() ? 0 : *std::min_element(rounds.begin(), rounds.end());
  return least > 0 ? upper_median(rounds) / least : 0;
}

}  // namespace sfr::core
