// Machine models: pure data plus cost functions. A model is chosen by name, SimGrid-style:
//  - "postal", "max-rate", "loggp": non-blocking MPI as it behaves. A message's wire latency
//    overlaps with the other messages in flight; only per-message CPU costs (LogGP's o_send,
//    o_recv, gap) serialise at a rank. Flows that share a sender's link, a receiver's link or
//    (max-rate, loggp) a node's NIC share its bandwidth (equal share, re-evaluated whenever a flow
//    starts or ends). postal: alpha (latency) and beta (per byte) only; max-rate: plus the NIC's
//    injection limit; loggp: plus o_send, o_recv, gap.
//  - "study-postal", "study-max-rate": the node-aware study's forms, kept to reproduce it: the
//    sender is busy alpha + beta*s per message (m messages: m*alpha + s*beta), off-node bytes pass
//    the NIC first come first served.
// Parameters are parameters are per locality tier (on-socket / on-node / off-node), per
// protocol (short / eager / rendezvous) and per memory (host / device). Presets: "lassen" (the
// measured Spectrum MPI parameters of the node-aware study, Tables 2, 3, 4) and "generic".
// Machine files are JSON (see sim/README.md); errors name the JSON pointer.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/backends.hpp"
#include "core/calibration_data.hpp"
#include "io/json_strict.hpp"
#include "trace/trace.hpp"

