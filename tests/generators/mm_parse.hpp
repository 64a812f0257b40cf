// A deliberately simple Matrix Market coordinate parser for the tests (independent of CHOLMOD):
// the full (symmetry-expanded) set of (row, col) positions, 0-based.
#pragma once

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>

namespace sfr_test {

struct MmPattern {
  long long nrows = 0, ncols = 0;
  std::set<std::pair<long long, long long>> entries;
};

inline MmPattern parse_mm(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  const bool symmetric =
      line.find("symmetric") != std::string::npos || line.find("hermitian") != std::string::npos || line.find("skew") != std::string::npos;
  while (std::getline(in, line) && (line.empty() || line[0] == '%')) {}
  MmPattern m;
  long long nnz = 0;
  std::istringstream(line) >> m.nrows >> m.ncols >> nnz;
  for (long long k = 0; k < nnz && std::getline(in, line); ++k) {
    long long i = 0, j = 0;
    std::istringstream(line) >> i >> j;
    m.entries.insert({i - 1, j - 1});
    if (symmetric) m.entries.insert({j - 1, i - 1});
  }
  return m;
}

}  // namespace sfr_test
