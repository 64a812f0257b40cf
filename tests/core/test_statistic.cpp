// core::SampleReservoir against closed forms: every sample kept, in order, up to the cap; beyond
// it exact count, minimum, maximum and mean, at most `cap` samples kept, and those a uniform
// sample (the mean and quartiles of a kept sample of 0..N-1 within a few standard errors of the
// uniform distribution's).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <set>

#include "core/statistic.hpp"

using sfr::core::SampleReservoir;

TEST(SampleReservoir, KeepsEverySampleInOrderUpToTheCap) {
  SampleReservoir r(100);
  std::vector<double> in;
  for (int k = 0; k < 100; ++k) in.push_back(std::sin(k) + 2);
  for (double x : in) r.add(x);
  EXPECT_TRUE(r.exact());
  EXPECT_EQ(r.kept(), in);
  EXPECT_EQ(r.count(), 100u);
  EXPECT_DOUBLE_EQ(r.min(), *std::min_element(in.begin(), in.end()));
  EXPECT_DOUBLE_EQ(r.max(), *std::max_element(in.begin(), in.end()));
  EXPECT_NEAR(r.mean(), std::accumulate(in.begin(), in.end(), 0.0) / 100, 1e-12);
}

TEST(SampleReservoir, BeyondTheCapKeepsAUniformSampleAndExactExtremes) {
  constexpr int n = 200000, cap = 2000;
  SampleReservoir r(cap);
  // 0..n-1 in a scrambled order (a multiplier coprime to n), so that arrival order and value differ.
  for (long k = 0; k < n; ++k) r.add(static_cast<double>((k * 7919) % n));
  EXPECT_FALSE(r.exact());
  EXPECT_EQ(r.count(), static_cast<std::uint64_t>(n));
  EXPECT_EQ(r.kept().size(), static_cast<std::size_t>(cap));
  EXPECT_EQ(r.min(), 0);
  EXPECT_EQ(r.max(), n - 1);
  EXPECT_DOUBLE_EQ(r.mean(), (n - 1) / 2.0);
  // Distinct samples of the stream.
  const std::set<double> distinct(r.kept().begin(), r.kept().end());
  EXPECT_EQ(distinct.size(), static_cast<std::size_t>(cap));
  // Uniform over 0..n-1: mean n/2, sd n/sqrt(12); the kept mean's standard error sd/sqrt(cap).
  const double mean = std::accumulate(r.kept().begin(), r.kept().end(), 0.0) / cap;
  const double se = n / std::sqrt(12.0) / std::sqrt(static_cast<double>(cap));
  EXPECT_NEAR(mean, n / 2.0, 5 * se);
  // Quartiles: the share of kept samples below q*n is binomial(cap, q), sd sqrt(cap q (1-q)).
  for (const double q : {0.25, 0.5, 0.75}) {
    const auto below = std::count_if(r.kept().begin(), r.kept().end(), [&](double x) { return x < q * n; });
    EXPECT_NEAR(static_cast<double>(below), q * cap, 5 * std::sqrt(cap * q * (1 - q))) << q;
  }
  // Late samples are kept too (an early-only reservoir would hold no value that arrived last).
  SampleReservoir late(cap);
  for (long k = 0; k < n; ++k) late.add(k < n / 2 ? 0.0 : 1.0);
  const auto ones = std::count(late.kept().begin(), late.kept().end(), 1.0);
  EXPECT_NEAR(static_cast<double>(ones), cap / 2.0, 5 * std::sqrt(cap * 0.25));
}

// Each sample of a long run survives with the same probability cap / n, whenever it arrived: the
// kept samples of each tenth of the run number about cap / 10 (binomial, sd sqrt(cap 0.1 0.9)). A
// reservoir that stops replacing early, or favours late arrivals, leaves some tenths empty or full.
TEST(SampleReservoir, EveryStretchOfALongRunIsRepresented) {
  constexpr long n = 100000, cap = 1000;
  SampleReservoir r(cap);
  for (long k = 0; k < n; ++k) r.add(static_cast<double>(k));  // the value is the arrival index
  std::array<int, 10> per_tenth{};
  for (const double x : r.kept()) ++per_tenth[static_cast<std::size_t>(x * 10 / n)];
  for (std::size_t t = 0; t < per_tenth.size(); ++t) EXPECT_NEAR(per_tenth[t], cap / 10.0, 5 * std::sqrt(cap * 0.1 * 0.9)) << "tenth " << t;
}

TEST(SampleReservoir, EmptyIsZero) {
  const SampleReservoir r;
  EXPECT_EQ(r.count(), 0u);
  EXPECT_EQ(r.min(), 0);
  EXPECT_EQ(r.max(), 0);
  EXPECT_EQ(r.mean(), 0);
  EXPECT_TRUE(r.exact());
  EXPECT_TRUE(r.kept().empty());
}

