#include "sim/calibration.hpp"

#include <map>
#include <memory>
#include <optional>
#include <tuple>

#include "core/backends.hpp"
#include "core/format.hpp"
#include "sim/simulate.hpp"
#include "trace/calibration_ring.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace sfr::sim {

namespace {
double rms_rel(const core::TimedSample* s, std::size_t n, AlphaBeta ab) {
  if (n == 0) return 0;
  double e = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double r = (ab.at(s[i].x) - s[i].seconds) / s[i].seconds;
    e += r * r;
  }
  return std::sqrt(e / static_cast<double>(n));
}

AlphaBeta fit_range(const core::TimedSample* s, std::size_t n) {
  if (n == 0) return {};
  double S = 0, Sx = 0, Sy = 0, Sxx = 0, Sxy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double y = std::max(s[i].seconds, 1e-15), w = 1.0 / (y * y), x = s[i].x;
    S += w, Sx += w * x, Sy += w * y, Sxx += w * x * x, Sxy += w * x * y;
  }
  const double det = S * Sxx - Sx * Sx;
  AlphaBeta ab{Sy / S, 0};
  if (det > 1e-300 * S * Sxx && n > 1) {
    ab.beta = (S * Sxy - Sx * Sy) / det;
    ab.alpha = (Sy - ab.beta * Sx) / S;
  }
  if (ab.beta < 0) ab = {Sy / S, 0};
  if (ab.alpha < 0) ab = {0, Sxx > 0 ? Sxy / Sxx : 0};
  return ab;
}

std::string pad(std::string s, std::size_t w) {
  s.resize(std::max(s.size(), w), ' ');
  return s;
}

}  // namespace

AlphaBeta fit_alpha_beta(const std::vector<core::TimedSample>& s, double* rms) {
  const AlphaBeta ab = fit_range(s.data(), s.size());
  if (rms) *rms = rms_rel(s.data(), s.size(), ab);
  return ab;
}

namespace {
// Fits the segments of `s` (sorted by size) cut after the samples at `cut[0]`, `cut[1]` (counts).
ProtocolFit fit_cut(const std::vector<core::TimedSample>& s, std::size_t i, std::size_t j) {
  ProtocolFit f;
  const std::size_t lo[3] = {0, i, j}, hi[3] = {i, j, s.size()};
  for (int k = 0; k < 3; ++k) {
    const auto* p = s.data() + lo[k];
    const std::size_t n = hi[k] - lo[k];
    f.seg[k] = fit_range(p, n);
    f.rms[k] = rms_rel(p, n, f.seg[k]);
    f.count[k] = static_cast<int>(n);
  }
  f.short_max = i > 0 ? static_cast<std::int64_t>(s[i - 1].x) : 0;
  f.eager_max = j > 0 ? static_cast<std::int64_t>(s[j - 1].x) : 0;
  return f;
}
double cost(const ProtocolFit& f) {
  double c = 0;
  for (int k = 0; k < 3; ++k) c += f.rms[k] * f.rms[k] * f.count[k];
  return c;
}
}  // namespace

ProtocolFit fit_protocols(std::vector<core::TimedSample> s) {
  std::sort(s.begin(), s.end(), [](const auto& a, const auto& b) { return a.x < b.x; });
  const std::size_t n = s.size();
  if (n < 6) {
    ProtocolFit f = fit_cut(s, n, n);
    f.seg[1] = f.seg[2] = f.seg[0];
    return f;
  }
  // A step, a protocol switch no line can bridge: from one sample to the next at most 5 % larger,
  // the time rises by a quarter or more (Open MPI's shared-memory eager limit here: 4032 B at 1.2
  // us, 4096 B at 2.0). A segment ends at each (free cuts through a concave stretch below a step
  // fitted better by splitting it and bridging the step with a line from 2 to 8 KiB, which missed
  // both sides of it): the two steepest of those with 2 samples on each side, of only one of two
  // next to each other (a rise over two sizes: its steeper half).
  std::vector<std::size_t> found, steps;  // sample k: a cut after k samples
  for (std::size_t k = 2; k + 2 <= n; ++k)
    if (s[k - 1].seconds > 0 && s[k].x <= 1.05 * s[k - 1].x && s[k].seconds >= 1.25 * s[k - 1].seconds) found.push_back(k);
  std::sort(found.begin(), found.end(), [&](std::size_t a, std::size_t b) {
    return s[a].seconds / s[a - 1].seconds > s[b].seconds / s[b - 1].seconds;
  });
  for (std::size_t k : found)
    if (steps.size() < 2 && std::all_of(steps.begin(), steps.end(), [&](std::size_t q) { return k + 2 <= q || q + 2 <= k; })) steps.push_back(k);
  auto search = [&](bool at_steps) {
    ProtocolFit best;
    double best_cost = std::numeric_limits<double>::infinity();
    for (std::size_t i = 2; i + 4 <= n; ++i)
      for (std::size_t j = i + 2; j + 2 <= n; ++j) {
        if (at_steps && !std::all_of(steps.begin(), steps.end(), [&](std::size_t k) { return k == i || k == j; })) continue;
        const ProtocolFit f = fit_cut(s, i, j);
        if (cost(f) < best_cost) best_cost = cost(f), best = f;
      }
    return std::pair{best, best_cost};
  };
  if (!steps.empty())
    if (const auto [f, c] = search(true); c < std::numeric_limits<double>::infinity()) return f;
  return search(false).first;
}

namespace {
// Segments of `s` by fixed switch points; a segment with fewer than two samples takes its
// neighbour's fit.
ProtocolFit fit_with_thresholds(std::vector<core::TimedSample> s, std::int64_t short_max, std::int64_t eager_max) {
  std::sort(s.begin(), s.end(), [](const auto& a, const auto& b) { return a.x < b.x; });
  std::size_t i = 0, j = 0;
  while (i < s.size() && s[i].x <= static_cast<double>(short_max)) ++i;
  j = i;
  while (j < s.size() && s[j].x <= static_cast<double>(eager_max)) ++j;
  ProtocolFit f = fit_cut(s, i, j);
  if (f.count[0] < 2) f.seg[0] = f.count[1] >= 2 ? f.seg[1] : f.seg[2];
  if (f.count[1] < 2) f.seg[1] = f.count[0] >= 2 ? f.seg[0] : f.seg[2];
  if (f.count[2] < 2) f.seg[2] = f.count[1] >= 2 ? f.seg[1] : f.seg[0];
  f.short_max = short_max, f.eager_max = eager_max;
  return f;
}
}  // namespace

