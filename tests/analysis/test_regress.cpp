// regress: the rank test against brute-force enumeration, and the verdicts on simulated noisy
// runs (reruns not flagged, a 30% slowdown flagged, a bimodal machine's reruns not flagged once the
// base holds both modes), and the matching by (trace sha256, op, backend).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "analysis/regress.hpp"

using namespace sfr;
using analysis::Change;
using Json = io::Json;

namespace {

// P(U >= observed) over every way of splitting the pooled values into groups of |x| and |y|.
double brute_force_greater(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<double> all = x;
  all.insert(all.end(), y.begin(), y.end());
  auto u_of = [&](const std::vector<bool>& in_x) {
    double u = 0;
    for (std::size_t i = 0; i < all.size(); ++i)
      for (std::size_t j = 0; j < all.size(); ++j)
        if (in_x[i] && !in_x[j]) u += all[i] > all[j] ? 1 : all[i] == all[j] ? 0.5 : 0;
    return u;
  };
  std::vector<bool> obs(all.size(), false);
  std::fill(obs.begin(), obs.begin() + static_cast<long>(x.size()), true);
  const double u0 = u_of(obs);
  std::vector<bool> sel(all.size(), false);
  std::fill(sel.end() - static_cast<long>(x.size()), sel.end(), true);
  double hit = 0, total = 0;
  do {
    total += 1;
    if (u_of(sel) >= u0 - 1e-9) hit += 1;
  } while (std::next_permutation(sel.begin(), sel.end()));
  return hit / total;
}

trace::TimingDoc doc(const std::string& sha, const std::vector<std::pair<std::string, std::vector<double>>>& results) {
  trace::TimingDoc d;
  d.trace = "t";
  d.provenance = {{"trace_sha256", sha}};
  for (std::size_t i = 0; i < results.size(); ++i) {
    trace::TimingResult r;
    r.index = i;
    r.op = "bcast";
    r.backend = results[i].first;
    r.samples_us = results[i].second;
    d.results.push_back(std::move(r));
  }
  return d;
}

// One run of `n` samples: a run-level shift (the machine's state during the run) times per-sample
// noise, around `mean_us`.
std::vector<double> run(std::mt19937_64& rng, double mean_us, double run_sd, double sample_sd, int n = 20) {
  std::normal_distribution<double> rs(0, run_sd), ss(0, sample_sd);
  const double shift = std::exp(rs(rng));
  std::vector<double> v;
  for (int k = 0; k < n; ++k) v.push_back(mean_us * shift * std::exp(std::abs(ss(rng))));
  return v;
}

}  // namespace

TEST(Regress, MannWhitneyMatchesEnumeration) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0, 1);
  for (int trial = 0; trial < 30; ++trial) {
    const int m = 1 + trial % 5, n = 1 + (trial / 5) % 6;
    std::vector<double> x, y;
    for (int i = 0; i < m; ++i) x.push_back(u(rng) + 0.1 * (trial % 3));
    for (int i = 0; i < n; ++i) y.push_back(u(rng));
    EXPECT_NEAR(analysis::mann_whitney_greater(x, y), brute_force_greater(x, y), 1e-12) << m << "x" << n;
  }
}

TEST(Regress, MannWhitneyNormalApproximationWithTies) {
  // Ties force the normal approximation: close to enumeration at moderate sizes.
  const std::vector<double> x = {1, 2, 2, 3, 3, 3, 4, 5, 6}, y = {1, 1, 2, 2, 3, 3, 4, 4};
  EXPECT_NEAR(analysis::mann_whitney_greater(x, y), brute_force_greater(x, y), 0.02);
  EXPECT_DOUBLE_EQ(analysis::mann_whitney_greater({2, 2, 2}, {2, 2}), 1.0);
}

TEST(Regress, RerunsAreNotFlaggedAndA30PercentSlowdownIs) {
  std::mt19937_64 rng(11);
  int flagged_reruns = 0, flagged_slow = 0, faster = 0;
  const int trials = 300;
  for (int t = 0; t < trials; ++t) {
    // Three base runs and one new run; run-level noise 3%, sample noise 5%.
    std::vector<trace::TimingDoc> base;
    for (int k = 0; k < 3; ++k) base.push_back(doc("s", {{"basic", run(rng, 10, 0.03, 0.05)}}));
    const auto same = analysis::regress(base, {doc("s", {{"basic", run(rng, 10, 0.03, 0.05)}})}, 0.10);
    const auto slow = analysis::regress(base, {doc("s", {{"basic", run(rng, 13, 0.03, 0.05)}})}, 0.10);
    flagged_reruns += same.any_slower();
    faster += same.entries.at(0).change == Change::faster;
    flagged_slow += slow.any_slower();
  }
  EXPECT_LE(flagged_reruns, 3);
  EXPECT_LE(faster, 3);
  EXPECT_GE(flagged_slow, trials * 99 / 100);
}