namespace sfr::sim {

enum class ModelKind { postal, max_rate, loggp, study_postal, study_max_rate };
const char* model_name(ModelKind k);
// Throws InputError naming `where` for an unknown name.
ModelKind parse_model(const std::string& name, const std::string& where);
const char* model_names();  // "postal, max-rate, loggp, study-postal, study-max-rate"
inline bool is_study(ModelKind k) { return k == ModelKind::study_postal || k == ModelKind::study_max_rate; }

// Simulator tiers (self is not a message).
using core::Tier;
enum class Proto : std::uint8_t { short_ = 0, eager = 1, rendezvous = 2 };
const char* proto_label(Proto p);

struct AlphaBeta {
  double alpha = 0;  // seconds
  double beta = 0;   // seconds per byte
  double at(double bytes) const { return alpha + beta * bytes; }
};

struct MachineModel {
  std::string name;
  ModelKind model = ModelKind::max_rate;
  // Topology used when the trace has no `machine` (or when override_topology is set).
  trace::Machine topology{1, 1, 0};
  bool override_topology = false;
  // Who set override_topology where it was not the machine file ("--ranks-per-node", the launch's
  // nodes): what the placement line names as its source.
  std::string topology_from;
  // [memory: 0 host, 1 device][tier][protocol]
  std::array<std::array<std::array<AlphaBeta, 3>, 3>, 2> p2p{};
  std::int64_t short_max = 512;   // bytes: size <= short_max uses short
  std::int64_t eager_max = 8192;  // bytes: size <= eager_max uses eager, above: rendezvous
  // Extra one-way short-message latencies of the rendezvous handshake (RTS, CTS) before the data.
  int handshake_legs = 2;
  // Whether short/eager transfers also wait for the matching receive to be posted (SimGrid SMPI's
  // mailbox semantics); rendezvous transfers always do. Eager sends complete locally either way.
  bool eager_waits_for_receive = false;
  double injection_beta = 0;  // R_N^-1, seconds per byte through one node's NIC (max-rate)
  // cudaMemcpyAsync, [0] one process copying, [1] several (4) processes copying one GPU at once.
  std::array<AlphaBeta, 2> h2d{}, d2h{};
  AlphaBeta pack{};                                      // host pack/unpack of one message (seconds, seconds per byte)
  // The GPU's pack and unpack kernels, one of each per device op and rank (what the executor
  // launches: tests/exec_cuda/test_device_counts.cpp): launch seconds plus the bytes the kernel
  // moves (its packed block read and written once: core/kernel_traffic.hpp's floor) over the
  // device's bandwidth (bytes per second; 0: bytes cost nothing). Zero in the presets (the study
  // did not model them); calibrate measures them where the ranks have a device.
  struct DeviceKernels {
    double launch = 0, bandwidth = 0;
    double at(double bytes) const { return launch + (bandwidth > 0 ? 2 * bytes / bandwidth : 0); }
  } kernels{};
  double o_send = 0, o_recv = 0, gap = 0;                // LogGP overheads and gap (seconds)
  // A tier's own overheads and gap, where calibrate measured them apart (a network's transport
  // costs CPU per message a node mate's shared memory does not); none: o_send, o_recv, gap.
  struct LogGP {
    double o_send = 0, o_recv = 0, gap = 0;
    bool operator==(const LogGP&) const = default;
  };
  std::array<std::optional<LogGP>, 3> loggp_tier{};
  LogGP loggp() const { return {o_send, o_recv, gap}; }  // the model's own
  LogGP loggp(Tier k) const { return loggp_tier[static_cast<std::size_t>(k)].value_or(loggp()); }
  // A message's latency where a closed form charges it alone, without the engine's CPU costs (a
  // fence's rounds, empty messages, a handshake, the analytic model, an export): the wire's alpha
  // plus what its tier's overheads exceed the model's own, so that a tier with its own keeps the
  // one-way time its ping-pong measured beyond o_send + o_recv (those the closed forms' fitted
  // terms, fence_overhead and collective_overhead, were fitted beside).
  double latency(bool device, Tier t, Proto p) const {
    const LogGP o = loggp(t);
    return std::max(0.0, ab(device, t, p).alpha + o.o_send + o.o_recv - o_send - o_recv);
  }
  double collective_overhead = 0;                        // per call of a collective (neighbor, alltoallv), seconds
  double fence_overhead = 0;                             // per MPI_Win_fence beyond its dissemination rounds, seconds
  double op_overhead = 0;                                // per op call and rank: the executor's own CPU work (begin/end), seconds
  // Whether a rank's self part overlaps its messages in flight, where the backend does it after
  // starting them (core::BackendInfo::self_while_sending): true where something else than the
  // ranks' cores moves the messages (a NIC's DMA); false where the cores do (shared memory, TCP on
  // one host: measured there, the two orders take the same time), so the self part adds to them.
  bool self_overlap = false;
  // The executor's own costs per backend, term by term, as calibrate fitted them (sim/README.md
  // "Executor costs"): one record per backend, one optional number per term (none: not fitted,
  // the term's default applies), the leaf-to-root direction's own terms where calibrate measured
  // them apart. kCostTerms (below) has a row per term: its machine-file keys and bounds, what it
  // is charged per, what calibrate measures for it and the step that fits it; the file's reader
  // and writer, the lookup (executor_costs), the cost per call and the fit go by the rows.
  struct CostTerms {
    // Per op call and rank (seconds); default op_overhead.
    std::optional<double> op{};
    // Per run of consecutive roots that a rank's leaves read on one peer (seconds): one-sided
    // transfers name their targets as an indexed datatype of one block per run, which MPI walks
    // block by block. Fitted from calibrate's ring permuted against the ring in order.
    std::optional<double> run{};
    // Per peer a rank sends to or receives from beyond the one of each that calibrate's ring has
    // (a request to start and complete, a block to pack or unpack); fitted from its fan of peers.
    std::optional<double> peer{};
    // Per byte a rank sends or receives beyond the wire's (beyond small_byte_until where the
    // backend has a cost per small byte): the copies of ranks that share a core, a protocol's
    // extra copy. Fitted from the large ring, with the cost per large message.
    std::optional<double> byte{};
    // Per byte up to small_byte_until bytes (sent plus received), where copies and protocols cost
    // more or less per byte than above it; may be negative (the wire's model charges those bytes
    // more than the backend spends on them): the cost per call then falls from the cost per op
    // towards what is left at the ring's bytes, never below 0 (ExecutorCosts::per_call). None:
    // `byte` on every byte.
    std::optional<double> small_byte{};
    // A factor (0.05 to 1; default 1) on what the bytes of a host message beyond
    // wire_factor_beyond cost on the wire more than one of that size, and on a rendezvous's
    // latency beyond the eager one's: where the backend moves large messages faster than the
    // ping-pong the wire was fitted on (a one-sided get or put on one node is one memory copy).
    // Fitted from the large ring where it is measured below the model.
    std::optional<double> wire{};
    // Per value packed or unpacked through an index list (not one contiguous block) in a message
    // beyond scatter_beyond bytes (shm's at every size: it copies a list value by value into and
    // out of its segment), in place of the cost per run for those lists: past the MPI's eager
    // limit a packed block is written and read again value by value. Fitted from the large
    // ring permuted against the large ring in order; charged to the rank whose lists they are.
    // None: the cost per run on every list.
    std::optional<double> scatter{};
    // Per large message a rank sends or receives beyond two (seconds; each one's handshake waits
    // for the peer), counted by large_share; fitted from the large fan.
    std::optional<double> large{};
    // Per cache line (64 B) of its peers' roots a rank's calls read or update beyond the lines its
    // values would fill in one block: a one-sided transfer reaches the roots where they lie in the
    // peer's memory, and on one node each line it touches there comes from the peer's cache (so
    // do the window's copies of the roots, whose small gaps it closes). Fitted from the strided
    // ring against the permuted one, each direction; charged to the rank whose leaves they are.
    std::optional<double> line{};
    bool operator==(const CostTerms&) const = default;
  };
  struct BackendCosts : CostTerms {
    // The reduce direction's (reduce, gather, fetch-and-op, degree) op, run, byte, small_byte and
    // scatter where calibrate's rings with a reduce fitted them apart (none of those: the bcast's;
    // op and run: 0).
    std::optional<CostTerms> leaf_to_root{};
    bool operator==(const BackendCosts&) const = default;
  };
  // By backend (the machine file names them: parse_machine and machine_to_json turn names to ids
  // and back).
  std::map<core::BackendId, BackendCosts> backend_costs;
  std::int64_t small_byte_until = 0;    // bytes a rank sends plus receives: where small_byte applies
  std::int64_t wire_factor_beyond = 0;  // bytes of one message: where wire applies
  std::int64_t scatter_beyond = 0;      // bytes of one message: where scatter applies (not to shm)
  // A message of at most large_message_bytes[0] (the fan's) counts as no large message, one of at
  // least [1] (the large fan's) as a whole one, one in between for the fraction of the way.
  std::array<std::int64_t, 2> large_message_bytes{0, 0};
  // How much of a large message one of `bytes` is (above).
  double large_share(std::int64_t bytes) const {
    const auto [from, to] = large_message_bytes;
    if (bytes <= from) return 0;
    if (bytes >= to) return 1;
    return static_cast<double>(bytes - from) / static_cast<double>(to - from);
  }
  // The executor's own costs on `backend` for an op whose first direction is `leaf_to_root` or
  // not, looked up once (the simulator charges them to every rank of every call).
  struct ExecutorCosts {
    double op = 0, run = 0, peer = 0, byte = 0, large = 0, line = 0;
    std::optional<double> scatter{};  // per value scattered past scatter_beyond; none: runs everywhere
    std::optional<double> small_byte{};  // per byte up to small_until (may be < 0); none: as `byte`
    std::int64_t small_until = 0;      // bytes (sent plus received)
    double wire = 1;                   // not per call: the engine's factor on the wire
    // One rank's work per call, the rank reading `runs` runs of roots, exchanging with `peers`
    // peers (those it sends to plus those it receives from), `bytes` bytes (sent plus received),
    // `large` large messages (sent plus received, each counted by large_share) and `scattered`
    // values packed or unpacked through index lists in messages past scatter_beyond, `lines` cache
    // lines of its peers' roots beyond those its values would fill (CostTerms::line): each term's
    // cost times what its row is per (kCostTerms, CostTerm::Per). The cost per op and the small
    // bytes' together are at least 0 (a negative cost per small byte lowers the cost per call no
    // further: the simulator charges no negative work). Defined after kCostTerms.
    double per_call(std::int64_t runs, std::int64_t peers, std::int64_t bytes, double large_msgs, std::int64_t scattered = 0,
                    std::int64_t lines = 0) const;
  };
  // The terms of `backend`'s record, each where it has one (else ExecutorCosts' default; the cost
  // per op: op_overhead), and with `leaf_to_root` its leaf-to-root record's over them (kCostTerms'
  // leaf rows). Defined after kCostTerms.
  ExecutorCosts executor_costs(core::BackendId backend, bool leaf_to_root) const;
  // Ranks that share cores (a host with more ranks than cores, as calibrate measured it): the
  // simulated ranks are placed round robin on `cores` cores of one host (Open MPI's --map-by core),
  // and the executor's own work per call of the ranks on one core is shared between them
  // (processor sharing: one with work c finishes when every rank on its core has had min(c, its
  // own)). The costs per call were fitted with `fitted_ranks_per_core` ranks on each core, every
  // one with the same work, so each rank's own is its fitted cost over that many; a pattern that
  // loads every rank alike at the calibrated rank count is predicted as before (a rank alone on
  // its core pays its own only). cores 0: a core per rank (nothing shared).
  // Two ranks of one core (core mates: r = s mod cores) exchange through that core's caches, and
  // each waits for the other's turn on the core, not for a message in flight: a host message
  // between them costs `mate_factor` (0 to 1) of what one across cores does, on the wire (its
  // latency, bytes and handshake), in its pack and unpack (or shm's copies and handshake; not the
  // node-aware strategies' on-node copies, which the plan sums per rank) and in what the
  // executor's cost per byte adds for it. calibrate fits it from the ring between core mates on one
  // host (1: none fitted).
  // Each effect is applied where its cost is made: the message's (sim/engine.cpp, Engine::message_cost),
  // its pack and shm's copies (sim/strategies.cpp), the executor's per-byte work (sim/simulate.cpp,
  // executor_work) and the sharing of a core in time (sim/simulate.cpp, share_cores).
  struct CoreSharing {
    int cores = 0;
    double fitted_ranks_per_core = 1;
    double mate_factor = 1;
    bool operator==(const CoreSharing&) const = default;
    bool mates(int a, int b) const { return cores > 0 && a != b && a % cores == b % cores; }
    // What a transfer between ranks a and b costs against one across cores.
    double factor(int a, int b) const { return mates(a, b) ? mate_factor : 1.0; }
  };
  CoreSharing core_sharing{};
  // Where the ranks of a host outnumber its cores: what calibrate records of it (nothing else).
  // The costs were fitted on the slowest rank, one of a busiest core's (round robin): as many as
  // the ranks over the cores, rounded up.
  void share_cores(int ranks_on_host, int cores) {
    if (cores > 0 && ranks_on_host > cores) core_sharing = {cores, static_cast<double>((ranks_on_host + cores - 1) / cores), 1};
  }
  int procs_per_node = 40;          // host processes a node can use for the split strategies
  std::int64_t message_cap = 8192;  // split strategies: inter-node message cap (bytes)