std::vector<std::string> implausible_fit(const MachineModel& m, const MeasuredTiers& measured, double worst_fit_error) {
  std::vector<std::string> out;
  const auto tier = [](int k) { return std::string(core::tier_name(static_cast<Tier>(k))); };
  std::string inverted, zero;
  const auto add = [](std::string& list, const std::string& item) { list += (list.empty() ? "" : "; ") + item; };
  for (int p = 0; p < 3; ++p) {
    const std::string proto = proto_label(static_cast<Proto>(p));
    for (int far = 1; far < 3; ++far)
      for (int near = 0; near < far; ++near) {
        if (!measured[static_cast<std::size_t>(far)] || !measured[static_cast<std::size_t>(near)]) continue;
        const AlphaBeta &f = m.p2p[0][far][p], &n = m.p2p[0][near][p];
        // The latencies with each tier's own overheads beyond the model's (the wire's alone
        // would compare a network less its transport's CPU with a node mate's less its own).
        const double fl = m.latency(false, static_cast<Tier>(far), static_cast<Proto>(p)),
                     nl = m.latency(false, static_cast<Tier>(near), static_cast<Proto>(p));
        if (fl < nl)
          add(inverted, tier(far) + " " + proto + " L " + core::format_number("%.3f us", fl * 1e6) + " < " + tier(near) + " " + core::format_number("%.3f us", nl * 1e6));
        if (f.beta * kImplausibleBetaFactor < n.beta)
          add(inverted, tier(far) + " " + proto + " beta " + core::format_number("%.4f ns/B", f.beta * 1e9) + " < " + tier(near) + " " +
                            core::format_number("%.4f ns/B", n.beta * 1e9));
      }
    for (int k = 0; k < 3; ++k) {
      if (!measured[static_cast<std::size_t>(k)]) continue;
      const AlphaBeta& ab = m.p2p[0][k][p];
      if (ab.alpha <= 0) add(zero, tier(k) + " " + proto + " L " + core::format_number("%g s", ab.alpha));
      if (ab.beta <= 0) add(zero, tier(k) + " " + proto + " beta " + core::format_number("%g s/B", ab.beta));
    }
  }
  // The model's overheads, then each measured tier's own (named by its tier).
  const auto overheads = [&](const std::string& who, const MachineModel::LogGP& o) {
    if (o.o_send <= 0) add(zero, who + core::format_number("o_send %g s", o.o_send));
    if (o.o_recv <= 0) add(zero, who + core::format_number("o_recv %g s", o.o_recv));
  };
  overheads("", m.loggp());
  for (int k = 0; k < 3; ++k)
    if (const auto& o = m.loggp_tier[static_cast<std::size_t>(k)]; o && measured[static_cast<std::size_t>(k)]) overheads(tier(k) + " ", *o);
  if (!inverted.empty())
    out.push_back("a farther tier fitted faster than a nearer one (" + inverted +
                  "); the measurement does not see the topology it assumes (emulated nodes, oversubscribed cores?)");
  if (!zero.empty()) out.push_back("zero or negative fitted terms (" + zero + "); the simulator will take them as free");
  if (worst_fit_error > kImplausibleFitError)
    out.push_back(core::format_number("a ping-pong fit error of %.1f%% (above %.0f%%): the measurements are too noisy for the model", worst_fit_error * 100,
                      kImplausibleFitError * 100));
  return out;
}

namespace {
// The device's terms (rank 0's device): one process's copies each way (the base keeps the
// four-process ones: sfr_bench_cuda copy measures those) and the kernels' launch and bandwidth.
void device_terms(const core::CalibrationData::Device& d, MachineModel& m, std::vector<std::string>& lines) {
  for (const bool to_device : {true, false}) {
    const auto& s = to_device ? d.h2d : d.d2h;
    if (s.size() < 2) continue;
    double rms = 0;
    (to_device ? m.h2d : m.d2h)[0] = fit_alpha_beta(s, &rms);
    const AlphaBeta& ab = (to_device ? m.h2d : m.d2h)[0];
    lines.push_back(std::string("copy ") + (to_device ? "h2d" : "d2h") +
                    core::format_number("   %.3f us + %.4f ns/B, fit error %.1f%% (", ab.alpha * 1e6, ab.beta * 1e9, rms * 100) + d.name + ")");
  }
  m.kernels = {d.launch, d.bandwidth};
  lines.push_back(core::format_number("kernels    %.3f us per launch, %.1f GB/s device memory (a device-to-device copy)", d.launch * 1e6, d.bandwidth * 1e-9));
}
}  // namespace