TEST(Regress, BaseRunsSetTheNoiseBand) {
  // A machine with two modes (+60% when a run lands on a busy core): a base that saw both modes
  // does not flag a rerun in the slow mode; a base of fast runs only does (the threshold alone).
  std::mt19937_64 rng(3);
  const std::vector<trace::TimingDoc> both = {doc("s", {{"basic", run(rng, 10, 0, 0.03)}}), doc("s", {{"basic", run(rng, 16, 0, 0.03)}})};
  const std::vector<trace::TimingDoc> fast = {doc("s", {{"basic", run(rng, 10, 0, 0.03)}}), doc("s", {{"basic", run(rng, 10, 0, 0.03)}})};
  const trace::TimingDoc slow_mode = doc("s", {{"basic", run(rng, 16, 0, 0.03)}});
  const auto a = analysis::regress(both, {slow_mode}, 0.10);
  EXPECT_FALSE(a.any_slower());
  EXPECT_NEAR(a.entries.at(0).noise, 0.6, 0.1);
  EXPECT_TRUE(analysis::regress(fast, {slow_mode}, 0.10).any_slower());
}

TEST(Regress, MatchesByTraceHashOpAndBackend) {
  std::mt19937_64 rng(5);
  const auto a = run(rng, 10, 0, 0.05), b = run(rng, 20, 0, 0.05);
  // Same trace name, another file (hash): nothing matches.
  const auto r = analysis::regress({doc("s1", {{"basic", a}})}, {doc("s2", {{"basic", b}})}, 0.10);
  EXPECT_TRUE(r.entries.empty());
  EXPECT_EQ(r.only_base.size(), 1u);
  EXPECT_EQ(r.only_new.size(), 1u);
  // Backends are not mixed up: basic doubled, neighbor unchanged.
  const auto m = analysis::regress({doc("s", {{"basic", a}, {"neighbor", a}})}, {doc("s", {{"neighbor", a}, {"basic", b}})}, 0.10);
  ASSERT_EQ(m.entries.size(), 0u) << "op indices differ: index is part of the key";
  const auto k = analysis::regress({doc("s", {{"basic", a}, {"neighbor", a}})}, {doc("s", {{"basic", b}, {"neighbor", a}})}, 0.10);
  ASSERT_EQ(k.entries.size(), 2u);
  for (const auto& e : k.entries) EXPECT_EQ(e.change, e.backend == "basic" ? Change::slower : Change::same) << e.backend;
}

TEST(Regress, AMedianShiftWithoutSignificanceIsNotFlagged) {
  // Medians 20.5 -> 30.5 (+49%), but four wide-spread samples a side: P(U >= 12) = 0.1 > 0.01.
  const auto r = analysis::regress({doc("s", {{"basic", {10, 11, 30, 31}}})}, {doc("s", {{"basic", {12, 29, 32, 33}}})}, 0.10);
  ASSERT_EQ(r.entries.size(), 1u);
  EXPECT_GT(r.entries[0].ratio, 1.4);
  EXPECT_NEAR(r.entries[0].p_slower, brute_force_greater({12, 29, 32, 33}, {10, 11, 30, 31}), 1e-12);
  EXPECT_EQ(r.entries[0].change, Change::same);
  EXPECT_FALSE(r.any_slower());
}