  const AlphaBeta& ab(bool device, Tier t, Proto p) const { return p2p[device ? 1 : 0][static_cast<int>(t)][static_cast<int>(p)]; }
  Proto proto_of(std::int64_t bytes) const {
    return bytes <= short_max ? Proto::short_ : bytes <= eager_max ? Proto::eager : Proto::rendezvous;
  }
  const AlphaBeta& copy(bool to_device, int concurrent) const {
    const auto& c = to_device ? h2d : d2h;
    return c[concurrent > 1 ? 1 : 0];
  }
};

// calibrate's fit of one backend's cost terms (sim/executor_fit.cpp): the state its steps share,
// and the steps, each fitting the terms of one set of calibrate's patterns (CostTerm::fit).
struct BackendFit;
namespace fit_step {
void rings(BackendFit& f);    // the rings permuted, in order and small: per op, per run, per small byte
void fan(BackendFit& f);      // the fan: per peer
void large(BackendFit& f);    // the large ring and the large fan: per byte, per large message, the wire factor
void scatter(BackendFit& f);  // the large rings permuted: per scattered value (not on one-sided backends)
void lines(BackendFit& f);    // the strided rings: per cache line (on one-sided backends)
}  // namespace fit_step

// One of the executor's cost terms (MachineModel::CostTerms), a row of kCostTerms: the record's
// field and the cost the simulator charges with it, its keys in the machine file and the bounds
// the reader checks, what it is charged per in a call, what calibrate measures for it and the
// step that fits it.
struct CostTerm {
  using Costs = MachineModel::ExecutorCosts;
  using Measured = core::PerBackend core::CalibrationData::*;
  // What a rank's call is charged the term per (MachineModel::ExecutorCosts::per_call), in the
  // order per_call adds them up: call and small_byte, together at least 0, then the others. The
  // order is the sum's (floating point), kept as the machines were fitted and validated with; the
  // rows are in the machine file's order.
  enum class Per : std::uint8_t { call, small_byte, run, peer, byte, large_message, scattered_value, line, none };

