#include "sim/executor_fit.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "core/backends.hpp"
#include "core/format.hpp"
#include "sim/simulate.hpp"
#include "trace/calibration_ring.hpp"

namespace sfr::sim {

namespace {

using core::CalibrationData;
using trace::CalibrationShape;

// One line of the executor's fit for `name` begins so; a direction is named by its op.
std::string head(const char* name) { return std::string("executor   ") + core::padded(name, 10); }
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

void fit_executor(const core::CalibrationData& d, Calibration& c) {
  ExecutorFit fit(d, c);
  fit.bound_collective_overhead();
  for (std::size_t k = 0; k < std::size(core::kCalibratedBackends); ++k)
    if (d.sf_op_backend[k] >= 0) fit.fit_backend(k);
}

}  // namespace sfr::sim