// The expected least of k draws against brute force over every k-subset (C(8,3) = 56 of them).
TEST(ExpectedLeast, IsTheMeanOfTheLeastOverEverySubset) {
  const std::vector<double> v = {5, 1, 4, 9, 2, 8, 3, 7};
  for (int k = 1; k <= 8; ++k) {
    double sum = 0;
    int subsets = 0;
    for (unsigned mask = 0; mask < 256; ++mask) {
      if (__builtin_popcount(mask) != k) continue;
      double least = 1e9;
      for (int i = 0; i < 8; ++i)
        if (mask & (1u << i)) least = std::min(least, v[static_cast<std::size_t>(i)]);
      sum += least;
      ++subsets;
    }
    EXPECT_NEAR(sfr::core::expected_least_of(v, k), sum / subsets, 1e-12) << k;
  }
  EXPECT_EQ(sfr::core::expected_least_of({}, 3), 0);
  EXPECT_EQ(sfr::core::expected_least_of({2.5}, 3), 2.5);
}

// The 20th percentile calibrate, validate-model and the timing table judge on: the nearest rank
// below, sorted[floor(0.2 (n - 1))], here in integer arithmetic ((n - 1) / 5) on the values 1..n
// given in a scrambled order. The counts are those where conventions part: n = 5k (floor(0.2 n)
// and ceil(0.2 (n - 1)) are one higher), n = 5k + 1 (they agree), and 1, 2.
TEST(LowShare, IsTheNearestRankBelowTheTwentiethPercentile) {
  for (const std::size_t n : {1u, 2u, 5u, 6u, 10u, 11u, 20u, 50u, 51u, 100u, 101u}) {
    std::vector<double> v;
    for (std::size_t i = 0; i < n; ++i) v.push_back(static_cast<double>((i * 7 + 3) % n + 1));
    std::sort(v.begin(), v.end());
    EXPECT_EQ(sfr::core::low_share_of(v), static_cast<double>((n - 1) / 5 + 1)) << n << " samples";
  }
  EXPECT_EQ(sfr::core::low_share_of({}), 0);
}

// calibrate's statistic of a block: the middle value, the upper of the middle two.
TEST(UpperMedian, IsTheUpperOfTheMiddleTwo) {
  EXPECT_EQ(sfr::core::upper_median({4, 1, 3, 2}), 3);
  EXPECT_EQ(sfr::core::upper_median({5, 1, 4, 2, 3}), 3);
  EXPECT_EQ(sfr::core::upper_median({7}), 7);
  EXPECT_EQ(sfr::core::upper_median({}), 0);
}

// The timing table's, regress's and validate-model's median: the mean of the middle two.
TEST(Median, IsTheMeanOfTheMiddleTwo) {
  EXPECT_EQ(sfr::core::median({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(sfr::core::median({5, 1, 4, 2, 3}), 3);
  EXPECT_EQ(sfr::core::median({7}), 7);
  EXPECT_EQ(sfr::core::median({}), 0);
}

// Linear between order statistics at q (n - 1), numpy's default: by hand on 1..4 and 10..50,
// where the nearest-rank conventions give other values (q = 0.75 of 1..4: 3 or 4, not 3.25).
TEST(Quantile, InterpolatesLinearlyBetweenOrderStatistics) {
  EXPECT_DOUBLE_EQ(sfr::core::quantile({4, 1, 3, 2}, 0.75), 3.25);
  EXPECT_DOUBLE_EQ(sfr::core::quantile({4, 1, 3, 2}, 0.25), 1.75);
  EXPECT_DOUBLE_EQ(sfr::core::quantile({50, 10, 40, 20, 30}, 0.1), 14);
  EXPECT_DOUBLE_EQ(sfr::core::quantile({50, 10, 40, 20, 30}, 0.5), 30);
  EXPECT_DOUBLE_EQ(sfr::core::quantile({50, 10, 40, 20, 30}, 1), 50);
  EXPECT_EQ(sfr::core::quantile({}, 0.5), 0);
}

// Against a closed form: the least of k draws without replacement from 1..n is (n + 1) / (k + 1)
// on average (n = 60: calibrate's most rounds; k = 3: validate-model's repeats).
TEST(ExpectedLeast, OfOneToNIsNPlusOneOverKPlusOne) {
  for (const int n : {5, 20, 60})
    for (const int k : {1, 2, 3, 4}) {
      std::vector<double> v;
      for (int i = n; i >= 1; --i) v.push_back(i);
      EXPECT_NEAR(sfr::core::expected_least_of(v, k), (n + 1.0) / (k + 1.0), 1e-9) << n << " values, least of " << k;
    }
}