TEST(Regress, ALoadedRerunIsNotFlaggedWhenItsFastEndDidNotMove) {
  // Load only adds time: 60% of the rerun's iterations were slowed (+33%), the rest ran as before.
  std::vector<double> base, loaded, slower;
  for (int k = 0; k < 30; ++k) {
    const double v = 300 + 0.1 * (k * 7 % 30);
    base.push_back(v);
    loaded.push_back(k % 5 < 2 ? v : v + 100);
    slower.push_back(1.3 * v);
  }
  const auto l = analysis::regress({doc("s", {{"basic", base}})}, {doc("s", {{"basic", loaded}})}, 0.10);
  ASSERT_EQ(l.entries.size(), 1u);
  EXPECT_GT(l.entries[0].ratio, 1.3);
  EXPECT_LT(l.entries[0].low_ratio, 1.01);
  EXPECT_LT(l.entries[0].p_slower, 0.01);
  EXPECT_EQ(l.entries[0].change, Change::same);
  EXPECT_TRUE(analysis::regress({doc("s", {{"basic", base}})}, {doc("s", {{"basic", slower}})}, 0.10).any_slower());
}

namespace {
// Independent of core::median and core::quantile: the middle (the mean of the middle two)
// and the linearly interpolated q-th quantile of the sorted samples.
double mid(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
double interpolated(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(pos);
  return lo + 1 < v.size() ? v[lo] + (pos - static_cast<double>(lo)) * (v[lo + 1] - v[lo]) : v[lo];
}
std::vector<double> joined(std::vector<double> a, const std::vector<double>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
}  // namespace

// The slower line's numbers, each computed here from the samples: two base runs whose medians
// differ less (14 and 13) than their 10th percentiles (10.8 and 8.6: noise 26 %), one new run above
// every base sample, no ties (p = 1 / C(15, 5), exact). Pooled: base median 13.5, p10 9.7; new
// median 22, p10 20.4.
TEST(Regress, TheSlowerLinesNumbersAreTheSamples) {
  const std::vector<double> a = {10, 12, 14, 16, 18}, b = {7, 11, 13, 15, 17}, now = {20, 21, 22, 23, 24};
  const auto r = analysis::regress({doc("s", {{"basic", a}}), doc("s", {{"basic", b}})}, {doc("s", {{"basic", now}})}, 0.10);
  ASSERT_EQ(r.entries.size(), 1u);
  const auto& e = r.entries[0];
  const double base_median = mid(joined(a, b)), new_median = mid(now);
  const double base_p10 = interpolated(joined(a, b), 0.1), new_p10 = interpolated(now, 0.1);
  const double noise = std::max(mid(a) / mid(b), interpolated(a, 0.1) / interpolated(b, 0.1)) - 1;
  EXPECT_DOUBLE_EQ(e.base_median, base_median);
  EXPECT_DOUBLE_EQ(e.new_low, new_p10);
  EXPECT_NEAR(e.noise, noise, 1e-12);
  EXPECT_NEAR(e.p_slower, 1.0 / 3003, 1e-12);
  EXPECT_EQ(e.change, Change::slower);
  char want[256];
  std::snprintf(want, sizeof want, "  %-48s median %10.2f -> %10.2f us (%+.1f%%), p10 %+.1f%%, p = %.2g, noise %.0f%%, runs 2 / 1\n",
                "t op 0 bcast basic", base_median, new_median, 100 * (new_median / base_median - 1), 100 * (new_p10 / base_p10 - 1), 1.0 / 3003,
                100 * noise);
  const std::string text = analysis::render_regress(r);
  EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
  EXPECT_NE(text.find("noise 26%"), std::string::npos) << text;
}

// The base's noise is its runs' spread in the median or in the 10th percentile, whichever is
// wider: runs of equal medians (20) whose 10th percentiles are 14 and 20 (noise 43 %) do not flag
// a rerun 25 % slower, within that noise; the threshold alone (10 %) would.
TEST(Regress, TheBasesSpreadOfTenthPercentilesWidensTheBand) {
  const std::vector<double> a = {10, 20, 20, 20, 20}, b = {20, 20, 20, 20, 20}, now = {25, 25, 25, 25, 25};
  const auto r = analysis::regress({doc("s", {{"basic", a}}), doc("s", {{"basic", b}})}, {doc("s", {{"basic", now}})}, 0.10);
  ASSERT_EQ(r.entries.size(), 1u);
  EXPECT_NEAR(r.entries[0].noise, interpolated(b, 0.1) / interpolated(a, 0.1) - 1, 1e-12);
  EXPECT_LT(r.entries[0].p_slower, 0.01);
  EXPECT_EQ(r.entries[0].change, Change::same);
  // The same rerun against one of the runs alone (no noise known): slower.
  EXPECT_TRUE(analysis::regress({doc("s", {{"basic", b}})}, {doc("s", {{"basic", now}})}, 0.10).any_slower());
}
