#include "analysis/regress.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <tuple>

#include "analysis/load_results.hpp"
#include "core/error.hpp"
#include "core/statistic.hpp"
#include "io/output_file.hpp"

namespace sfr::analysis {

namespace {

// P(U >= u) for U of sizes (m, n) without ties, counting the arrangements by recursion:
// c(m, n, u) = c(m - 1, n, u - n) + c(m, n - 1, u).
double exact_upper_tail(std::size_t m, std::size_t n, std::size_t u) {
  const std::size_t umax = m * n;
  // f[j][k]: arrangements of i x's and j y's with U = k, for the current i.
  std::vector<std::vector<double>> f(n + 1, std::vector<double>(umax + 1, 0.0));
  for (std::size_t j = 0; j <= n; ++j) f[j][0] = 1;  // i = 0
  for (std::size_t i = 1; i <= m; ++i) {
    std::vector<std::vector<double>> g(n + 1, std::vector<double>(umax + 1, 0.0));
    g[0][0] = 1;
    for (std::size_t j = 1; j <= n; ++j)
      for (std::size_t k = 0; k <= i * j; ++k) g[j][k] = (k >= j ? f[j][k - j] : 0.0) + g[j - 1][k];
    f.swap(g);
  }
  double tail = 0, total = 0;
  for (std::size_t k = 0; k <= umax; ++k) {
    total += f[n][k];
    if (k >= u) tail += f[n][k];
  }
  return tail / total;
}

}  // namespace

double mann_whitney_greater(const std::vector<double>& x, const std::vector<double>& y) {
  const std::size_t m = x.size(), n = y.size();
  // Ranks of the pooled samples (ties get the mean rank).
  std::vector<std::pair<double, int>> all;
  all.reserve(m + n);
  for (double v : x) all.push_back({v, 0});
  for (double v : y) all.push_back({v, 1});
  std::sort(all.begin(), all.end());
  double rank_sum_x = 0, tie_term = 0;
  bool ties = false;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    while (j < all.size() && all[j].first == all[i].first) ++j;
    const double t = static_cast<double>(j - i), mean_rank = 0.5 * static_cast<double>(i + 1 + j);
    if (j - i > 1) ties = true;
    tie_term += t * t * t - t;
    for (std::size_t k = i; k < j; ++k)
      if (all[k].second == 0) rank_sum_x += mean_rank;
    i = j;
  }
  const double md = static_cast<double>(m), nd = static_cast<double>(n);
  const double u = rank_sum_x - md * (md + 1) / 2;  // pairs (x, y) with x > y, ties half
  if (!ties && m <= 50 && n <= 50) return exact_upper_tail(m, n, static_cast<std::size_t>(std::llround(u)));
  const double N = md + nd;
  const double var = md * nd / 12 * ((N + 1) - tie_term / (N * (N - 1)));
  if (var <= 0) return 1;  // every sample equal
  const double z = (u - md * nd / 2 - 0.5) / std::sqrt(var);
  return 0.5 * std::erfc(z / std::sqrt(2.0));
}

bool RegressResult::any_slower() const {
  return std::any_of(entries.begin(), entries.end(), [](const RegressEntry& e) { return e.change == Change::slower; });
}

namespace {

using Key = std::tuple<std::string, std::size_t, std::string>;  // trace identity, op index, backend

// The trace's file hash when the document has one, else its name.
std::string trace_identity(const trace::TimingDoc& doc) {
  if (doc.provenance.is_object()) {
    const auto sha = doc.provenance.find("trace_sha256");
    if (sha != doc.provenance.end() && sha->is_string()) return sha->get<std::string>();
  }
  return "name:" + doc.trace;
}

std::map<Key, RegressEntry> pool(const std::vector<trace::TimingDoc>& docs, bool base) {
  std::map<Key, RegressEntry> out;
  for (const auto& d : docs)
    for (const auto& r : d.results) {
      auto& e = out[{trace_identity(d), r.index, r.backend}];
      e.trace = d.trace;
      e.index = r.index;
      e.op = r.op;
      e.backend = r.backend;
      auto& dst = base ? e.base : e.now;
      const std::vector<double>& run = r.samples_us;
      dst.insert(dst.end(), run.begin(), run.end());
      (base ? e.base_runs : e.new_runs).push_back(core::median(run));
      if (base) e.base_run_lows.push_back(core::quantile(run, 0.10));
    }
  return out;
}

std::string label(const RegressEntry& e) { return e.trace + " op " + std::to_string(e.index) + " " + e.op + " " + e.backend; }

}  // namespace

