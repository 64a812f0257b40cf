// The statistics of an op's timed iterations.
//
// The statistic calibrate fits and validate-model judges on (sim/README.md, "One statistic for
// fitting and judging"): of an op's timed iterations, the kLowShare-th share from below (nearest
// rank below), not their median: ranks that share a core take one of two times per iteration (a
// wait for the core or none), and the median of a launch falls on either.
//
// A run keeps its iterations' samples at bounded memory (SampleReservoir): a soak of 10^8 calls
// holds as much as one of kSampleCap.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace sfr::core {

constexpr double kLowShare = 0.2;

// `sorted`: ascending; the middle value, the mean of the middle two for an even count (what the
// timing table, regress, the dashboard and validate-model call the median); 0 when empty.
inline double median_of_sorted(const std::vector<double>& sorted) {
  const std::size_t n = sorted.size();
  if (n == 0) return 0;
  return n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return median_of_sorted(v);
}

// The q-quantile (0 <= q <= 1) interpolated linearly between order statistics (the position
// q (n - 1) from the least, as numpy's default): the dashboard's whiskers and the verdict's
// p25-p75 noise ranges; 0 when empty.
inline double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos)), hi = static_cast<std::size_t>(std::ceil(pos));
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

// The middle value, the upper of the middle two for an even count (calibrate's statistic of a
// block, where a measured sample is wanted rather than a mean of two); 0 when empty.
inline double upper_median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// `sorted`: ascending; 0 when empty.
inline double low_share_of(const std::vector<double>& sorted) {
  if (sorted.empty()) return 0;
  return sorted[static_cast<std::size_t>(kLowShare * static_cast<double>(sorted.size() - 1))];
}

// validate-model judges an op by the least of this many interleaved repeats (its default
// --repeats), each one's kLowShare of the iterations.
constexpr int kJudgedRepeats = 3;

// The expected least of `k` of `values` drawn at random (without replacement): what the least of
// k repeats would be, estimated from many. With the values sorted, x_1 <= ... <= x_n, x_i is the
// least of k draws with probability C(n-i, k-1) / C(n, k). calibrate keeps this of its many
// rounds rather than their least, which on a network whose every round is noisy (TCP through a
// kernel) is the luckiest of 60 and sat 20-25 % below what validate-model's least of 3 measures.
inline double expected_least_of(std::vector<double> values, int k) {
  const auto n = static_cast<long>(values.size());
  if (n == 0 || k < 1) return 0;
  if (k >= n) return *std::min_element(values.begin(), values.end());
  std::sort(values.begin(), values.end());
  // p_i = C(n-i, k-1) / C(n, k) for i = 1..n; p_1 = k / n, p_{i+1} = p_i * (n-i-k+1) / (n-i).
  double p = static_cast<double>(k) / static_cast<double>(n), sum = 0;
  for (long i = 1; i <= n - k + 1; ++i) {
    sum += p * values[static_cast<std::size_t>(i - 1)];
    p *= static_cast<double>(n - i - k + 1) / static_cast<double>(n - i);
  }
  return sum;
}

// The samples a run keeps per (op, backend) at most: 512 KiB of them.
constexpr std::size_t kSampleCap = 65536;

// A stream of samples at bounded memory: the exact count, minimum, maximum and mean of all of
// them, and up to `cap` of the samples themselves: every one while there are at most `cap` (in
// arrival order; percentiles from them are exact), else a uniform random sample of them (Vitter's
// reservoir, algorithm R, from a fixed seed, so a run keeps the same ones), from which
// percentiles are estimates.
class SampleReservoir {
public:
  explicit SampleReservoir(std::size_t cap = kSampleCap) : cap_(std::max<std::size_t>(cap, 1)) {}
  void add(double x) {
    ++count_;
    min_ = std::min(min_, x);
    max_ = std::max(max_, x);
    sum_ += x;
    if (kept_.size() < cap_) {
      kept_.push_back(x);
      return;
    }
    // Sample k (1-based) replaces a kept one with probability cap / k.
    const std::uint64_t j = std::uniform_int_distribution<std::uint64_t>(0, count_ - 1)(rng_);
    if (j < cap_) kept_[j] = x;
  }
  std::uint64_t count() const { return count_; }
  double min() const { return count_ ? min_ : 0; }
  double max() const { return count_ ? max_ : 0; }
  double mean() const { return count_ ? sum_ / static_cast<double>(count_) : 0; }
  bool exact() const { return count_ <= cap_; }  // every sample kept
  const std::vector<double>& kept() const { return kept_; }

private:
  std::size_t cap_;
  std::uint64_t count_ = 0;
  double min_ = std::numeric_limits<double>::infinity(), max_ = -std::numeric_limits<double>::infinity(), sum_ = 0;
  std::vector<double> kept_;
  std::mt19937_64 rng_{0x5eed};
};

}  // namespace sfr::core