namespace {
using core::CalibrationData;
using trace::CalibrationShape;

// Ranks that outnumber the host's cores share them: the simulator shares the executor's work per
// call between the ranks of one core (MachineModel::CoreSharing), in every fit below too.
void fit_core_sharing(const CalibrationData& d, Calibration& c) {
  MachineModel& m = c.machine;
  m.share_cores(d.ranks_on_host, d.cores);
  if (m.core_sharing.cores > 0)
    c.lines.push_back("cores      " + std::to_string(d.ranks_on_host) + " ranks share " + std::to_string(m.core_sharing.cores) +
                      " cores round robin: each rank's work per call is shared with those on its core");
}

// LogGP's overheads as measured: the fastest tier's for every tier, but a slower tier measured
// apart (the gaps: fit_gap, next).
void set_overheads(const CalibrationData& d, Calibration& c) {
  MachineModel& m = c.machine;
  m.o_send = d.overheads.o_send, m.o_recv = d.overheads.o_recv;
  c.lines.push_back(core::format_number("LogGP      o_send %.3f us, o_recv %.3f us (measured CPU time per call)", m.o_send * 1e6, m.o_recv * 1e6));
  for (const auto& [tier, name] : core::kTierNames)
    if (const auto& o = d.slower_overheads[static_cast<std::size_t>(tier)]) {
      m.loggp_tier[static_cast<std::size_t>(tier)] = MachineModel::LogGP{o->o_send, o->o_recv, m.gap};
      c.lines.push_back(pad(name, 11) +
                        core::format_number("o_send %.3f us, o_recv %.3f us (its own: its messages' CPU time per call)", o->o_send * 1e6, o->o_recv * 1e6));
    }
}

// One tier's ping-pong as fitted (or copied from the nearest measured tier, `from`, with its
// overheads): one-way time = o_send + L + beta s + o_recv, so the wire latency is what is left of
// the fit's alpha.
void set_tier(const ProtocolFit& fit, int k, int from, Calibration& c) {
  const auto o = c.machine.loggp(static_cast<Tier>(from));
  if (from != k) c.machine.loggp_tier[static_cast<std::size_t>(k)] = c.machine.loggp_tier[static_cast<std::size_t>(from)];
  for (int p = 0; p < 3; ++p) {
    AlphaBeta ab = fit.seg[p];
    ab.alpha = std::max(0.0, ab.alpha - o.o_send - o.o_recv);
    c.machine.p2p[0][k][p] = ab;
    if (from != k) continue;
    c.lines.push_back(pad(core::tier_name(static_cast<Tier>(k)), 11) + pad(proto_label(static_cast<Proto>(p)), 11) +
                      core::format_number("L %.3f us, beta %.4f ns/B (%.0f MB/s)", ab.alpha * 1e6, ab.beta * 1e9, ab.beta > 0 ? 1e-6 / ab.beta : 0.0) +
                      core::format_number(", fit error %.1f%% over %.0f sizes", fit.rms[p] * 100, static_cast<double>(fit.count[p])));
    if (fit.count[p] >= 2) c.worst_rms = std::max(c.worst_rms, fit.rms[p]);
  }
  if (from != k)
    c.lines.push_back(pad(core::tier_name(static_cast<Tier>(k)), 11) + "not measured (no pair of ranks in this tier): copied from " +
                      core::tier_name(static_cast<Tier>(from)));
}

// The wire per tier and protocol: the switch points from the off-node tier when measured (where
// they matter most), else the nearest tier; each measured tier fitted with them, the others
// copying the nearest measured one (the lower first).
void fit_wire(const CalibrationData& d, Calibration& c) {
  MachineModel& m = c.machine;
  int ref = -1;
  for (int k : {2, 1, 0})
    if (ref < 0 && d.pingpong[k].size() >= 2) ref = k;
  if (ref < 0) {
    c.lines.push_back("no ping-pong measured: the generic preset's point-to-point costs are kept");
    return;
  }
  const ProtocolFit sw = fit_protocols(d.pingpong[ref]);
  m.short_max = sw.short_max, m.eager_max = sw.eager_max;
  m.handshake_legs = 0;  // the rendezvous fit includes the handshake
  m.eager_waits_for_receive = false;
  c.lines.push_back("protocols  short <= " + std::to_string(m.short_max) + " B, eager <= " + std::to_string(m.eager_max) +
                    " B, rendezvous above (switch points of the " + core::tier_name(static_cast<Tier>(ref)) +
                    " tier's best three-segment fit; its handshake is in the rendezvous alpha)");
  ProtocolFit fits[3];
  for (int k = 0; k < 3; ++k) {
    c.measured[static_cast<std::size_t>(k)] = d.pingpong[k].size() >= 2;
    if (c.measured[static_cast<std::size_t>(k)]) fits[k] = fit_with_thresholds(d.pingpong[k], m.short_max, m.eager_max);
  }
  for (int k = 0; k < 3; ++k) {
    int from = k;
    for (int dist = 0; !c.measured[static_cast<std::size_t>(from)]; ++dist)
      for (int cand : {k - dist, k + dist})
        if (cand >= 0 && cand < 3 && c.measured[static_cast<std::size_t>(cand)]) {
          from = cand;
          break;
        }
    set_tier(fits[from], k, from, c);
  }
}

// LogGP's gap: the slope of a message train, in the fastest tier and in each tier measured apart
// (one without a train of its own: the fastest's). Before fit_wire, which copies a tier's.
void fit_gap(const CalibrationData& d, Calibration& c) {
  auto slope = [&](const std::vector<core::TimedSample>& train, std::string_view label, double& gap) {
    if (train.size() < 2) return;
    double rms = 0;
    gap = fit_alpha_beta(train, &rms).beta;
    c.lines.push_back(pad(std::string(label), 11) + core::format_number("gap %.3f us per message (slope of a %.0f-size message train), fit error %.1f%%",
                                                        gap * 1e6, static_cast<double>(train.size()), rms * 100));
  };
  slope(d.overheads.train, "LogGP", c.machine.gap);
  for (const auto& [tier, name] : core::kTierNames)
    if (const auto& measured = d.slower_overheads[static_cast<std::size_t>(tier)]) {
      auto& own = *c.machine.loggp_tier[static_cast<std::size_t>(tier)];  // set_overheads made it
      own.gap = c.machine.gap;
      slope(measured->train, name, own.gap);
    }
}

// The NIC's injection limit, where two nodes had two senders each: the seconds per byte of all
// the senders' bytes through node 0 (each sent `bytes`; the slowest took `seconds`).
void fit_injection(const CalibrationData& d, Calibration& c) {
  const auto& in = d.injection;
  if (d.nodes > 1 && in.senders > 1 && in.bytes > 0 && in.seconds > 0) {
    c.machine.injection_beta = in.seconds / (in.senders * in.bytes);
    c.lines.push_back(core::format_number("NIC        %.0f MB/s out of a node with %.0f senders (one sender alone: %.0f MB/s)", 1e-6 / c.machine.injection_beta,
                          static_cast<double>(in.senders), in.single_seconds > 0 ? 1e-6 * in.bytes / in.single_seconds : 0.0));
  } else {
    c.machine.injection_beta = 0;
    c.lines.push_back("NIC        not measured (needs two nodes with two ranks each): no injection limit");
  }
}

// What the model charges the slowest rank of the neighbourhood ring for its empty messages: one
// to and one from each neighbour (each the overheads of its tier), the gap beyond o_send after
// its first send (to r - 1: measure_sync's order), and the latency of its slowest neighbour
// (they overlap).
double ring_empty_messages(const CalibrationData& d, const MachineModel& m) {
  if (d.ranks < 2) return 0;  // no neighbour
  const std::optional<trace::Machine> at = trace::Machine{std::max(1, d.ranks_per_node), std::max(1, d.ranks_per_socket), 0};
  double worst = 0;
  for (int r = 0; r < d.ranks; ++r) {
    std::vector<Tier> peers{trace::tier_of(at, r, (r + d.ranks - 1) % d.ranks)};
    if (d.ranks > 2) peers.push_back(trace::tier_of(at, r, (r + 1) % d.ranks));
    double t = 0, latency = 0;
    for (const Tier k : peers) {
      t += m.loggp(k).o_send + m.loggp(k).o_recv;
      latency = std::max(latency, m.ab(false, k, Proto::short_).alpha);
    }
    const auto first = m.loggp(peers[0]);
    if (peers.size() > 1) t += std::max(0.0, first.gap - first.o_send);
    worst = std::max(worst, t + latency);
  }
  return worst;
}

// The collectives' own cost per call. The measured neighbourhood call sends each rank's ring
// neighbours an empty message, which the model charges the backends' messages already (where a
// message costs microseconds, as over TCP, charging it twice made neighbor and alltoallv 30-60 %
// too slow): the collective's own cost is what it takes beyond them.
void fit_collectives(const CalibrationData& d, Calibration& c) {
  MachineModel& m = c.machine;
  if (d.neighbor >= 0) {
    const double empty = ring_empty_messages(d, m);
    m.collective_overhead = std::max(0.0, d.neighbor - empty);
    c.lines.push_back(core::format_number("sync       neighbourhood collective %.3f us per call (ring, empty messages): %.3f us beyond the model's empty "
                          "messages (%.3f us)",
                          d.neighbor * 1e6, m.collective_overhead * 1e6, empty * 1e6));
  }
  if (d.alltoallv >= 0)  // the simulator's alltoallv (start-up, empty messages) is checked on the ring below
    c.lines.push_back(core::format_number("sync       MPI_Alltoallv of empty messages %.3f us per call", d.alltoallv * 1e6));
}

// MPI_Win_fence's cost beyond the model's dissemination barrier on the ring's layout.
void fit_fence(const CalibrationData& d, const trace::Trace& ring, Calibration& c) {
  MachineModel& m = c.machine;
  if (d.fence < 0) return;
  m.fence_overhead = 0;
  const double barrier = to_seconds(fence_cost(m, layout_for(ring, m), false));
  m.fence_overhead = std::max(0.0, d.fence - barrier);
  c.lines.push_back(core::format_number("sync       MPI_Win_fence %.3f us per call: %.3f us beyond the model's dissemination barrier (%.3f us)", d.fence * 1e6,
                        m.fence_overhead * 1e6, barrier * 1e6));
}

// Host pack and unpack of one message of indexed doubles.
void fit_pack(const CalibrationData& d, Calibration& c) {
  if (d.pack.size() < 2) return;
  double rms = 0;
  MachineModel& m = c.machine;
  m.pack = fit_alpha_beta(d.pack, &rms);
  c.lines.push_back(
      core::format_number("pack       %.3f us + %.4f ns/B per message (indexed doubles), fit error %.1f%%", m.pack.alpha * 1e6, m.pack.beta * 1e9, rms * 100));
}

// One line of the executor's fit for `name` begins so; a direction is named by its op.
std::string head(const char* name) { return std::string("executor   ") + pad(name, 10); }
const char* direction(core::OpKind kind) { return kind == core::OpKind::reduce ? "reduce" : "bcast"; }

// The executor's own work per call, per backend: what the executor measured on calibrate's
// patterns (rings, fans; core/calibration_data.hpp), less what the model (everything else
// calibrated, no such work: `bare`) predicts for them. One method per fitted term, in the order
// fit_backend runs them; each term is fitted with those before it.
class ExecutorFit {
 public:
  ExecutorFit(const CalibrationData& d, Calibration& c)
      : d_(d), c_(c), m_(c.machine), bare_(bare_of(c.machine)), placement_{std::max(1, d.ranks_per_node), std::max(1, d.ranks_per_socket), 0},
        sizes_{8 * core::calibration_fan_per_peer(d.ranks), 8 * core::kCalibrationLargeFanValues} {
    // Bytes up to the ring's (sent plus received) are charged at their own cost per byte (the
    // small ring's), those beyond at the cost per byte (the large ring's).
    m_.small_byte_until = static_cast<std::int64_t>(until_);
  }
  void bound_collective_overhead();
  void fit_backend(std::size_t k);

