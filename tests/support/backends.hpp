// The host backends that run any graph, in the catalogue's order (core/backends.hpp's simulated
// rows: every backend but the pattern-only collective and the GPU transports): the suites that
// run, count or plan each backend take them from here, so a new backend joins them all.
#pragma once

#include <string>
#include <vector>

#include "core/backends.hpp"

namespace sfr_test {

inline std::vector<std::string> graph_backends() {
  std::vector<std::string> out;
  for (const auto& b : sfr::core::kBackends)
    if (b.simulated && !b.gpu && !b.pattern_only) out.emplace_back(b.name);
  return out;
}

}  // namespace sfr_test
