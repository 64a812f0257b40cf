#include "sim/model_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "core/statistic.hpp"

namespace sfr::sim {

namespace {
// Per backend, its median |error| and worst pair; overall, the kWorstShown worst pairs.
void add_accuracy(ModelCheck& c) {
  std::map<std::string, std::size_t> at;  // backend -> index into c.backends
  std::vector<std::vector<double>> errs;
  for (std::size_t i = 0; i < c.pairs.size(); ++i) {
    const ModelPair& p = c.pairs[i];
    const auto [it, fresh] = at.emplace(p.backend, c.backends.size());
    if (fresh) c.backends.push_back({p.backend, 0, 0, i}), errs.emplace_back();
    BackendAccuracy& a = c.backends[it->second];
    ++a.pairs;
    errs[it->second].push_back(std::abs(p.error()));
    if (std::abs(p.error()) > std::abs(c.pairs[a.worst].error())) a.worst = i;
  }
  for (std::size_t k = 0; k < c.backends.size(); ++k) c.backends[k].median_abs_error = core::median(errs[k]);
  c.worst.resize(c.pairs.size());
  for (std::size_t i = 0; i < c.pairs.size(); ++i) c.worst[i] = i;
  std::stable_sort(c.worst.begin(), c.worst.end(), [&](std::size_t a, std::size_t b) { return std::abs(c.pairs[a].error()) > std::abs(c.pairs[b].error()); });
  c.worst.resize(std::min(c.worst.size(), kWorstShown));
}
}  // namespace

void set_measured(ModelPair& p, const std::vector<double>& m) {
  if (m.empty()) return;
  const auto [lo, hi] = std::minmax_element(m.begin(), m.end());
  p.measured_us = *lo;
  p.spread = *lo > 0 ? (*hi - *lo) / *lo : 0;
}

ModelCheck check_model(std::vector<ModelPair> pairs, RingCheck ring) {
  ModelCheck c;
  c.ring = ring;
  c.pairs = std::move(pairs);
  std::vector<double> errs, spreads;
  for (const auto& p : c.pairs) {
    errs.push_back(std::abs(p.error()));
    spreads.push_back(p.spread);
    c.within_spread += p.within_spread() ? 1 : 0;
  }
  c.median_abs_error = core::median(errs);
  c.median_spread = core::median(spreads);
  add_accuracy(c);
  // Group by (trace, op) in order of first appearance.
  std::vector<std::pair<std::string, std::size_t>> keys;
  std::map<std::pair<std::string, std::size_t>, std::vector<const ModelPair*>> groups;
  for (const auto& p : c.pairs) {
    auto& g = groups[{p.trace, p.op}];
    if (g.empty()) keys.push_back({p.trace, p.op});
    g.push_back(&p);
  }
  std::size_t right = 0, tied = 0;
  for (const auto& k : keys) {
    const auto& g = groups[k];
    if (g.size() < 2) continue;
    const auto mb = *std::min_element(g.begin(), g.end(), [](auto a, auto b) { return a->measured_us < b->measured_us; });
    const auto pb = *std::min_element(g.begin(), g.end(), [](auto a, auto b) { return a->predicted_us < b->predicted_us; });
    OpRanking r{k.first, k.second, mb->backend, pb->backend, pb->measured_us, mb->measured_us, mb->spread};
    right += r.right() ? 1 : 0;
    tied += r.within_spread() ? 1 : 0;
    c.ops.push_back(r);
  }
  c.ranking_right = c.ops.empty() ? 0 : static_cast<double>(right) / static_cast<double>(c.ops.size());
  c.ranking_within_spread = c.ops.empty() ? 0 : static_cast<double>(tied) / static_cast<double>(c.ops.size());
  return c;
}

namespace {
// Per backend its median |error| and worst pair, then the worst pairs of all.
void render_accuracy(const ModelCheck& c, std::ostringstream& os) {
  char line[512];
  os << "per backend: median |error| over its pairs, and its worst pair\n";
  for (const auto& a : c.backends) {
    const ModelPair& w = c.pairs[a.worst];
    std::snprintf(line, sizeof line, "  %-10s %4zu pairs  median |error| %5.1f%%  worst %+7.1f%% (%s op %zu, %s)\n", a.backend.c_str(), a.pairs,
                  100 * a.median_abs_error, 100 * w.error(), w.trace.c_str(), w.op, w.label.c_str());
    os << line;
  }
  os << "worst pairs:";
  for (const std::size_t i : c.worst) {
    const ModelPair& p = c.pairs[i];
    std::snprintf(line, sizeof line, " %s %s op %zu %+.1f%%;", p.backend.c_str(), p.trace.c_str(), p.op, 100 * p.error());
    os << line;
  }
  os << "\n";
}
}  // namespace

std::string render_model_check(const ModelCheck& c, const std::string& machine) {
  std::ostringstream os;
  char line[512];
  os << "measured (executor: the lowest of the interleaved repeats' 20th percentiles of the iterations; spread: their range over it) vs "
        "predicted (simulator, machine "
     << machine << "), microseconds per call (an op record's iteration over its repeat); '~': the error is within the measurement's spread\n";
  std::snprintf(line, sizeof line, "%-28s %4s  %-28s %-10s %12s %8s %12s %8s\n", "trace", "op", "label", "backend", "per_call_us", "spread",
                "predicted", "error");
  os << line;
  for (const auto& p : c.pairs) {
    std::snprintf(line, sizeof line, "%-28s %4zu  %-28s %-10s %12.3f %7.1f%% %12.3f %+7.1f%%%s\n", p.trace.c_str(), p.op, p.label.c_str(),
                  p.backend.c_str(), p.measured_us, 100 * p.spread, p.predicted_us, 100 * p.error(), p.within_spread() ? " ~" : "");
    os << line;
  }
  if (!c.ops.empty()) {
    os << "\nbest backend per op (right: the predicted best is the measured best or within 5 % of it when measured; within spread: one "
          "of the measured best's repeats took as long as the predicted best's lowest)\n";
    std::snprintf(line, sizeof line, "%-28s %4s  %-10s %-10s %s\n", "trace", "op", "measured", "predicted", "");
    os << line;
    for (const auto& r : c.ops) {
      const std::string over = std::to_string(static_cast<int>(std::lround(100 * (r.predicted_best_measured_us / r.measured_best_us - 1))));
      const std::string verdict = r.right()           ? "right"
                                  : r.within_spread() ? "within spread: its measured time is +" + over + "%, the best's spread " +
                                                            std::to_string(static_cast<int>(std::lround(100 * r.measured_best_spread))) + "%"
                                                      : "wrong: its measured time is +" + over + "%";
      std::snprintf(line, sizeof line, "%-28s %4zu  %-10s %-10s %s\n", r.trace.c_str(), r.op, r.measured_best.c_str(), r.predicted_best.c_str(),
                    verdict.c_str());
      os << line;
    }
  }
  std::snprintf(
      line, sizeof line, "\nsummary: %zu (op, backend) pairs, median |error| %.1f%%; predicted best right in %zu of %zu ops (%.0f%%)\n",
      c.pairs.size(), 100 * c.median_abs_error, static_cast<std::size_t>(std::lround(c.ranking_right * static_cast<double>(c.ops.size()))),
      c.ops.size(), 100 * c.ranking_right);
  os << line;
  std::snprintf(line, sizeof line,
                "         measurements' run-to-run spread: median %.1f%%; %zu of %zu errors within their spread; predicted best right or "
                "within the measured best's spread in %zu of %zu ops (%.0f%%)\n",
                100 * c.median_spread, c.within_spread, c.pairs.size(),
                static_cast<std::size_t>(std::lround(c.ranking_within_spread * static_cast<double>(c.ops.size()))), c.ops.size(),
                100 * c.ranking_within_spread);
  os << line;
  render_accuracy(c, os);
  if (c.ring.compared()) {
    const double r = c.ring.ratio();
    std::snprintf(line, sizeof line, "calibrate's ring on basic: %.3f us in the machine file, %.3f us now (x%.2f)", c.ring.calibrated_us, c.ring.now_us, r);
    os << line;
    if (machine_differs(c.ring)) {
      os << (r > 1 ? ": the machine ran slower than when it was calibrated (load now?); errors of that size are not the model's\n"
                   : ": the machine ran faster than when it was calibrated (load then?); errors of that size are not the model's\n");
    } else if (machine_drifted(c.ring)) {
      std::snprintf(line, sizeof line,
                    ": the machine took %.0f %% %s time than when it was calibrated, which alone shifts every backend's error by about "
                    "%+.0f %%\n",
                    100 * std::abs(r - 1), r > 1 ? "more" : "less", 100 * (1 / r - 1));
      os << line;
    } else {
      os << "\n";
    }
  }
  return os.str();
}

trace::ModelCheckDoc model_check_doc(const ModelCheck& c, const std::string& machine) {
  trace::ModelCheckDoc d;
  d.machine = machine;
  for (const auto& p : c.pairs)
    d.pairs.push_back({p.trace, p.op, p.label, p.backend, p.measured_us, p.predicted_us, p.error(), p.spread, p.within_spread()});
  for (const auto& r : c.ops) d.ops.push_back({r.trace, r.op, r.measured_best, r.predicted_best, r.right(), r.within_spread()});
  d.summary_pairs = c.pairs.size();
  d.summary_ops_ranked = c.ops.size();
  d.median_abs_error = c.median_abs_error;
  d.ranking_right = c.ranking_right;
  d.ranking_within_spread = c.ranking_within_spread;
  d.summary_within_spread = c.within_spread;
  d.median_spread = c.median_spread;
  if (c.ring.compared()) d.ring_calibrated_us = c.ring.calibrated_us, d.ring_now_us = c.ring.now_us;
  for (const auto& a : c.backends) {
    const ModelPair& w = c.pairs[a.worst];
    d.by_backend.push_back({a.backend, a.pairs, a.median_abs_error, w.error(), w.trace, w.op});
  }
  return d;
}

io::Json model_check_json(const ModelCheck& c, const std::string& machine) { return trace::to_json(model_check_doc(c, machine)); }

}  // namespace sfr::sim