  // The backend's record's value (none: not fitted).
  std::optional<double> MachineModel::CostTerms::*term;
  // The executor's cost it gives (ExecutorCosts), one of the two: a number whose default stands
  // where the record has none, or an optional where having none means something (no cost per
  // small byte: every byte at the cost per byte; none per scattered value: runs everywhere).
  double Costs::*cost = nullptr;
  std::optional<double> Costs::*maybe = nullptr;
  // The machine file's object of one number per calibrated backend, and the term's key in a
  // leaf_to_root_by_backend record ("": not fitted apart; the bcast's applies to both directions).
  std::string_view key, leaf_key;
  // Where a leaf_to_root record lacks the term: true, 0 (the cost per op and per run: the reduce's
  // rings fit the two together, so the bcast's are not its calls'); false, the bcast's.
  bool leaf_own_only = false;
  // The bounds the reader checks (and what its error says is expected); the fit keeps within them.
  double least = 0, most = 0;
  std::string_view expected;
  // The key that says where the term applies ("": everywhere), with what that key holds and what
  // to call the term where no backend has it.
  std::string_view applies = "", applies_what = "", noun = "";
  Per per = Per::none;
  // What calibrate measures for it (core::kExecutorMeasurements' fields): its bcast's and its
  // reduce's pattern (nullptr: none).
  Measured bcast_measured = nullptr, reduce_measured = nullptr;
  // The step that fits it; nullptr: an earlier row's step fits it with that row's term (the same
  // patterns fit both).
  void (*fit)(BackendFit&) = nullptr;

