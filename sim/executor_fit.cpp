#include "sim/executor_fit.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "core/backends.hpp"
#include "core/format.hpp"
#include "sim/simulate.hpp"
#include "trace/calibration_ring.hpp"

// The executor's own work per call, per backend: what the executor measured on calibrate's
// patterns (rings, fans; core/calibration_data.hpp), less what the model (everything else
// calibrated, no such work: `bare`) predicts for them. kCostTerms (sim/machine.hpp) names each
// term's step (fit_step::*, below); fit_executor runs them in its rows' order, so that each term
// is fitted with those before it. The steps share a FitContext (the whole fit's) and a BackendFit
// (the backend's costs so far); the helpers they share come first.

namespace sfr::sim {

namespace {

using core::CalibrationData;
using trace::CalibrationShape;
using Costs = MachineModel::ExecutorCosts;
using Terms = MachineModel::CostTerms;

// One line of the executor's fit for `name` begins so; a direction is named by its op.
std::string head(const char* name) { return std::string("executor   ") + core::padded(name, 10); }
const char* direction(core::OpKind kind) { return kind == core::OpKind::reduce ? "reduce" : "bcast"; }

// Bytes a rank sends plus those it receives in a pattern (the simulator's measure of the cost per
// byte).
double pattern_bytes(CalibrationShape shape, int ranks) { return 2.0 * 8.0 * trace::calibration_values(shape, ranks); }

// The model the patterns' excess is measured against: everything calibrated but the executor's own
// work.
MachineModel bare_of(MachineModel m) {
  m.op_overhead = 0;
  m.backend_costs.clear();
  return m;
}

// A backend's cost per scattered value applies to the values of messages past the wire's first
// protocol switch beyond the ring's messages (`wire_beyond`; Open MPI's shared-memory eager limit
// here, 4 KiB: past it the MPI hands a packed block over in another protocol; below, it copies any
// message through its own buffers, and SpMV exchanges of 2.4-3.1 KB cost basic no more packed than
// in place, where they were predicted up to 76 % slow), if the large rings' messages (half their
// values each way) are past that switch; else past the ring's messages.
std::int64_t scatter_limit(const MachineModel& m, std::int64_t wire_beyond) {
  for (const std::int64_t limit : {m.short_max, m.eager_max})
    if (limit > wire_beyond) return limit < 8 * core::kCalibrationLargeValues / 2 ? limit : wire_beyond;
  return wire_beyond;
}

// What the fit of every backend shares: the measurements, the machine being fitted (c.machine, its
// network fitted) and the model without the executor's work, the patterns' traces, and where the
// terms that apply past a size apply.
struct FitContext {
  FitContext(const CalibrationData& data, Calibration& cal)
      : d(data),
        c(cal),
        m(cal.machine),
        bare(bare_of(cal.machine)),
        placement{std::max(1, data.ranks_per_node), std::max(1, data.ranks_per_socket), 0},
        scatter_beyond(scatter_limit(cal.machine, wire_beyond)),
        until(pattern_bytes(CalibrationShape::ring_in_order, data.ranks)),
        sizes{8 * core::calibration_fan_per_peer(data.ranks), 8 * core::kCalibrationLargeFanValues},
        beyond(core::format_number("ns per byte a rank sends or receives beyond %.0f B", until)) {
    // Bytes up to the ring's (sent plus received) are charged at their own cost per byte (the
    // small ring's), those beyond at the cost per byte (the large ring's).
    m.small_byte_until = static_cast<std::int64_t>(until);
  }
  const CalibrationData& d;
  Calibration& c;
  MachineModel& m;
  MachineModel bare;
  // The ring calibrate ran on the executor, on the measured placement: its layout is that of
  // every measurement of all ranks. Each pattern's trace is built once, for every backend.
  const trace::Machine placement;
  std::map<std::pair<CalibrationShape, core::OpKind>, trace::BuiltTrace> patterns;
  // A backend's wire factor applies to the bytes of a message beyond the ring's (its rings'
  // fits keep); its cost per scattered value past scatter_limit's.
  const std::int64_t wire_beyond = 8 * core::kCalibrationSfOpValues;
  const std::int64_t scatter_beyond;
  const double until;  // the ring's bytes: where the cost per small byte ends
  // A message counts as large from the fan's size (nothing) to the large fan's (a whole one).
  const std::array<std::int64_t, 2> sizes;
  const std::string large_ring = core::format_number("the ring of %.0f B per rank in order, both ways", 8.0 * core::kCalibrationLargeValues);
  const std::string beyond;
  const std::string large_permuted = core::format_number("the ring of %.0f B per rank permuted, both ways", 8.0 * core::kCalibrationLargeValues);
};

}  // namespace

// One backend's fit (core::kCalibratedBackends[k]), what kCostTerms' steps pass on: its record in
// the machine (`out`), its bcast's costs so far (`e`, with a negative cost per op where its ring
// is below the model, so that what the later steps fit is their patterns' excess over the
// ring's) and its reduce's (`up`, where its reduce rings were measured).
struct BackendFit {
  FitContext& x;
  std::size_t k;
  const char* name;
  core::BackendId id;
  MachineModel::BackendCosts& out;
  Costs e{};
  std::optional<Costs> up{};
  double measured(core::PerBackend CalibrationData::*field) const { return (x.d.*field)[k]; }
};

namespace {

const trace::BuiltTrace& pattern(FitContext& x, CalibrationShape shape, core::OpKind kind) {
  auto it = x.patterns.find({shape, kind});
  if (it == x.patterns.end())
    it = x.patterns.emplace(std::pair{shape, kind}, trace::calibration_trace(x.d.ranks, x.placement, shape, kind, std::max(1, x.d.cores))).first;
  return it->second;
}

OpResult bare_op(FitContext& x, CalibrationShape shape, core::OpKind kind, core::BackendId id) {
  return simulate(pattern(x, shape, kind), x.bare, {BackendVariant{id}}).backends.at(0).ops.at(0);
}
double modelled(FitContext& x, CalibrationShape shape, core::OpKind kind, core::BackendId id) { return bare_op(x, shape, kind, id).total_s; }

// The simulator's prediction of a pattern with the executor costs `e` for f's backend (for a
// reduce: its leaf-to-root costs), each term in the record as kCostTerms' rows have it. The
// patterns are symmetric, so a cost per op shifts every rank alike: the prediction is made with it
// raised past 0 (the simulator charges no negative work; a ring measured below the model has a
// negative one), and with the small bytes' cost too where it is negative, and taken back.
double predicted(const BackendFit& f, CalibrationShape shape, core::OpKind kind, Costs e) {
  FitContext& x = f.x;
  const double least = std::min(e.op, e.op + std::min(0.0, e.small_byte.value_or(0)) * static_cast<double>(e.small_until));
  const double shift = std::max(0.0, -least) + 1e-6;
  e.op += shift;
  MachineModel mm = x.bare;
  mm.large_message_bytes = x.m.large_message_bytes;
  mm.small_byte_until = e.small_until;
  mm.scatter_beyond = x.scatter_beyond;
  MachineModel::BackendCosts& b = mm.backend_costs[f.id];
  Terms& dir = kind == core::OpKind::reduce ? b.leaf_to_root.emplace() : b;
  for (const CostTerm& t : kCostTerms) {
    // (Through a reference: GCC 12 assigns `(c ? x : y).*member` to a copy.)
    Terms& to = t.leaf_key.empty() ? b : dir;
    to.*t.term = t.of(e);
  }
  if (e.wire != 1) mm.wire_factor_beyond = x.wire_beyond;
  return simulate(pattern(x, shape, kind), mm, {BackendVariant{f.id}}).backends.at(0).ops.at(0).total_s - shift;
}

// One direction's rings: per run of roots (`run`), and what the cheaper ring spends beyond the
// model less its runs (`base`: the cost per op and per byte of the ring).
struct Rings {
  double run = 0, base = 0;
  double model = 0;  // the model's prediction of the permuted ring
  bool in_order = false;
};

// The ring in order reads one run of roots per rank, the permuted one a run per value, so what the
// backend spends beyond the model on the difference, per run, is its cost per run (a one-sided
// datatype's block). The cheaper of the two, less its runs, is its cost per op and per byte of the
// ring: `base`. Without the ring in order (-1), all of the permuted ring is per op.
Rings rings(const BackendFit& f, core::OpKind kind, double permuted, double contiguous) {
  FitContext& x = f.x;
  Rings r;
  r.model = modelled(x, CalibrationShape::ring_permuted, kind, f.id);
  const double beyond = permuted - r.model;
  r.base = beyond;
  if (contiguous >= 0) {
    const double model_in_order = modelled(x, CalibrationShape::ring_in_order, kind, f.id);
    const double beyond_in_order = contiguous - model_in_order;
    r.in_order = true;
    r.run = std::clamp((beyond - beyond_in_order) / (core::kCalibrationSfOpValues - 1), 0.0, cost_term(&Terms::run).most);
    r.base = std::min(beyond_in_order - r.run, beyond - r.run * core::kCalibrationSfOpValues);
    x.c.lines.push_back(head(f.name) + core::format_number("%.2f ns per run of roots a rank reads, ", r.run * 1e9) + direction(kind) +
                        core::format_number(" (the ring in order: %.3f us measured, %.3f us modelled)", contiguous * 1e6, model_in_order * 1e6));
  }
  return r;
}

void op_line(const BackendFit& f, core::OpKind kind, double op, double permuted, double model) {
  f.x.c.lines.push_back(head(f.name) + core::format_number("%.3f us per op call beyond the model, ", op * 1e6) + direction(kind) +
                        core::format_number(" (the ring of %.0f B per rank: %.3f us measured, ", 8.0 * core::kCalibrationSfOpValues, permuted * 1e6) +
                        core::format_number("%.3f us modelled)", model * 1e6));
}

// Term `t` of the direction `kind` fitted from its pattern (the row's measurement): what the
// pattern measured beyond the simulator's prediction with the costs fitted so far, over what one
// unit of the term adds to that prediction (the units the simulator charges there: a shm rank's
// on-node peers are copies, not messages). Kept within the row's bounds from 0, and said; nullopt,
// and said, where the pattern has no such unit.
std::optional<double> term(const BackendFit& f, const CostTerm& t, core::OpKind kind, const Costs& so_far, const std::string& unit, double scale,
                           const char* format, const std::string& pattern_text) {
  const auto field = kind == core::OpKind::reduce ? t.reduce_measured : t.bcast_measured;
  const core::ExecutorMeasurement& p = core::executor_measurement(field);
  const double measured = f.measured(field);
  const double model = modelled(f.x, p.shape, p.kind, f.id);
  const std::string what = head(f.name);
  const std::string where = " (" + pattern_text + core::format_number(": %.3f us measured, ", measured * 1e6) + core::format_number("%.3f us modelled)", model * 1e6);
  const double base = predicted(f, p.shape, p.kind, so_far);
  const double step = t.cost == &Costs::byte ? 1e-12 : 1e-8;
  Costs more = so_far;
  more.*t.cost += step;
  const double per_unit = (predicted(f, p.shape, p.kind, more) - base) / step;
  if (per_unit <= 0) {
    f.x.c.lines.push_back(what + "not fitted: no " + unit.substr(unit.find("per ") + 4) + where);
    return std::nullopt;
  }
  const double fitted = (measured - base) / per_unit, kept = std::clamp(fitted, 0.0, t.most);
  f.x.c.lines.push_back(what + core::format_number(format, kept * scale) + " " + unit + where +
                        (kept != fitted ? "; fitted " + core::format_number(format, fitted * scale) + ", kept at " + core::format_number(format, kept * scale)
                                        : std::string()));
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
void small_bytes(const BackendFit& f, core::OpKind kind, double measured, double permuted, double model, Costs& e) {
  FitContext& x = f.x;
  const CostTerm& row = cost_term(&Terms::small_byte);
  const double at = pattern_bytes(CalibrationShape::ring_small, x.d.ranks), until = x.until;
  e.small_byte = 0, e.small_until = static_cast<std::int64_t>(until);
  double op = e.op, small = 0, fitted = 0, before = 0;
  if (measured >= 0) {
    before = predicted(f, CalibrationShape::ring_small, kind, e);  // the base alone
    fitted = (before - measured) / (until - at);
    small = std::clamp(fitted, row.least, row.most);
    op = e.op - small * until;
  }
  const bool op_held = op < 0 && small > 0 && e.op > 0;
  if (op_held)
    small = std::min(e.op / until, row.most), op = 0;
  else if (op < 0)
    small = 0, op = e.op;
  // A ring below the model (a negative cost per op): the machine file gets 0 (and says so), the
  // fits that follow keep the negative one, so that what they fit is the patterns' excess over the
  // ring's.
  op_line(f, kind, std::max(0.0, op), permuted, model);
  if (op < 0) x.c.lines.back() += core::format_number("; fitted %.3f us, kept at 0", op * 1e6);
  if (measured >= 0)
    x.c.lines.push_back(head(f.name) + core::format_number("%.4f ns per byte a rank sends or receives up to %.0f B, ", small * 1e9, until) + direction(kind) +
                        core::format_number(" (the ring of %.0f B per rank in order: %.3f us measured, ", at / 2, measured * 1e6) +
                        core::format_number("%.3f us modelled with the cost per op alone)", before * 1e6) +
                        (small != fitted ? core::format_number("; fitted %.4f, kept at %.4f", fitted * 1e9, small * 1e9) : std::string()) +
                        (op_held ? " (the cost per op at 0)" : "") +
                        (small < 0 ? core::format_number("; a call costs %.3f us beyond the model at no byte, ", op * 1e6) +
                                         core::format_number("%.3f us at the small ring's bytes, ", std::max(0.0, op + small * at) * 1e6) +
                                         core::format_number("%.3f us at the ring's (never below 0)", std::max(0.0, op + small * until) * 1e6)
                                   : std::string()));
  e.small_byte = small, e.op = op;
}

// The cost per byte and per large message together, from the large ring and the large fan: each
// pattern's excess over the prediction without them, over what one unit of each adds to it (the
// large ring's messages are large too), solved as two equations in two unknowns; one kept within
// its bounds, the other is fitted again with it. A term the patterns have no unit of is not fitted
// (nullopt), and said (shm's large fan on one node: every message a copy).
std::pair<std::optional<double>, std::optional<double>> byte_and_large(const BackendFit& f, double ring_measured, double fan_measured,
                                                                       const std::string& fan_pattern, const Costs& e) {
  FitContext& x = f.x;
  const double byte_most = cost_term(&Terms::byte).most, large_most = cost_term(&Terms::large).most;
  auto pred = [&](CalibrationShape shape, double byte, double large) {
    Costs c = e;
    c.byte = byte, c.large = large;
    return predicted(f, shape, core::OpKind::bcast, c);
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
  if (has_byte && (byte < 0 || byte > byte_most)) {
    byte = std::clamp(byte, 0.0, byte_most), byte_kept = true;
    if (has_large) large = (fy - fb * byte) / flu;
  }
  if (has_large && (large < 0 || large > large_most)) {
    large = std::clamp(large, 0.0, large_most), large_kept = true;
    if (has_byte && !byte_kept) byte = std::clamp((ry - ll * large) / lb, 0.0, byte_most);
  }
  const std::string what = head(f.name);
  auto said = [&](double value, double fitted, bool kept, const char* format, double scale, const char* other) {
    if (value == fitted) return std::string();
    return kept ? "; fitted " + core::format_number(format, fitted * scale) + ", kept at " + core::format_number(format, value * scale)
                : "; " + core::format_number(format, fitted * scale) + " with the " + other + " at its bound";
  };
  const std::string ring_where = " (" + x.large_ring + core::format_number(": %.3f us measured, %.3f us modelled without it)", ring_measured * 1e6, rl * 1e6);
  const std::string fan_where = " (" + fan_pattern + core::format_number(": %.3f us measured, %.3f us modelled without it)", fan_measured * 1e6, fl * 1e6);
  x.c.lines.push_back(what + (has_byte ? core::format_number("%.4f ", byte * 1e9) + x.beyond + ring_where + said(byte, byte_fitted, byte_kept, "%.4f", 1e9, "cost per large message")
                                       : "not fitted: no byte beyond " + core::format_number("%.0f B", x.until) + ring_where));
  x.c.lines.push_back(what + (has_large ? core::format_number("%.3f us per large message beyond one each way", large * 1e6) + fan_where +
                                              said(large, large_fitted, large_kept, "%.3f", 1e6, "cost per byte")
                                        : "not fitted: no large message beyond one each way" + fan_where));
  return {has_byte ? std::optional(byte) : std::nullopt, has_large ? std::optional(large) : std::nullopt};
}

double wire_factor_at(const BackendFit& f, core::OpKind kind, CalibrationShape shape, const Costs& e, double factor, double large) {
  Costs c = e;
  c.wire = factor, c.large = large;
  return predicted(f, shape, kind, c);
}

// The wire factor from the large ring (`ring_measured`), and where the large fan was measured
// (`fan_measured` >= 0) the cost per large message with it, in turns (each fitted with the other's
// last value): the factor within its row's bounds where the prediction meets the ring (the
// prediction rises with it), the cost per large message within its row's; said. Whether the cost
// per large message was fitted again.
bool wire(const BackendFit& f, core::OpKind kind, double ring_measured, double fan_measured, Costs& e) {
  FitContext& x = f.x;
  const double before = wire_factor_at(f, kind, CalibrationShape::ring_large, e, 1, e.large), least = cost_term(&Terms::wire).least;
  const std::string which = kind == core::OpKind::reduce ? ", reduce" : "";
  // A ring whose prediction does not change with it has no message beyond the limit on the wire
  // (shm's on one node: every one a copy): none, and said.
  if (wire_factor_at(f, kind, CalibrationShape::ring_large, e, least, e.large) >= before) {
    x.c.lines.push_back(head(f.name) + core::format_number("no wire factor: no message beyond %.0f B on the wire", static_cast<double>(x.wire_beyond)) + which +
                        " (" + x.large_ring + core::format_number(": %.3f us measured, %.3f us modelled)", ring_measured * 1e6, before * 1e6));
    return false;
  }
  double factor = 1, large = e.large;
  bool refitted = false;
  for (int turn = 0, turns = fan_measured >= 0 ? 60 : 1; turn < turns; ++turn) {
    const double last = factor;
    double lo = least, hi = 1;
    if (wire_factor_at(f, kind, CalibrationShape::ring_large, e, lo, large) >= ring_measured) {
      hi = lo;
    } else {
      for (int i = 0; i < 40; ++i) {
        const double mid = 0.5 * (lo + hi);
        (wire_factor_at(f, kind, CalibrationShape::ring_large, e, mid, large) > ring_measured ? hi : lo) = mid;
      }
    }
    factor = hi;
    if (fan_measured >= 0) {
      const double base = wire_factor_at(f, kind, CalibrationShape::fan_large, e, factor, 0), dl = 1e-8;
      const double per = (wire_factor_at(f, kind, CalibrationShape::fan_large, e, factor, dl) - base) / dl;
      if (per > 0) large = std::clamp((fan_measured - base) / per, 0.0, cost_term(&Terms::large).most), refitted = true;
    }
    if (turn > 0 && std::abs(factor - last) < 1e-7) break;
  }
  x.c.lines.push_back(head(f.name) + core::format_number("x%.3f", factor) +
                      core::format_number(" on what a message beyond %.0f B costs the wire more than one of that size", static_cast<double>(x.wire_beyond)) + which +
                      " (" + x.large_ring + core::format_number(": %.3f us measured, %.3f us modelled with the wire's own)", ring_measured * 1e6, before * 1e6) +
                      (factor <= least ? core::format_number("; kept at %.2f", least) : std::string()));
  if (refitted)
    x.c.lines.push_back(head(f.name) + core::format_number("%.3f us per large message beyond one each way, with the wire factor ", large * 1e6) +
                        core::format_number("(the large fan: %.3f us measured, %.3f us modelled)", fan_measured * 1e6,
                                            wire_factor_at(f, kind, CalibrationShape::fan_large, e, factor, large) * 1e6));
  e.wire = factor, e.large = large;
  return refitted;
}

// The cost per value packed or unpacked through an index list in a message past the ring's, in
// place of the cost per run there: the large ring permuted (`permuted`) against the large ring in
// order (`in_order`), each measured beyond the model with the costs `e` fitted so far and none per
// run past the ring's (so that anything it misses on both rings alike stays out), over what one
// unit adds to the permuted ring's prediction. Kept within its row's bounds, and said.
std::optional<double> scattered_value(const BackendFit& f, core::OpKind kind, double permuted, double in_order, const Costs& e) {
  FitContext& x = f.x;
  Costs none = e;
  none.scatter = 0.0;
  const double base = predicted(f, CalibrationShape::ring_large_permuted, kind, none);
  const double base_in_order = predicted(f, CalibrationShape::ring_large, kind, none);
  Costs more = none;
  const double step = 1e-9;
  more.scatter = step;
  const double per = (predicted(f, CalibrationShape::ring_large_permuted, kind, more) - base) / step;
  const std::string where_in = core::backend(f.id).scatters_every_size
                                   ? std::string("at every size, ")
                                   : core::format_number("in a message beyond %.0f B, ", static_cast<double>(x.scatter_beyond));
  const std::string unit = "ns per value packed or unpacked through an index list " + where_in + direction(kind);
  const std::string where = " (" + x.large_permuted + core::format_number(": %.3f us measured, %.3f us modelled without it; ", permuted * 1e6, base * 1e6) +
                            core::format_number("in order %.3f us measured, %.3f us modelled)", in_order * 1e6, base_in_order * 1e6);
  if (per <= 0) {
    x.c.lines.push_back(head(f.name) + "not fitted: no value scattered in a message beyond " + core::format_number("%.0f B", static_cast<double>(x.scatter_beyond)) + where);
    return std::nullopt;
  }
  const double fitted = ((permuted - base) - (in_order - base_in_order)) / per, kept = std::clamp(fitted, 0.0, cost_term(&Terms::scatter).most);
  x.c.lines.push_back(head(f.name) + core::format_number("%.3f ", kept * 1e9) + unit + where +
                      (kept != fitted ? core::format_number("; fitted %.3f, kept at ", fitted * 1e9) + core::format_number("%.3f", kept * 1e9) : std::string()));
  return kept;
}

// The share of a message across cores that one between core mates costs (CoreSharing::
// mate_factor): the factor within [0, 1], in steps of 0.01, whose predictions of basic's rings
// between core mates (small and of the ring's values, with basic's costs `f.e` of the rings, which
// cross cores) are nearest the measured ones (the least sum of squared relative errors). Before
// the fans, whose peers include a rank's core mates. Said.
void mate(const BackendFit& f) {
  FitContext& x = f.x;
  const std::array<std::pair<CalibrationShape, double>, 2> rings{std::pair{CalibrationShape::mate_ring_small, x.d.sf_mate_ring_small},
                                                                 std::pair{CalibrationShape::mate_ring, x.d.sf_mate_ring}};
  auto at = [&](double factor, CalibrationShape shape) {
    x.bare.core_sharing.mate_factor = factor;
    return predicted(f, shape, core::OpKind::bcast, f.e);
  };
  double best = 1, least = -1;
  for (int i = 0; i <= 100; ++i) {
    double err = 0;
    for (const auto& [shape, measured] : rings) err += std::pow(at(i / 100.0, shape) / measured - 1, 2);
    if (least < 0 || err < least) least = err, best = i / 100.0;
  }
  std::string where;
  for (const auto& [shape, measured] : rings)
    where += core::format_number("; the ring of %.0f B per rank between core mates: %.3f us measured, ", 8.0 * trace::calibration_values(shape, x.d.ranks),
                                 measured * 1e6) +
             core::format_number("%.3f us modelled across cores, ", at(1, shape) * 1e6) + core::format_number("%.3f us with it", at(best, shape) * 1e6);
  x.bare.core_sharing.mate_factor = x.m.core_sharing.mate_factor = best;
  x.c.lines.push_back(core::format_number("cores      a message between two ranks of one core costs x%.2f of one across cores (basic", best) + where + ")" +
                      (best >= 1 || best <= 0 ? core::format_number("; kept at %.0f", best) : std::string()));
}

// The collectives' own cost per call (fit_collectives: an empty neighbourhood call, timed back to
// back) as the collective backends' rings bound it. Over TCP between two nodes that call took
// 26.9 us, while neighbor's whole ring of 2 KiB messages took 15.3 us and its ring of 512 B 9.5:
// every neighbor and alltoallv op was predicted 2-3x too slow. Where one of their rings of a
// call's size (permuted, in order, small; either direction) is below the model with the probe's
// overhead and none of the executor's work, the overhead is lowered by as much as the lowest one
// is below (to 0 at least), and their rings are fitted with it.
void bound_collective_overhead(FitContext& x) {
  if (x.m.collective_overhead <= 0) return;
  const CalibrationData& d = x.d;
  double lowest = 0;
  std::string by;
  for (std::size_t k = 0; k < std::size(core::kCalibratedBackends); ++k) {
    const core::BackendInfo& b = *core::find_backend(core::kCalibratedBackends[k]);
    if (!b.collective_overhead) continue;
    constexpr core::OpKind bcast = core::OpKind::bcast, reduce = core::OpKind::reduce;
    const std::tuple<CalibrationShape, core::OpKind, double> rings[] = {
        {CalibrationShape::ring_permuted, bcast, d.sf_op_backend[k]},
        {CalibrationShape::ring_in_order, bcast, d.sf_op_backend_contiguous[k]},
        {CalibrationShape::ring_small, bcast, d.sf_op_backend_small[k]},
        {CalibrationShape::ring_permuted, reduce, d.sf_reduce_backend[k]},
        {CalibrationShape::ring_in_order, reduce, d.sf_reduce_backend_contiguous[k]},
        {CalibrationShape::ring_small, reduce, d.sf_reduce_backend_small[k]}};
    for (const auto& [shape, kind, measured] : rings) {
      if (measured < 0) continue;
      const double model = modelled(x, shape, kind, b.id);
      if (measured - model < lowest)
        lowest = measured - model,
        by = std::string(b.name) + "'s " + direction(kind) + core::format_number(" on the ring of %.0f B per rank", 8.0 * trace::calibration_values(shape, d.ranks)) +
             core::format_number(": %.3f us measured, %.3f us modelled", measured * 1e6, model * 1e6);
    }
  }
  if (lowest >= 0) return;
  const double was = x.m.collective_overhead;
  x.m.collective_overhead = x.bare.collective_overhead = std::max(0.0, was + lowest);
  x.c.lines.push_back(core::format_number("sync       the collective backends' calls %.3f us beyond their messages, not the empty call's %.3f (",
                                          x.m.collective_overhead * 1e6, was * 1e6) +
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
void window_fence(const BackendFit& f) {
  FitContext& x = f.x;
  const CalibrationData& d = x.d;
  const std::size_t said = x.c.lines.size();
  const double down = rings(f, core::OpKind::bcast, d.sf_op_backend[f.k], d.sf_op_backend_contiguous[f.k]).base;
  const double up = d.sf_reduce_backend[f.k] >= 0 ? rings(f, core::OpKind::reduce, d.sf_reduce_backend[f.k], d.sf_reduce_backend_contiguous[f.k]).base : 0;
  x.c.lines.resize(said);  // the rings are said where they are fitted
  const double lowest = std::min(down, up);
  if (lowest >= 0 || x.m.fence_overhead <= 0) return;
  const double was = x.m.fence_overhead;
  x.m.fence_overhead = x.bare.fence_overhead = std::max(0.0, was + lowest / 2);
  x.c.lines.push_back(core::format_number("sync       MPI_Win_fence in the window backend's epochs %.3f us beyond the model's barrier, not %.3f",
                                          x.m.fence_overhead * 1e6, was * 1e6) +
                      " (its " + (up < down ? "reduce's" : "bcast's") + core::format_number(" ring %.3f us below the model with the bare fence's)", -lowest * 1e6));
}

// The reduce's rings: the leaf-to-root direction's cost per op, per run and per small byte
// (nullopt: no reduce ring measured). A reduce whose ring sends fewer messages than the bcast's
// leaves steps of its plan out (split-md at 4 ranks as 2 nodes of 2: the ring's leaves are where
// its inter-node senders are, so no gather and no redistribution, 2 messages against the bcast's
// 6), and its cost per op misses what those steps cost in every halo (the SpMV ghost exchanges'
// reduces took 4-11 us where the cost per op of its ring predicted 3.4-7.6: 35-47 % below); it
// takes the bcast's cost per op and per small byte (`f.e`), which its ring fitted with every step.
std::optional<Costs> reduce_rings(const BackendFit& f) {
  FitContext& x = f.x;
  const CalibrationData& d = x.d;
  if (d.sf_reduce_backend[f.k] < 0) return std::nullopt;
  const Rings up = rings(f, core::OpKind::reduce, d.sf_reduce_backend[f.k], d.sf_reduce_backend_contiguous[f.k]);
  Costs u{.op = up.base, .run = up.run};
  small_bytes(f, core::OpKind::reduce, up.in_order ? d.sf_reduce_backend_small[f.k] : -1, d.sf_reduce_backend[f.k], up.model, u);
  const auto ru = bare_op(x, CalibrationShape::ring_permuted, core::OpKind::reduce, f.id).call_messages;
  const auto rd = bare_op(x, CalibrationShape::ring_permuted, core::OpKind::bcast, f.id).call_messages;
  if (ru < rd) {
    u.op = f.e.op, u.small_byte = f.e.small_byte, u.small_until = f.e.small_until;
    x.c.lines.push_back(head(f.name) +
                        core::format_number("%.3f us per op call beyond the model, reduce, as the bcast's, and its cost per small byte", std::max(0.0, u.op) * 1e6) +
                        core::format_number(" (its ring sends %.0f messages, the bcast's %.0f: steps of the plan left out; the reduce's own above are not used)",
                                            static_cast<double>(ru), static_cast<double>(rd)));
  }
  return u;
}

// The reduce's costs `f.up` as the file has them for the terms fitted after it: the bcast's
// (`f.e`) cost per peer and per large message, and its cost per byte and wire factor where the
// reduce has none of its own.
Costs reduce_costs(const BackendFit& f) {
  Costs up = *f.up;
  up.peer = f.e.peer, up.large = f.e.large;
  if (!f.out.leaf_to_root->byte) up.byte = f.e.byte;
  if (!f.out.leaf_to_root->wire) up.wire = f.e.wire;
  return up;
}

// The large ring (both ways: from 3 ranks two peers each way, as a halo has) and the large fan
// (the fan's peers with large messages): per byte beyond the ring's and per large message beyond
// one each way, together where both were measured. Then, the large ring below the model even
// without a cost per byte (which can only add): what a message beyond the ring's costs the wire
// more than the ring's is scaled instead, as far as reproduces it, the large fan's cost per large
// message fitted again alongside.
void large_terms(BackendFit& f) {
  FitContext& x = f.x;
  Costs& e = f.e;
  const double ring = x.d.sf_op_backend_large[f.k], fan = x.d.sf_op_backend_fan_large[f.k];
  const bool fan_large = x.d.ranks >= 3 && fan >= 0 && x.sizes[0] < x.sizes[1];
  const std::string fan_text = core::format_number("the fan of %.0f B per peer", static_cast<double>(x.sizes[1]));
  if (fan_large) x.m.large_message_bytes = x.sizes;
  if (ring >= 0 && fan_large) {
    const auto [byte, large] = byte_and_large(f, ring, fan, fan_text, e);
    if (byte) f.out.byte = e.byte = *byte;
    if (large) f.out.large = e.large = *large;
  } else if (ring >= 0) {
    if (const auto byte = term(f, cost_term(&Terms::byte), core::OpKind::bcast, e, x.beyond, 1e9, "%.4f", x.large_ring)) f.out.byte = e.byte = *byte;
  } else if (fan_large) {
    if (const auto large = term(f, cost_term(&Terms::large), core::OpKind::bcast, e, "us per large message beyond one each way", 1e6, "%.3f", fan_text))
      f.out.large = e.large = *large;
  }
  if (ring >= 0 && e.byte <= 0 && predicted(f, CalibrationShape::ring_large, core::OpKind::bcast, e) > ring * 1.001) {
    const bool refitted = wire(f, core::OpKind::bcast, ring, fan_large ? fan : -1, e);
    if (e.wire != 1) f.out.wire = e.wire, x.m.wire_factor_beyond = x.wire_beyond;
    if (refitted) f.out.large = e.large;
  }
}

// The large ring with a reduce: the leaf-to-root direction's own cost per byte, with the bcast's
// costs per peer, per large message and on the wire (`f.e`); where the ring is faster than that at
// no cost per byte, its own wire factor (window's accumulates on one node: 3.8 us for the ring
// against its gets' 6.4).
void reduce_byte(BackendFit& f) {
  FitContext& x = f.x;
  Costs& u = *f.up;
  u.peer = f.e.peer, u.large = f.e.large, u.wire = f.e.wire;
  const double ring = x.d.sf_reduce_backend_large[f.k];
  if (const auto b = term(f, cost_term(&Terms::byte), core::OpKind::reduce, u, x.beyond + ", reduce", 1e9, "%.4f", x.large_ring))
    f.out.leaf_to_root->byte = u.byte = *b;
  if (u.byte <= 0 && predicted(f, CalibrationShape::ring_large, core::OpKind::reduce, u) > ring * 1.001) {
    wire(f, core::OpKind::reduce, ring, -1, u);
    if (u.wire != f.e.wire) f.out.leaf_to_root->wire = u.wire, x.m.wire_factor_beyond = x.wire_beyond;
  }
}

}  // namespace

// kCostTerms' steps, in its rows' order.
namespace fit_step {

// The rings (permuted, in order, small): per run of roots, per op and per byte up to the ring's
// bytes, each direction; for basic, where ranks share cores, the share of a message between core
// mates too (before the fans, whose peers include a rank's core mates).
void rings(BackendFit& f) {
  FitContext& x = f.x;
  const CalibrationData& d = x.d;
  Costs& e = f.e;
  if (f.id == core::BackendId::window) window_fence(f);
  const Rings down = sim::rings(f, core::OpKind::bcast, d.sf_op_backend[f.k], d.sf_op_backend_contiguous[f.k]);
  e.run = down.run;
  e.op = down.base;
  small_bytes(f, core::OpKind::bcast, down.in_order ? d.sf_op_backend_small[f.k] : -1, d.sf_op_backend[f.k], down.model, e);
  f.out.small_byte = e.small_byte;
  if (down.in_order) f.out.run = e.run;
  // Backends without costs of their own (the node-aware ones on one node) fall back to basic's
  // cost per op: at the ring's bytes, where basic's line was fitted (with a cost per small byte,
  // which they do not have, basic's own cost per op is the line's at no byte).
  f.out.op = std::max(0.0, e.op);
  if (f.k == 0) x.m.op_overhead = std::max(0.0, e.op + e.small_byte.value_or(0) * x.until);
  f.up = reduce_rings(f);
  if (f.up) f.out.leaf_to_root = Terms{.op = std::max(0.0, f.up->op), .run = f.up->run, .small_byte = f.up->small_byte};
  if (f.id == core::BackendId::basic && x.m.core_sharing.cores > 0 && d.sf_mate_ring_small > 0 && d.sf_mate_ring > 0) mate(f);
}

// The fan against the rings' costs: P - 1 peers each way and P - 1 runs where the ring has one of
// each, about the ring's bytes; what is beyond, per extra peer and direction.
void fan(BackendFit& f) {
  const CalibrationData& d = f.x.d;
  if (d.sf_op_backend_fan[f.k] < 0 || d.ranks < 3) return;
  if (const auto peer = term(f, cost_term(&Terms::peer), core::OpKind::bcast, f.e, "us per peer beyond one each way", 1e6, "%.3f",
                             core::format_number("the fan of %.0f peers", static_cast<double>(d.ranks - 1))))
    f.out.peer = f.e.peer = *peer;
}

// Per byte and per large message, or the wire factor; then the large ring with a reduce: the
// leaf-to-root direction's own cost per byte.
void large(BackendFit& f) {
  large_terms(f);
  if (f.up && f.x.d.sf_reduce_backend_large[f.k] >= 0) reduce_byte(f);
}

// The large rings permuted against the large rings in order: per value packed or unpacked through
// an index list in a message past the ring's, beyond the cost per run, each direction. Not
// one-sided: its MPI reads or updates the roots through a datatype, a block per run, at every size
// (what it packs value by value is the leaves' side: SpMV's ghosts are one block, the permuted
// ring's are too), so its cost per run holds past the ring's messages. It has its cost per cache
// line of the peer's roots instead (lines, below).
void scatter(BackendFit& f) {
  if (core::backend(f.id).transport == core::Transport::one_sided) return;
  FitContext& x = f.x;
  const CalibrationData& d = x.d;
  if (d.sf_op_backend_large_permuted[f.k] >= 0 && d.sf_op_backend_large[f.k] >= 0)
    if (const auto s = scattered_value(f, core::OpKind::bcast, d.sf_op_backend_large_permuted[f.k], d.sf_op_backend_large[f.k], f.e))
      f.e.scatter = *s, f.out.scatter = *s, x.m.scatter_beyond = x.scatter_beyond;
  if (f.up && d.sf_reduce_backend_large_permuted[f.k] >= 0 && d.sf_reduce_backend_large[f.k] >= 0)
    if (const auto s = scattered_value(f, core::OpKind::reduce, d.sf_reduce_backend_large_permuted[f.k], d.sf_reduce_backend_large[f.k], reduce_costs(f)))
      f.out.leaf_to_root->scatter = *s, x.m.scatter_beyond = x.scatter_beyond;
}

// A one-sided backend's cost per cache line of its peers' roots beyond those its values would
// fill, each direction: the strided ring (a value per line, a run per value) against what the
// terms before predict for it (the permuted ring's runs lie in as many lines as its values fill).
// Its window on one node took 1.9 us for 64 values 16 B apart, 2.6 at 64 B and 3.1-3.4 from 128 B
// on, its reduce 2.8 to 4.7-4.8 (2 ranks, this host), where the permuted ring's costs said 2.2 and
// 3.0 at every spacing.
void lines(BackendFit& f) {
  if (core::backend(f.id).transport != core::Transport::one_sided) return;
  const CalibrationData& d = f.x.d;
  const CostTerm& line = cost_term(&Terms::line);
  const std::string ring = core::format_number("the ring of %.0f values a cache line apart", static_cast<double>(core::kCalibrationSfOpValues));
  const std::string unit = "ns per cache line of a peer's roots beyond its values' block";
  if (d.sf_op_backend_strided[f.k] >= 0)
    if (const auto l = term(f, line, core::OpKind::bcast, f.e, unit, 1e9, "%.2f", ring)) f.out.line = *l;
  if (!f.up || d.sf_reduce_backend_strided[f.k] < 0) return;
  if (const auto l = term(f, line, core::OpKind::reduce, reduce_costs(f), unit + ", reduce", 1e9, "%.2f", ring)) f.out.leaf_to_root->line = *l;
}

}  // namespace fit_step

void fit_executor(const core::CalibrationData& d, Calibration& c) {
  FitContext x(d, c);
  bound_collective_overhead(x);
  for (std::size_t k = 0; k < std::size(core::kCalibratedBackends); ++k) {
    if (d.sf_op_backend[k] < 0) continue;  // not measured
    const char* name = core::kCalibratedBackends[k];
    const core::BackendId id = core::find_backend(name)->id;
    BackendFit f{x, k, name, id, x.m.backend_costs[id]};
    for (const CostTerm& t : kCostTerms)
      if (t.fit) t.fit(f);
  }
}

}  // namespace sfr::sim
