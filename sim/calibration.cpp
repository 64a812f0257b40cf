#include "sim/calibration.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "core/backends.hpp"
#include "core/format.hpp"
#include "sim/executor_fit.hpp"
#include "sim/simulate.hpp"
#include "trace/calibration_ring.hpp"

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
      c.lines.push_back(core::padded(name, 11) +
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
    c.lines.push_back(core::padded(core::tier_name(static_cast<Tier>(k)), 11) + core::padded(proto_label(static_cast<Proto>(p)), 11) +
                      core::format_number("L %.3f us, beta %.4f ns/B (%.0f MB/s)", ab.alpha * 1e6, ab.beta * 1e9, ab.beta > 0 ? 1e-6 / ab.beta : 0.0) +
                      core::format_number(", fit error %.1f%% over %.0f sizes", fit.rms[p] * 100, static_cast<double>(fit.count[p])));
    if (fit.count[p] >= 2) c.worst_rms = std::max(c.worst_rms, fit.rms[p]);
  }
  if (from != k)
    c.lines.push_back(core::padded(core::tier_name(static_cast<Tier>(k)), 11) + "not measured (no pair of ranks in this tier): copied from " +
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
    c.lines.push_back(core::padded(std::string(label), 11) + core::format_number("gap %.3f us per message (slope of a %.0f-size message train), fit error %.1f%%",
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
  fit_executor(d, c);
  return c;
}

}  // namespace sfr::sim