  // The cost it gives, as the record has it.
  std::optional<double> of(const Costs& c) const { return cost ? std::optional(c.*cost) : c.*maybe; }
  void set(Costs& c, double v) const {
    if (cost)
      c.*cost = v;
    else
      c.*maybe = v;
  }
};
inline constexpr double kNoBound = 1e300;
// The rows, in the machine file's order (its keys are written so). calibrate's fit runs the rows'
// steps in this order, each term fitted with those before it: the rings' costs (per op, per run,
// per small byte) under everything, the fan's per peer before the large fan (its peers are
// beyond), the large patterns' costs per byte, per large message and the wire factor before the
// permuted or strided large rings, which are fitted against the large ring in order.
inline constexpr std::array<CostTerm, 9> kCostTerms{{
    {.term = &MachineModel::CostTerms::op, .cost = &CostTerm::Costs::op, .key = "op_overhead_by_backend", .leaf_key = "op",
     .leaf_own_only = true, .least = 0, .most = kNoBound, .expected = "seconds per op call", .per = CostTerm::Per::call,
     .bcast_measured = &core::CalibrationData::sf_op_backend, .reduce_measured = &core::CalibrationData::sf_reduce_backend,
     .fit = fit_step::rings},
    {.term = &MachineModel::CostTerms::run, .cost = &CostTerm::Costs::run, .key = "block_cost_by_backend", .leaf_key = "run",
     .leaf_own_only = true, .least = 0, .most = 1e-6, .expected = "seconds per run of roots, at most 1e-6 (1 us)", .per = CostTerm::Per::run,
     .bcast_measured = &core::CalibrationData::sf_op_backend_contiguous,
     .reduce_measured = &core::CalibrationData::sf_reduce_backend_contiguous},
    {.term = &MachineModel::CostTerms::peer, .cost = &CostTerm::Costs::peer, .key = "peer_cost_by_backend", .leaf_key = "", .least = 0,
     .most = 1e-4, .expected = "seconds per peer, at most 1e-4 (100 us)", .per = CostTerm::Per::peer,
     .bcast_measured = &core::CalibrationData::sf_op_backend_fan, .fit = fit_step::fan},
    {.term = &MachineModel::CostTerms::byte, .cost = &CostTerm::Costs::byte, .key = "byte_cost_by_backend", .leaf_key = "byte", .least = 0,
     .most = 1e-8, .expected = "seconds per byte, at most 1e-8 (10 ns)", .per = CostTerm::Per::byte,
     .bcast_measured = &core::CalibrationData::sf_op_backend_large, .reduce_measured = &core::CalibrationData::sf_reduce_backend_large,
     .fit = fit_step::large},
    {.term = &MachineModel::CostTerms::small_byte, .maybe = &CostTerm::Costs::small_byte, .key = "small_byte_cost_by_backend",
     .leaf_key = "small_byte", .least = -1e-8, .most = 1e-8, .expected = "seconds per byte, from -1e-8 to 1e-8 (10 ns)",
     .applies = "small_byte_until", .applies_what = "the bytes a rank sends plus receives up to which it applies", .noun = "a small_byte cost",
     .per = CostTerm::Per::small_byte, .bcast_measured = &core::CalibrationData::sf_op_backend_small,
     .reduce_measured = &core::CalibrationData::sf_reduce_backend_small},
    {.term = &MachineModel::CostTerms::wire, .cost = &CostTerm::Costs::wire, .key = "wire_factor_by_backend", .leaf_key = "wire", .least = 0.05,
     .most = 1, .expected = "a factor from 0.05 to 1", .applies = "wire_factor_beyond", .applies_what = "the bytes of a message beyond which it applies",
     .noun = "a wire factor", .per = CostTerm::Per::none, .bcast_measured = &core::CalibrationData::sf_op_backend_large,
     .reduce_measured = &core::CalibrationData::sf_reduce_backend_large},
    {.term = &MachineModel::CostTerms::scatter, .maybe = &CostTerm::Costs::scatter, .key = "scatter_cost_by_backend", .leaf_key = "scatter",
     .least = 0, .most = 1e-6, .expected = "seconds per value, at most 1e-6 (1 us)", .applies = "scatter_beyond",
     .applies_what = "the bytes of a message beyond which it applies", .noun = "a scatter cost", .per = CostTerm::Per::scattered_value,
     .bcast_measured = &core::CalibrationData::sf_op_backend_large_permuted,
     .reduce_measured = &core::CalibrationData::sf_reduce_backend_large_permuted, .fit = fit_step::scatter},
    {.term = &MachineModel::CostTerms::large, .cost = &CostTerm::Costs::large, .key = "large_message_cost_by_backend", .leaf_key = "",
     .least = 0, .most = 1e-4, .expected = "seconds per large message, at most 1e-4 (100 us)", .applies = "large_message_bytes",
     .applies_what = "[from, to]: which messages are large", .noun = "a large message cost", .per = CostTerm::Per::large_message,
     .bcast_measured = &core::CalibrationData::sf_op_backend_fan_large},
    {.term = &MachineModel::CostTerms::line, .cost = &CostTerm::Costs::line, .key = "line_cost_by_backend", .leaf_key = "line", .least = 0,
     .most = 1e-6, .expected = "seconds per cache line, at most 1e-6 (1 us)", .per = CostTerm::Per::line,
     .bcast_measured = &core::CalibrationData::sf_op_backend_strided, .reduce_measured = &core::CalibrationData::sf_reduce_backend_strided,
     .fit = fit_step::lines},
}};

// The row of a term (every one has a row: tests/sim/test_machine.cpp checks).
constexpr const CostTerm& cost_term(std::optional<double> MachineModel::CostTerms::*term) {
  for (const CostTerm& t : kCostTerms)
    if (t.term == term) return t;
  return kCostTerms[0];
}

// kCostTerms' rows in the order per_call adds them up (CostTerm::Per's), those of no cost per call
// left out.
inline constexpr auto kPerCallOrder = [] {
  std::array<const CostTerm*, kCostTerms.size()> v{};
  std::size_t n = 0;
  for (std::uint8_t p = 0; p < static_cast<std::uint8_t>(CostTerm::Per::none); ++p)
    for (const CostTerm& t : kCostTerms)
      if (t.per == static_cast<CostTerm::Per>(p)) v[n++] = &t;
  return std::pair{v, n};
}();

inline double MachineModel::ExecutorCosts::per_call(std::int64_t runs, std::int64_t peers, std::int64_t bytes, double large_msgs,
                                                    std::int64_t scattered, std::int64_t lines) const {
  const std::int64_t below = small_byte ? std::min(bytes, small_until) : 0;
  auto count = [&](CostTerm::Per p) -> double {
    switch (p) {
      case CostTerm::Per::call: return 1;
      case CostTerm::Per::small_byte: return static_cast<double>(below);
      case CostTerm::Per::run: return static_cast<double>(runs);
      case CostTerm::Per::peer: return static_cast<double>(std::max<std::int64_t>(0, peers - 2));  // beyond the ring's one each way
      case CostTerm::Per::byte: return static_cast<double>(bytes - below);
      case CostTerm::Per::large_message: return std::max(0.0, large_msgs - 2);  // beyond the ring's one each way
      case CostTerm::Per::scattered_value: return static_cast<double>(scattered);
      case CostTerm::Per::line: return static_cast<double>(lines);
      case CostTerm::Per::none: break;
    }
    return 0;
  };
  // The terms per call and per small byte first, their sum at least 0; then the others, each added
  // to the sum in turn.
  const auto& [order, n] = kPerCallOrder;
  auto charged = [&](const CostTerm& t) { return t.of(*this).value_or(0) * count(t.per); };
  std::size_t i = 0;
  double floored = 0;
  for (; i < n && order[i]->per <= CostTerm::Per::small_byte; ++i) floored += charged(*order[i]);
  double sum = std::max(0.0, floored);
  for (; i < n; ++i) sum += charged(*order[i]);
  return sum;
}

inline MachineModel::ExecutorCosts MachineModel::executor_costs(core::BackendId backend, bool leaf_to_root) const {
  ExecutorCosts c{.op = op_overhead, .small_until = small_byte_until};
  const auto it = backend_costs.find(backend);
  if (it == backend_costs.end()) return c;
  const BackendCosts& b = it->second;
  for (const CostTerm& t : kCostTerms)
    if (const auto& v = b.*t.term) t.set(c, *v);
  if (leaf_to_root && b.leaf_to_root)
    for (const CostTerm& t : kCostTerms)
      if (const auto& v = (*b.leaf_to_root).*t.term; !t.leaf_key.empty() && (v || t.leaf_own_only)) t.set(c, v.value_or(0));
  return c;
}

// Built-in presets by name; nullopt when unknown.
std::optional<MachineModel> preset(const std::string& name);
const char* preset_names();  // "lassen, generic"
// A preset name or a machine file path. Throws InputError (one line, JSON pointer) on bad input.
MachineModel load_machine(const std::string& name_or_path);
MachineModel parse_machine(const io::Json& j, const std::string& source);
// `m` reduced to one postal alpha-beta for every memory kind, tier and protocol, without a
// rendezvous handshake.
MachineModel uniform_postal(MachineModel m, AlphaBeta ab);
// The inline uniform machine "uniform:latency=SECONDS,bandwidth=BYTES_PER_SECOND": one tier and
// one protocol everywhere (postal model, overlapping latency, fair bandwidth sharing), no pack,
// copy, injection, synchronisation or CPU overhead costs; transfers wait for the matching receive
// and sends below 64 KiB complete locally, as in SimGrid SMPI (what it is compared with).
MachineModel uniform_machine(double latency, double bandwidth);
// Full JSON form (round-trips through parse_machine).
io::Json machine_to_json(const MachineModel& m);

}  // namespace sfr::sim