RegressResult regress(const std::vector<trace::TimingDoc>& base, const std::vector<trace::TimingDoc>& now, double threshold, double alpha) {
  RegressResult res;
  res.base_docs = base.size();
  res.new_docs = now.size();
  res.threshold = threshold;
  res.alpha = alpha;
  auto b = pool(base, true), n = pool(now, false);
  for (auto& [key, eb] : b) {
    const auto it = n.find(key);
    if (it == n.end()) {
      res.only_base.push_back(label(eb));
      continue;
    }
    RegressEntry e = std::move(eb);
    e.now = std::move(it->second.now);
    e.new_runs = std::move(it->second.new_runs);
    n.erase(it);
    for (const auto* runs : {&e.base_runs, &e.base_run_lows}) {
      const auto [lo, hi] = std::minmax_element(runs->begin(), runs->end());
      if (*lo > 0) e.noise = std::max(e.noise, *hi / *lo - 1);
    }
    const double band = std::max(threshold, e.noise);
    e.base_median = core::median(e.base);
    e.new_median = core::median(e.now);
    e.base_low = core::quantile(e.base, 0.10);
    e.new_low = core::quantile(e.now, 0.10);
    auto ratio = [](double a, double b) { return b > 0 ? a / b : (a > 0 ? INFINITY : 1.0); };
    e.ratio = ratio(e.new_median, e.base_median);
    e.low_ratio = ratio(e.new_low, e.base_low);
    e.p_slower = mann_whitney_greater(e.now, e.base);
    e.p_faster = mann_whitney_greater(e.base, e.now);
    if (e.p_slower < alpha && std::min(e.ratio, e.low_ratio) > 1 + band)
      e.change = Change::slower;
    else if (e.p_faster < alpha && std::max(e.ratio, e.low_ratio) < 1 / (1 + band))
      e.change = Change::faster;
    res.entries.push_back(std::move(e));
  }
  for (auto& [key, en] : n) res.only_new.push_back(label(en));
  return res;
}

std::vector<trace::TimingDoc> load_timing_side(const std::vector<std::string>& paths, const std::string& side) {
  std::vector<trace::TimingDoc> docs;
  for (const auto& f : result_files(paths)) {
    const auto j = io::parse_json_strict(io::read_text_file(f), f);
    // Only the format is looked at before choosing the reader: folders hold other kinds too.
    const std::string format = j.is_object() && j.contains("format") && j["format"].is_string() ? j["format"].get<std::string>() : "";
    if (format != trace::kTimingFormat) {
      if (format.rfind("sf-", 0) == 0) continue;  // another sf-replay result (simulation, bench, ...)
      throw InputError(f, "(top level): not an sf-replay result document (no \"format\": \"sf-...\")");
    }
    auto doc = trace::timing_doc_from_json(j, f);
    for (std::size_t i = 0; i < doc.results.size(); ++i)
      if (doc.results[i].samples_us.empty())
        throw InputError(
            f, "/results/" + std::to_string(i) + "/samples_us: missing or empty (regress compares samples; rerun with this sf-replay)");
    docs.push_back(std::move(doc));
  }
  if (docs.empty()) throw InputError(side, "no sf-timing document found");
  return docs;
}

std::string render_regress(const RegressResult& r) {
  std::ostringstream os;
  std::size_t slower = 0, faster = 0;
  for (const auto& e : r.entries) {
    if (e.change == Change::slower) ++slower;
    if (e.change == Change::faster) ++faster;
  }
  char line[512];
  std::snprintf(line, sizeof line,
                "regress: %zu base and %zu new timing document(s); %zu (trace, op, backend) matched, %zu only in base, %zu only in new\n"
                "a change counts when p < %g (one-sided Mann-Whitney on the samples) and the medians and the 10th percentiles both\n"
                "differ by more than %.0f%% and more than the base's run-to-run noise (the spread of its runs)\n",
                r.base_docs, r.new_docs, r.entries.size(), r.only_base.size(), r.only_new.size(), r.alpha, 100 * r.threshold);
  os << line;
  if (std::all_of(r.entries.begin(), r.entries.end(), [](const RegressEntry& e) { return e.base_runs.size() < 2; }))
    os << "note: one base run per result, so the run-to-run noise is unknown; store several runs of the base (run --store DIR) to "
          "measure it\n";
  for (const Change c : {Change::slower, Change::faster}) {
    const std::size_t count = c == Change::slower ? slower : faster;
    os << (c == Change::slower ? "slower" : "faster") << " (" << count << ")" << (count ? ":" : "") << "\n";
    for (const auto& e : r.entries) {
      if (e.change != c) continue;
      std::snprintf(line, sizeof line,
                    "  %-48s median %10.2f -> %10.2f us (%+.1f%%), p10 %+.1f%%, p = %.2g, noise %.0f%%, runs %zu / %zu\n", label(e).c_str(),
                    e.base_median, e.new_median, 100 * (e.ratio - 1), 100 * (e.low_ratio - 1),
                    c == Change::slower ? e.p_slower : e.p_faster, 100 * e.noise, e.base_runs.size(), e.new_runs.size());
      os << line;
    }
  }
  os << "unchanged: " << r.entries.size() - slower - faster << " (within the threshold or not significant)\n";
  for (const auto& l : r.only_base) os << "  only in base: " << l << "\n";
  for (const auto& l : r.only_new) os << "  only in new: " << l << "\n";
  os << (slower ? "verdict: SLOWER (exit status 3)\n" : "verdict: no significant slowdown\n");
  return os.str();
}

}  // namespace sfr::analysis