 private:
  static MachineModel bare_of(MachineModel m) {
    m.op_overhead = 0;
    m.backend_costs.clear();
    return m;
  }
  using Costs = MachineModel::ExecutorCosts;
  // One direction's rings: per run of roots (`run`), and what the cheaper ring spends beyond the
  // model less its runs (`base`: the cost per op and per byte of the ring).
  struct Rings {
    double run = 0, base = 0;
    double model = 0;  // the model's prediction of the permuted ring
    bool in_order = false;
  };
  const trace::BuiltTrace& pattern(CalibrationShape shape, core::OpKind kind);
  OpResult bare_op(CalibrationShape shape, core::OpKind kind, const char* name) {
    return simulate(pattern(shape, kind), bare_, {parse_backend(name, "calibrate")}).backends.at(0).ops.at(0);
  }
  double modelled(CalibrationShape shape, core::OpKind kind, const char* name) { return bare_op(shape, kind, name).total_s; }
  // Bytes a rank sends plus those it receives in a pattern (the simulator's measure of the cost
  // per byte).
  double bytes(CalibrationShape shape) const { return 2.0 * 8.0 * trace::calibration_values(shape, d_.ranks); }
  double predicted(CalibrationShape shape, core::OpKind kind, const char* name, Costs e);
  Rings rings(const char* name, core::OpKind kind, double permuted, double contiguous);
  void op_line(const char* name, core::OpKind kind, double op, double permuted, double model);
  std::optional<double> term(const char* name, CalibrationShape shape, core::OpKind kind, double measured, const Costs& so_far,
                             double Costs::*field, double most, const std::string& unit, double scale, const char* format,
                             const std::string& pattern_text);
  void small_bytes(const char* name, core::OpKind kind, double measured, double permuted, double model, Costs& e);
  std::pair<std::optional<double>, std::optional<double>> byte_and_large(const char* name, double ring_measured, double fan_measured,
                                                                         const std::string& fan_pattern, const Costs& e);
  double wire_factor_at(const char* name, core::OpKind kind, CalibrationShape shape, const Costs& e, double factor, double large) {
    Costs x = e;
    x.wire = factor, x.large = large;
    return predicted(shape, kind, name, x);
  }
  bool wire(const char* name, core::OpKind kind, double ring_measured, double fan_measured, Costs& e);
  std::optional<double> scatter(const char* name, core::OpKind kind, double permuted, double in_order, const Costs& e);
  void mate(const Costs& e);
  void lines(std::size_t k, const char* name, const Costs& e, const std::optional<Costs>& up, MachineModel::BackendCosts& out);
  // The reduce's costs `up` as the file has them for the terms fitted after it: the bcast's (`e`) cost
  // per peer and per large message, and its cost per byte and wire factor where the reduce has
  // none of its own.
  static Costs reduce_costs(const Costs& e, Costs up, const MachineModel::BackendCosts& out) {
    up.peer = e.peer, up.large = e.large;
    if (!out.leaf_to_root->byte) up.byte = e.byte;
    if (!out.leaf_to_root->wire) up.wire = e.wire;
    return up;
  }
  // fit_backend's steps.
  void window_fence(std::size_t k, const char* name);
  std::optional<Costs> reduce_rings(std::size_t k, const char* name, const Costs& e);
  void large_terms(std::size_t k, const char* name, Costs& e, MachineModel::BackendCosts& out);
  void reduce_byte(std::size_t k, const char* name, const Costs& e, Costs& u, MachineModel::BackendCosts& out);

