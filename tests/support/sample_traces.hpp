// The checked-in sample traces (traces/*.json), optionally only those small enough in ranks to run
// under mpiexec on a 2-core CI machine.
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "trace/reader.hpp"

namespace sfr_test {

inline std::vector<std::filesystem::path> sample_traces(int max_ranks = 1 << 30) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(SFR_TRACES_DIR))
    if (e.path().extension() == ".json" && sfr::trace::read_trace_file(e.path().string()).trace().nranks <= max_ranks) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace sfr_test
