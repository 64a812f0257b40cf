// The checked-in sample traces (traces/*.json) in name order; with `max_ranks`, only those of at
// most that many ranks (small enough to run under mpiexec on a 2-core CI machine), which reads each.
#pragma once

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "trace/reader.hpp"

namespace sfr_test {

// The small hand-made trace (4 ranks) that many tests run by name.
inline const std::string kSample = std::string(SFR_TRACES_DIR) + "/handmade-4.json";

inline std::vector<std::filesystem::path> sample_traces(std::optional<int> max_ranks = std::nullopt) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(SFR_TRACES_DIR))
    if (e.path().extension() == ".json" && (!max_ranks || sfr::trace::read_trace_file(e.path().string()).trace().nranks <= *max_ranks))
      out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace sfr_test