  const CalibrationData& d_;
  Calibration& c_;
  MachineModel& m_;
  MachineModel bare_;
  // The ring calibrate ran on the executor, on the measured placement: its layout is that of
  // every measurement of all ranks. Each pattern's trace is built once, for every backend.
  const trace::Machine placement_;
  std::map<std::pair<CalibrationShape, core::OpKind>, trace::BuiltTrace> patterns_;
  // A backend's wire factor applies to the bytes of a message beyond the ring's (its rings'
  // fits keep).
  const std::int64_t wire_beyond_ = 8 * core::kCalibrationSfOpValues;
  // Its cost per scattered value, to the values of messages past the wire's first protocol
  // switch beyond the ring's messages (Open MPI's shared-memory eager limit here, 4 KiB: past it
  // the MPI hands a packed block over in another protocol; below, it copies any message through
  // its own buffers, and SpMV exchanges of 2.4-3.1 KB cost basic no more packed than in place,
  // where they were predicted up to 76 % slow), if the large rings' messages (half their values
  // each way) are past that switch; else past the ring's messages.
  const std::int64_t scatter_beyond_ = [this] {
    for (const std::int64_t limit : {m_.short_max, m_.eager_max})
      if (limit > wire_beyond_) return limit < 8 * core::kCalibrationLargeValues / 2 ? limit : wire_beyond_;
    return wire_beyond_;
  }();
  const double until_ = bytes(CalibrationShape::ring_in_order);
  // A message counts as large from the fan's size (nothing) to the large fan's (a whole one).
  const std::array<std::int64_t, 2> sizes_;
  const std::string large_ring_ = core::format_number("the ring of %.0f B per rank in order, both ways", 8.0 * core::kCalibrationLargeValues);
  const std::string beyond_ = core::format_number("ns per byte a rank sends or receives beyond %.0f B", until_);
  const std::string large_permuted_ = core::format_number("the ring of %.0f B per rank permuted, both ways", 8.0 * core::kCalibrationLargeValues);
};

const trace::BuiltTrace& ExecutorFit::pattern(CalibrationShape shape, core::OpKind kind) {
  auto it = patterns_.find({shape, kind});
  if (it == patterns_.end())
    it = patterns_.emplace(std::pair{shape, kind}, trace::calibration_trace(d_.ranks, placement_, shape, kind, std::max(1, d_.cores))).first;
  return it->second;
}

// The simulator's prediction of a pattern with the executor costs `e` for `name` (for a reduce:
// its leaf-to-root costs). The patterns are symmetric, so a cost per op shifts every rank alike:
// the prediction is made with it raised past 0 (the simulator charges no negative work; a ring
// measured below the model has a negative one), and with the small bytes' cost too where it is
// negative, and taken back.
double ExecutorFit::predicted(CalibrationShape shape, core::OpKind kind, const char* name, Costs e) {
  const double least = std::min(e.op, e.op + std::min(0.0, e.small_byte.value_or(0)) * static_cast<double>(e.small_until));
  const double shift = std::max(0.0, -least) + 1e-6;
  e.op += shift;
  MachineModel mm = bare_;
  mm.large_message_bytes = m_.large_message_bytes;
  mm.small_byte_until = e.small_until;
  mm.scatter_beyond = scatter_beyond_;
  MachineModel::BackendCosts& b = mm.backend_costs[name];
  MachineModel::CostTerms& dir = kind == core::OpKind::reduce ? b.leaf_to_root.emplace() : b;
  dir.op = e.op, dir.run = e.run, dir.byte = e.byte, dir.scatter = e.scatter, dir.small_byte = e.small_byte, dir.line = e.line;
  b.peer = e.peer, b.large = e.large;
  if (e.wire != 1) dir.wire = e.wire, mm.wire_factor_beyond = wire_beyond_;
  return simulate(pattern(shape, kind), mm, {parse_backend(name, "calibrate")}).backends.at(0).ops.at(0).total_s - shift;
}

// One direction's rings: the ring in order reads one run of roots per rank, the permuted one a
// run per value, so what the backend spends beyond the model on the difference, per run, is its
// cost per run (a one-sided datatype's block). The cheaper of the two, less its runs, is its cost
// per op and per byte of the ring: `base`. Without the ring in order (-1), all of the permuted
// ring is per op.
ExecutorFit::Rings ExecutorFit::rings(const char* name, core::OpKind kind, double permuted, double contiguous) {
  Rings f;
  f.model = modelled(CalibrationShape::ring_permuted, kind, name);
  const double beyond = permuted - f.model;
  f.base = beyond;
  if (contiguous >= 0) {
    const double model_in_order = modelled(CalibrationShape::ring_in_order, kind, name);
    const double beyond_in_order = contiguous - model_in_order;
    f.in_order = true;
    f.run = std::clamp((beyond - beyond_in_order) / (core::kCalibrationSfOpValues - 1), 0.0, 1e-6);  // the file's bound
    f.base = std::min(beyond_in_order - f.run, beyond - f.run * core::kCalibrationSfOpValues);
    c_.lines.push_back(head(name) + core::format_number("%.2f ns per run of roots a rank reads, ", f.run * 1e9) + direction(kind) +
                       core::format_number(" (the ring in order: %.3f us measured, %.3f us modelled)", contiguous * 1e6, model_in_order * 1e6));
  }
  return f;
}

void ExecutorFit::op_line(const char* name, core::OpKind kind, double op, double permuted, double model) {
  c_.lines.push_back(head(name) + core::format_number("%.3f us per op call beyond the model, ", op * 1e6) + direction(kind) +
                     core::format_number(" (the ring of %.0f B per rank: %.3f us measured, ", 8.0 * core::kCalibrationSfOpValues, permuted * 1e6) +
                     core::format_number("%.3f us modelled)", model * 1e6));
}

// A term fitted from a pattern: what the pattern measured beyond the simulator's prediction with
// the costs fitted so far, over what one unit of the term adds to that prediction (the units the
// simulator charges there: a shm rank's on-node peers are copies, not messages). Kept within [0,
// `most`] (the machine file's bounds), and said; nullopt, and said, where the pattern has no such
// unit.
std::optional<double> ExecutorFit::term(const char* name, CalibrationShape shape, core::OpKind kind, double measured, const Costs& so_far,
                                        double Costs::*field, double most, const std::string& unit, double scale, const char* format,
                                        const std::string& pattern_text) {
  const double model = modelled(shape, kind, name);
  const std::string what = head(name);
  const std::string where = " (" + pattern_text + core::format_number(": %.3f us measured, ", measured * 1e6) + core::format_number("%.3f us modelled)", model * 1e6);
  const double base = predicted(shape, kind, name, so_far);
  const double step = field == &Costs::byte ? 1e-12 : 1e-8;
  Costs more = so_far;
  more.*field += step;
  const double per_unit = (predicted(shape, kind, name, more) - base) / step;
  if (per_unit <= 0) {
    c_.lines.push_back(what + "not fitted: no " + unit.substr(unit.find("per ") + 4) + where);
    return std::nullopt;
  }
  const double fitted = (measured - base) / per_unit, kept = std::clamp(fitted, 0.0, most);
  c_.lines.push_back(what + core::format_number(format, kept * scale) + " " + unit + where +
                     (kept != fitted ? "; fitted " + core::format_number(format, fitted * scale) + ", kept at " + core::format_number(format, kept * scale) : std::string()));
  return kept;
}

// The cost per op and per byte up to the ring's bytes: the line through the ring's base (`e.op` on
// entry, at the ring's bytes) and the small ring in order (`measured`; < 0: not measured, the base
// is all per op), its cost per op where it meets no byte. The cost per small byte may be negative:
// the wire's model may charge the bytes below the ring more than the backend spends on them (an
// MPI's short protocol fitted on a ping-pong); the simulator then charges the line as far as it is
// above 0. Kept within the file's bounds, and the cost per op at least 0 (and said): a line below
// 0 at no byte that rises to a positive base runs from 0 to it; one below 0 at both ends is none
// (the file's cost per op is 0 then, and a cost per small byte would only add to rings it
// overcharges).
void ExecutorFit::small_bytes(const char* name, core::OpKind kind, double measured, double permuted, double model, Costs& e) {
  const double at = bytes(CalibrationShape::ring_small);
  e.small_byte = 0, e.small_until = static_cast<std::int64_t>(until_);
  double op = e.op, small = 0, fitted = 0, before = 0;
  if (measured >= 0) {
    before = predicted(CalibrationShape::ring_small, kind, name, e);  // the base alone
    fitted = (before - measured) / (until_ - at);
    small = std::clamp(fitted, -1e-8, 1e-8);
    op = e.op - small * until_;
  }
  const bool op_held = op < 0 && small > 0 && e.op > 0;
  if (op_held)
    small = std::min(e.op / until_, 1e-8), op = 0;
  else if (op < 0)
    small = 0, op = e.op;
  // A ring below the model (a negative cost per op): the machine file gets 0 (and says so), the
  // fits that follow keep the negative one, so that what they fit is the patterns' excess over the
  // ring's.
  op_line(name, kind, std::max(0.0, op), permuted, model);
  if (op < 0) c_.lines.back() += core::format_number("; fitted %.3f us, kept at 0", op * 1e6);
  if (measured >= 0)
    c_.lines.push_back(head(name) + core::format_number("%.4f ns per byte a rank sends or receives up to %.0f B, ", small * 1e9, until_) + direction(kind) +
                       core::format_number(" (the ring of %.0f B per rank in order: %.3f us measured, ", at / 2, measured * 1e6) +
                       core::format_number("%.3f us modelled with the cost per op alone)", before * 1e6) +
                       (small != fitted ? core::format_number("; fitted %.4f, kept at %.4f", fitted * 1e9, small * 1e9) : std::string()) +
                       (op_held ? " (the cost per op at 0)" : "") +
                       (small < 0 ? core::format_number("; a call costs %.3f us beyond the model at no byte, ", op * 1e6) +
                                        core::format_number("%.3f us at the small ring's bytes, ", std::max(0.0, op + small * at) * 1e6) +
                                        core::format_number("%.3f us at the ring's (never below 0)", std::max(0.0, op + small * until_) * 1e6)
                                  : std::string()));
  e.small_byte = small, e.op = op;
}

// The cost per byte and per large message together, from the large ring and the large fan: each
// pattern's excess over the prediction without them, over what one unit of each adds to it (the
// large ring's messages are large too), solved as two equations in two unknowns; one kept within
// its bounds, the other is fitted again with it. A term the patterns have no unit of is not fitted
// (nullopt), and said (shm's large fan on one node: every message a copy).
std::pair<std::optional<double>, std::optional<double>> ExecutorFit::byte_and_large(const char* name, double ring_measured, double fan_measured,
                                                                                    const std::string& fan_pattern, const Costs& e) {
  auto pred = [&](CalibrationShape shape, double byte, double large) {
    Costs x = e;
    x.byte = byte, x.large = large;
    return predicted(shape, core::OpKind::bcast, name, x);
  };
  const double rl = pred(CalibrationShape::ring_large, 0, 0), fl = pred(CalibrationShape::fan_large, 0, 0);
  const double db = 1e-12, dl = 1e-8;
  const double lb = (pred(CalibrationShape::ring_large, db, 0) - rl) / db, ll = (pred(CalibrationShape::ring_large, 0, dl) - rl) / dl;
  const double fb = (pred(CalibrationShape::fan_large, db, 0) - fl) / db, flu = (pred(CalibrationShape::fan_large, 0, dl) - fl) / dl;
  const double ry = ring_measured - rl, fy = fan_measured - fl, det = lb * flu - ll * fb;
  const bool has_byte = lb > 0, has_large = flu > 0;
  double byte = 0, large = 0;
  if (has_byte && has_large && det > 0)
    byte = (ry * flu - ll * fy) / det, large = (lb * fy - fb * ry) / det;
  else if (has_byte)
    byte = ry / lb, large = has_large ? (fy - fb * byte) / flu : 0;
  else if (has_large)
    large = fy / flu;
  const double byte_fitted = byte, large_fitted = large;
  bool byte_kept = false, large_kept = false;
  if (has_byte && (byte < 0 || byte > 1e-8)) {
    byte = std::clamp(byte, 0.0, 1e-8), byte_kept = true;
    if (has_large) large = (fy - fb * byte) / flu;
  }
  if (has_large && (large < 0 || large > 1e-4)) {
    large = std::clamp(large, 0.0, 1e-4), large_kept = true;
    if (has_byte && !byte_kept) byte = std::clamp((ry - ll * large) / lb, 0.0, 1e-8);
  }
  const std::string what = head(name);
  auto said = [&](double value, double fitted, bool kept, const char* format, double scale, const char* other) {
    if (value == fitted) return std::string();
    return kept ? "; fitted " + core::format_number(format, fitted * scale) + ", kept at " + core::format_number(format, value * scale)
                : "; " + core::format_number(format, fitted * scale) + " with the " + other + " at its bound";
  };
  const std::string ring_where = " (" + large_ring_ + core::format_number(": %.3f us measured, %.3f us modelled without it)", ring_measured * 1e6, rl * 1e6);
  const std::string fan_where = " (" + fan_pattern + core::format_number(": %.3f us measured, %.3f us modelled without it)", fan_measured * 1e6, fl * 1e6);
  c_.lines.push_back(what + (has_byte ? core::format_number("%.4f ", byte * 1e9) + beyond_ + ring_where + said(byte, byte_fitted, byte_kept, "%.4f", 1e9, "cost per large message")
                                      : "not fitted: no byte beyond " + core::format_number("%.0f B", until_) + ring_where));
  c_.lines.push_back(what + (has_large ? core::format_number("%.3f us per large message beyond one each way", large * 1e6) + fan_where +
                                             said(large, large_fitted, large_kept, "%.3f", 1e6, "cost per byte")
                                       : "not fitted: no large message beyond one each way" + fan_where));
  return {has_byte ? std::optional(byte) : std::nullopt, has_large ? std::optional(large) : std::nullopt};
}

// The wire factor from the large ring (`ring_measured`), and where the large fan was measured
// (`fan_measured` >= 0) the cost per large message with it, in turns (each fitted with the other's
// last value): the factor within [0.05, 1] where the prediction meets the ring (the prediction
// rises with it), the cost per large message within [0, 1e-4]; said. Whether the cost per large
// message was fitted again.
bool ExecutorFit::wire(const char* name, core::OpKind kind, double ring_measured, double fan_measured, Costs& e) {
  const double before = wire_factor_at(name, kind, CalibrationShape::ring_large, e, 1, e.large), least = 0.05;
  const std::string which = kind == core::OpKind::reduce ? ", reduce" : "";
  // A ring whose prediction does not change with it has no message beyond the limit on the wire
  // (shm's on one node: every one a copy): none, and said.
  if (wire_factor_at(name, kind, CalibrationShape::ring_large, e, least, e.large) >= before) {
    c_.lines.push_back(head(name) + core::format_number("no wire factor: no message beyond %.0f B on the wire", static_cast<double>(wire_beyond_)) + which + " (" +
                       large_ring_ + core::format_number(": %.3f us measured, %.3f us modelled)", ring_measured * 1e6, before * 1e6));
    return false;
  }
  double factor = 1, large = e.large;
  bool refitted = false;
  for (int turn = 0, turns = fan_measured >= 0 ? 60 : 1; turn < turns; ++turn) {
    const double last = factor;
    double lo = least, hi = 1;
    if (wire_factor_at(name, kind, CalibrationShape::ring_large, e, lo, large) >= ring_measured) {
      hi = lo;
    } else {
      for (int i = 0; i < 40; ++i) {
        const double mid = 0.5 * (lo + hi);
        (wire_factor_at(name, kind, CalibrationShape::ring_large, e, mid, large) > ring_measured ? hi : lo) = mid;
      }
    }
    factor = hi;
    if (fan_measured >= 0) {
      const double base = wire_factor_at(name, kind, CalibrationShape::fan_large, e, factor, 0), dl = 1e-8;
      const double per = (wire_factor_at(name, kind, CalibrationShape::fan_large, e, factor, dl) - base) / dl;
      if (per > 0) large = std::clamp((fan_measured - base) / per, 0.0, 1e-4), refitted = true;
    }
    if (turn > 0 && std::abs(factor - last) < 1e-7) break;
  }
  c_.lines.push_back(head(name) + core::format_number("x%.3f", factor) +
                     core::format_number(" on what a message beyond %.0f B costs the wire more than one of that size", static_cast<double>(wire_beyond_)) + which + " (" +
                     large_ring_ + core::format_number(": %.3f us measured, %.3f us modelled with the wire's own)", ring_measured * 1e6, before * 1e6) +
                     (factor <= least ? core::format_number("; kept at %.2f", least) : std::string()));
  if (refitted)
    c_.lines.push_back(head(name) + core::format_number("%.3f us per large message beyond one each way, with the wire factor ", large * 1e6) +
                       core::format_number("(the large fan: %.3f us measured, %.3f us modelled)", fan_measured * 1e6,
                           wire_factor_at(name, kind, CalibrationShape::fan_large, e, factor, large) * 1e6));
  e.wire = factor, e.large = large;
  return refitted;
}

// The cost per value packed or unpacked through an index list in a message past the ring's, in
// place of the cost per run there: the large ring permuted (`permuted`) against the large ring in
// order (`in_order`), each measured beyond the model with the costs `e` fitted so far and none per
// run past the ring's (so that anything it misses on both rings alike stays out), over what one
// unit adds to the permuted ring's prediction. Kept within [0, 1e-6], and said.
std::optional<double> ExecutorFit::scatter(const char* name, core::OpKind kind, double permuted, double in_order, const Costs& e) {
  Costs none = e;
  none.scatter = 0.0;
  const double base = predicted(CalibrationShape::ring_large_permuted, kind, name, none);
  const double base_in_order = predicted(CalibrationShape::ring_large, kind, name, none);
  Costs more = none;
  const double step = 1e-9;
  more.scatter = step;
  const double per = (predicted(CalibrationShape::ring_large_permuted, kind, name, more) - base) / step;
  const std::string where_in = core::find_backend(name)->scatters_every_size
                                   ? std::string("at every size, ")
                                   : core::format_number("in a message beyond %.0f B, ", static_cast<double>(scatter_beyond_));
  const std::string unit = "ns per value packed or unpacked through an index list " + where_in + direction(kind);
  const std::string where = " (" + large_permuted_ + core::format_number(": %.3f us measured, %.3f us modelled without it; ", permuted * 1e6, base * 1e6) +
                            core::format_number("in order %.3f us measured, %.3f us modelled)", in_order * 1e6, base_in_order * 1e6);
  if (per <= 0) {
    c_.lines.push_back(head(name) + "not fitted: no value scattered in a message beyond " + core::format_number("%.0f B", static_cast<double>(scatter_beyond_)) + where);
    return std::nullopt;
  }
  const double fitted = ((permuted - base) - (in_order - base_in_order)) / per, kept = std::clamp(fitted, 0.0, 1e-6);
  c_.lines.push_back(head(name) + core::format_number("%.3f ", kept * 1e9) + unit + where +
                     (kept != fitted ? core::format_number("; fitted %.3f, kept at ", fitted * 1e9) + core::format_number("%.3f", kept * 1e9) : std::string()));
  return kept;
}

// The share of a message across cores that one between core mates costs (CoreSharing::
// mate_factor): the factor within [0, 1], in steps of 0.01, whose predictions of basic's rings
// between core mates (small and of the ring's values, with basic's costs `e` of the rings, which
// cross cores) are nearest the measured ones (the least sum of squared relative errors). Before
// the fans, whose peers include a rank's core mates. Said.
void ExecutorFit::mate(const Costs& e) {
  const std::array<std::pair<CalibrationShape, double>, 2> rings{std::pair{CalibrationShape::mate_ring_small, d_.sf_mate_ring_small},
                                                                 std::pair{CalibrationShape::mate_ring, d_.sf_mate_ring}};
  auto at = [&](double f, CalibrationShape shape) {
    bare_.core_sharing.mate_factor = f;
    return predicted(shape, core::OpKind::bcast, core::backend_name(core::BackendId::basic), e);
  };
  double best = 1, least = -1;
  for (int i = 0; i <= 100; ++i) {
    double err = 0;
    for (const auto& [shape, measured] : rings) err += std::pow(at(i / 100.0, shape) / measured - 1, 2);
    if (least < 0 || err < least) least = err, best = i / 100.0;
  }
  std::string where;
  for (const auto& [shape, measured] : rings)
    where += core::format_number("; the ring of %.0f B per rank between core mates: %.3f us measured, ", 8.0 * trace::calibration_values(shape, d_.ranks),
                 measured * 1e6) +
             core::format_number("%.3f us modelled across cores, ", at(1, shape) * 1e6) + core::format_number("%.3f us with it", at(best, shape) * 1e6);
  bare_.core_sharing.mate_factor = m_.core_sharing.mate_factor = best;
  c_.lines.push_back(core::format_number("cores      a message between two ranks of one core costs x%.2f of one across cores (basic", best) + where + ")" +
                     (best >= 1 || best <= 0 ? core::format_number("; kept at %.0f", best) : std::string()));
}

// The collectives' own cost per call (fit_collectives: an empty neighbourhood call, timed back to
// back) as the collective backends' rings bound it. Over TCP between two nodes that call took
// 26.9 us, while neighbor's whole ring of 2 KiB messages took 15.3 us and its ring of 512 B 9.5:
// every neighbor and alltoallv op was predicted 2-3x too slow. Where one of their rings of a
// call's size (permuted, in order, small; either direction) is below the model with the probe's
// overhead and none of the executor's work, the overhead is lowered by as much as the lowest one
// is below (to 0 at least), and their rings are fitted with it.
void ExecutorFit::bound_collective_overhead() {
  if (m_.collective_overhead <= 0) return;
  double lowest = 0;
  std::string by;
  for (std::size_t k = 0; k < std::size(core::kCalibratedBackends); ++k) {
    const char* name = core::kCalibratedBackends[k];
    if (!core::find_backend(name)->collective_overhead) continue;
    constexpr core::OpKind bcast = core::OpKind::bcast, reduce = core::OpKind::reduce;
    const std::tuple<CalibrationShape, core::OpKind, double> rings[] = {
        {CalibrationShape::ring_permuted, bcast, d_.sf_op_backend[k]},
        {CalibrationShape::ring_in_order, bcast, d_.sf_op_backend_contiguous[k]},
        {CalibrationShape::ring_small, bcast, d_.sf_op_backend_small[k]},
        {CalibrationShape::ring_permuted, reduce, d_.sf_reduce_backend[k]},
        {CalibrationShape::ring_in_order, reduce, d_.sf_reduce_backend_contiguous[k]},
        {CalibrationShape::ring_small, reduce, d_.sf_reduce_backend_small[k]}};
    for (const auto& [shape, kind, measured] : rings) {
      if (measured < 0) continue;
      const double model = modelled(shape, kind, name);
      if (measured - model < lowest)
        lowest = measured - model, by = std::string(name) + "'s " + direction(kind) + core::format_number(" on the ring of %.0f B per rank", 8.0 * trace::calibration_values(shape, d_.ranks)) +
                                         core::format_number(": %.3f us measured, %.3f us modelled", measured * 1e6, model * 1e6);
    }
  }
  if (lowest >= 0) return;
  const double was = m_.collective_overhead;
  m_.collective_overhead = bare_.collective_overhead = std::max(0.0, was + lowest);
  c_.lines.push_back(core::format_number("sync       the collective backends' calls %.3f us beyond their messages, not the empty call's %.3f (", m_.collective_overhead * 1e6,
                         was * 1e6) +
                     by + ")");
}

// The window backend's fences in its own epochs, before its rings are fitted: its two fences per
// op cost less there than the bare fence's measure (back to back, nothing between) where its rings
// are below the model; as much less as the lower of its two directions' rings is below, down to
// the dissemination barrier alone. The lower may be the reduce's: across nodes (Open MPI's osc
// over TCP) an MPI_Get waits for its target's reply, a round trip, where an MPI_Accumulate is sent
// one way (2 ranks on 2 nodes: its ring 40.4 us against the gets' 49.7); with the fence fitted to
// the gets' ring, the model put the accumulates' ring 10.9 us above its measure and the SpMV
// reduces 25-50 % above theirs. The gets' round trip is then the bcast's cost per op.
void ExecutorFit::window_fence(std::size_t k, const char* name) {
  const std::size_t said = c_.lines.size();
  const double down = rings(name, core::OpKind::bcast, d_.sf_op_backend[k], d_.sf_op_backend_contiguous[k]).base;
  const double up = d_.sf_reduce_backend[k] >= 0
                        ? rings(name, core::OpKind::reduce, d_.sf_reduce_backend[k], d_.sf_reduce_backend_contiguous[k]).base
                        : 0;
  c_.lines.resize(said);  // the rings are said where they are fitted
  const double lowest = std::min(down, up);
  if (lowest >= 0 || m_.fence_overhead <= 0) return;
  const double was = m_.fence_overhead;
  m_.fence_overhead = bare_.fence_overhead = std::max(0.0, was + lowest / 2);
  c_.lines.push_back(core::format_number("sync       MPI_Win_fence in the window backend's epochs %.3f us beyond the model's barrier, not %.3f",
                         m_.fence_overhead * 1e6, was * 1e6) +
                     " (its " + (up < down ? "reduce's" : "bcast's") +
                     core::format_number(" ring %.3f us below the model with the bare fence's)", -lowest * 1e6));
}

// The reduce's rings: the leaf-to-root direction's cost per op, per run and per small byte
// (nullopt: no reduce ring measured). A reduce whose ring sends fewer messages than the bcast's
// leaves steps of its plan out (split-md at 4 ranks as 2 nodes of 2: the ring's leaves are where
// its inter-node senders are, so no gather and no redistribution, 2 messages against the bcast's
// 6), and its cost per op misses what those steps cost in every halo (the SpMV ghost exchanges'
// reduces took 4-11 us where the cost per op of its ring predicted 3.4-7.6: 35-47 % below); it
// takes the bcast's cost per op and per small byte (`e`), which its ring fitted with every step.
std::optional<ExecutorFit::Costs> ExecutorFit::reduce_rings(std::size_t k, const char* name, const Costs& e) {
  if (d_.sf_reduce_backend[k] < 0) return std::nullopt;
  const Rings up = rings(name, core::OpKind::reduce, d_.sf_reduce_backend[k], d_.sf_reduce_backend_contiguous[k]);
  Costs u{.op = up.base, .run = up.run};
  small_bytes(name, core::OpKind::reduce, up.in_order ? d_.sf_reduce_backend_small[k] : -1, d_.sf_reduce_backend[k], up.model, u);
  const auto ru = bare_op(CalibrationShape::ring_permuted, core::OpKind::reduce, name).call_messages;
  const auto rd = bare_op(CalibrationShape::ring_permuted, core::OpKind::bcast, name).call_messages;
  if (ru < rd) {
    u.op = e.op, u.small_byte = e.small_byte, u.small_until = e.small_until;
    c_.lines.push_back(head(name) + core::format_number("%.3f us per op call beyond the model, reduce, as the bcast's, and its cost per small byte", std::max(0.0, u.op) * 1e6) +
                       core::format_number(" (its ring sends %.0f messages, the bcast's %.0f: steps of the plan left out; the reduce's own above are not used)",
                           static_cast<double>(ru), static_cast<double>(rd)));
  }
  return u;
}

// The large ring (both ways: from 3 ranks two peers each way, as a halo has) and the large fan
// (the fan's peers with large messages): per byte beyond the ring's and per large message beyond
// one each way, together where both were measured. Then, the large ring below the model even
// without a cost per byte (which can only add): what a message beyond the ring's costs the wire
// more than the ring's is scaled instead, as far as reproduces it, the large fan's cost per large
// message fitted again alongside.
void ExecutorFit::large_terms(std::size_t k, const char* name, Costs& e, MachineModel::BackendCosts& out) {
  const double ring = d_.sf_op_backend_large[k], fan = d_.sf_op_backend_fan_large[k];
  const bool fan_large = d_.ranks >= 3 && fan >= 0 && sizes_[0] < sizes_[1];
  const std::string fan_text = core::format_number("the fan of %.0f B per peer", static_cast<double>(sizes_[1]));
  if (fan_large) m_.large_message_bytes = sizes_;
  if (ring >= 0 && fan_large) {
    const auto [byte, large] = byte_and_large(name, ring, fan, fan_text, e);
    if (byte) out.byte = e.byte = *byte;
    if (large) out.large = e.large = *large;
  } else if (ring >= 0) {
    if (const auto byte = term(name, CalibrationShape::ring_large, core::OpKind::bcast, ring, e, &Costs::byte, 1e-8, beyond_, 1e9, "%.4f", large_ring_))
      out.byte = e.byte = *byte;
  } else if (fan_large) {
    if (const auto large = term(name, CalibrationShape::fan_large, core::OpKind::bcast, fan, e, &Costs::large, 1e-4,
                                "us per large message beyond one each way", 1e6, "%.3f", fan_text))
      out.large = e.large = *large;
  }
  if (ring >= 0 && e.byte <= 0 && predicted(CalibrationShape::ring_large, core::OpKind::bcast, name, e) > ring * 1.001) {
    const bool refitted = wire(name, core::OpKind::bcast, ring, fan_large ? fan : -1, e);
    if (e.wire != 1) out.wire = e.wire, m_.wire_factor_beyond = wire_beyond_;
    if (refitted) out.large = e.large;
  }
}

// The large ring with a reduce: the leaf-to-root direction's own cost per byte, with the bcast's
// costs per peer, per large message and on the wire (`e`); where the ring is faster than that at
// no cost per byte, its own wire factor (window's accumulates on one node: 3.8 us for the ring
// against its gets' 6.4).
void ExecutorFit::reduce_byte(std::size_t k, const char* name, const Costs& e, Costs& u, MachineModel::BackendCosts& out) {
  u.peer = e.peer, u.large = e.large, u.wire = e.wire;
  const double ring = d_.sf_reduce_backend_large[k];
  if (const auto b = term(name, CalibrationShape::ring_large, core::OpKind::reduce, ring, u, &Costs::byte, 1e-8, beyond_ + ", reduce", 1e9,
                          "%.4f", large_ring_))
    out.leaf_to_root->byte = u.byte = *b;
  if (u.byte <= 0 && predicted(CalibrationShape::ring_large, core::OpKind::reduce, name, u) > ring * 1.001) {
    wire(name, core::OpKind::reduce, ring, -1, u);
    if (u.wire != e.wire) out.leaf_to_root->wire = u.wire, m_.wire_factor_beyond = wire_beyond_;
  }
}

// A one-sided backend's cost per cache line of its peers' roots beyond those its values would
// fill, each direction: the strided ring (a value per line, a run per value) against what the
// terms before predict for it (the permuted ring's runs lie in as many lines as its values fill).
// Its window on one node took 1.9 us for 64 values 16 B apart, 2.6 at 64 B and 3.1-3.4 from 128 B
// on, its reduce 2.8 to 4.7-4.8 (2 ranks, this host), where the permuted ring's costs said 2.2 and
// 3.0 at every spacing.
void ExecutorFit::lines(std::size_t k, const char* name, const Costs& e, const std::optional<Costs>& up, MachineModel::BackendCosts& out) {
  const std::string ring = core::format_number("the ring of %.0f values a cache line apart", static_cast<double>(core::kCalibrationSfOpValues));
  const std::string unit = "ns per cache line of a peer's roots beyond its values' block";
  if (d_.sf_op_backend_strided[k] >= 0)
    if (const auto l = term(name, CalibrationShape::ring_strided, core::OpKind::bcast, d_.sf_op_backend_strided[k], e, &Costs::line, 1e-6, unit, 1e9,
                            "%.2f", ring))
      out.line = *l;
  if (!up || d_.sf_reduce_backend_strided[k] < 0) return;
  const Costs u = reduce_costs(e, *up, out);
  if (const auto l = term(name, CalibrationShape::ring_strided, core::OpKind::reduce, d_.sf_reduce_backend_strided[k], u, &Costs::line, 1e-6,
                          unit + ", reduce", 1e9, "%.2f", ring))
    out.leaf_to_root->line = *l;
}

// Every term of one backend (core::kCalibratedBackends[k]), each fitted with those before it.
void ExecutorFit::fit_backend(std::size_t k) {
  const char* name = core::kCalibratedBackends[k];
  MachineModel::BackendCosts& out = m_.backend_costs[name];
  Costs e;
  // 1. The rings (permuted, in order, small): per run of roots, per op and per byte up to the
  // ring's bytes, each direction.
  if (std::string_view(name) == core::backend_name(core::BackendId::window)) window_fence(k, name);
  const Rings down = rings(name, core::OpKind::bcast, d_.sf_op_backend[k], d_.sf_op_backend_contiguous[k]);
  e.run = down.run;
  e.op = down.base;
  small_bytes(name, core::OpKind::bcast, down.in_order ? d_.sf_op_backend_small[k] : -1, d_.sf_op_backend[k], down.model, e);
  out.small_byte = e.small_byte;
  if (down.in_order) out.run = e.run;
  // Backends without costs of their own (the node-aware ones on one node) fall back to basic's
  // cost per op: at the ring's bytes, where basic's line was fitted (with a cost per small byte,
  // which they do not have, basic's own cost per op is the line's at no byte).
  out.op = std::max(0.0, e.op);
  if (k == 0) m_.op_overhead = std::max(0.0, e.op + e.small_byte.value_or(0) * until_);
  std::optional<Costs> up = reduce_rings(k, name, e);
  if (up) out.leaf_to_root = MachineModel::CostTerms{.op = std::max(0.0, up->op), .run = up->run, .small_byte = up->small_byte};
  if (std::string_view(name) == core::backend_name(core::BackendId::basic) && m_.core_sharing.cores > 0 && d_.sf_mate_ring_small > 0 && d_.sf_mate_ring > 0) mate(e);
  // 2. The fan against the rings' costs: P - 1 peers each way and P - 1 runs where the ring has one
  // of each, about the ring's bytes; what is beyond, per extra peer and direction.
  if (d_.sf_op_backend_fan[k] >= 0 && d_.ranks >= 3)
    if (const auto peer = term(name, CalibrationShape::fan, core::OpKind::bcast, d_.sf_op_backend_fan[k], e, &Costs::peer, 1e-4,
                               "us per peer beyond one each way", 1e6, "%.3f", core::format_number("the fan of %.0f peers", static_cast<double>(d_.ranks - 1))))
      out.peer = e.peer = *peer;
  // 3. Per byte and per large message, or the wire factor.
  large_terms(k, name, e, out);
  // 4. The large ring with a reduce: the leaf-to-root direction's own cost per byte.
  if (up && d_.sf_reduce_backend_large[k] >= 0) reduce_byte(k, name, e, *up, out);
  // 5. The large rings permuted against the large rings in order: per value packed or unpacked
  // through an index list in a message past the ring's, beyond the cost per run, each direction.
  // Not one-sided: its MPI reads or updates the roots through a datatype, a block per run, at
  // every size (what it packs value by value is the leaves' side: SpMV's ghosts are one block,
  // the permuted ring's are too), so its cost per run holds past the ring's messages. It has its
  // cost per cache line of the peer's roots instead.
  if (core::find_backend(name)->transport == core::Transport::one_sided) return lines(k, name, e, up, out);
  if (d_.sf_op_backend_large_permuted[k] >= 0 && d_.sf_op_backend_large[k] >= 0)
    if (const auto s = scatter(name, core::OpKind::bcast, d_.sf_op_backend_large_permuted[k], d_.sf_op_backend_large[k], e))
      e.scatter = *s, out.scatter = *s, m_.scatter_beyond = scatter_beyond_;
  if (up && d_.sf_reduce_backend_large_permuted[k] >= 0 && d_.sf_reduce_backend_large[k] >= 0) {
    const Costs u = reduce_costs(e, *up, out);
    if (const auto s = scatter(name, core::OpKind::reduce, d_.sf_reduce_backend_large_permuted[k], d_.sf_reduce_backend_large[k], u))
      out.leaf_to_root->scatter = *s, m_.scatter_beyond = scatter_beyond_;
  }
}
}  // namespace

