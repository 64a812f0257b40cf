// The statistic calibrate fits and validate-model judges on (sim/README.md, "One statistic for
// fitting and judging"): of an op's timed iterations, the kLowShare-th share from below (nearest
// rank below), not their median: ranks that share a core take one of two times per iteration (a
// wait for the core or none), and the median of a launch falls on either.
#pragma once

#include <cstddef>
#include <vector>

namespace sfr::core {

constexpr double kLowShare = 0.2;

// `sorted`: ascending; 0 when empty.
inline double low_share_of(const std::vector<double>& sorted) {
  if (sorted.empty()) return 0;
  return sorted[static_cast<std::size_t>(kLowShare * static_cast<double>(sorted.size() - 1))];
}

}  // namespace sfr::core