// Fitting a machine model to what calibrate measured (sim/calibration.hpp), one fit per term.
Calibration calibrate_machine(const CalibrationData& d) {
  Calibration c;
  MachineModel& m = c.machine;
  m = *preset("generic");
  m.name = core::kCalibratedMachinePrefix + (d.host.empty() ? std::string("this machine") : d.host);
  m.model = ModelKind::loggp;
  m.topology = {std::max(1, d.ranks_per_node), std::max(1, d.ranks_per_socket), 0};
  fit_core_sharing(d, c);
  set_overheads(d, c);
  fit_gap(d, c);
  fit_wire(d, c);
  fit_injection(d, c);
  fit_collectives(d, c);
  const bool ring = d.ranks >= 2;  // calibrate's ring (trace::calibration_ring_trace) ran
  if (ring) fit_fence(d, trace::calibration_ring_trace(d.ranks, trace::Machine{std::max(1, d.ranks_per_node), std::max(1, d.ranks_per_socket), 0}), c);
  fit_pack(d, c);
  if (d.device) device_terms(*d.device, m, c.lines);
  if (!ring || d.sf_op_backend[0] < 0) return c;
  ExecutorFit fit(d, c);
  fit.bound_collective_overhead();
  for (std::size_t k = 0; k < std::size(core::kCalibratedBackends); ++k)
    if (d.sf_op_backend[k] >= 0) fit.fit_backend(k);
  return c;
}

}  // namespace sfr::sim
