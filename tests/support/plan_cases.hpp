// The traces the plan's oracles run (PlanAgreement: run = simulate = inspect; PlanAgainstMpiCalls:
// the MPI calls): every sample trace of at most 8 ranks on nodes of 2 ranks, and random forests
// of the sizes and node widths a suite adds. The parameter's name is the case's.
#pragma once

#include <algorithm>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "support/sample_traces.hpp"
#include "trace/reader.hpp"

namespace sfr_test {

struct PlanCase {
  std::string name;
  std::filesystem::path source;  // a sample trace, or empty: `make`'s, else a random graph of `nranks`
  int nranks = 0;
  int ranks_per_node = 0;  // the trace's machine; 0: none (the launch's nodes)
  sfr::trace::Trace (*make)() = nullptr;  // a trace built by a test helper
};
inline std::ostream& operator<<(std::ostream& o, const PlanCase& c) { return o << c.name; }

// The case's trace: `make`'s, the sample's, else `random()`'s (each suite draws its own).
template <class Random>
sfr::trace::Trace trace_of(const PlanCase& c, Random&& random) {
  if (c.make) return c.make();
  if (!c.source.empty()) return sfr::trace::read_trace_file(c.source.string()).trace();
  return random();
}

inline std::vector<PlanCase> sample_plan_cases() {
  std::vector<PlanCase> v;
  for (const auto& p : sample_traces(8)) {
    const int n = sfr::trace::read_trace_file(p.string()).trace().nranks;
    v.push_back({p.stem().string() + "_rpn" + std::to_string(std::min(2, n)), p, n, std::min(2, n)});
  }
  return v;
}

// random<n>_rpn<rpn> for n in [first, last] and rpn in {1, 2, 4} up to n (below n unless `whole`).
inline void add_random_plan_cases(std::vector<PlanCase>& v, int first, int last, bool whole) {
  for (int n = first; n <= last; ++n)
    for (int rpn : {1, 2, 4})
      if (rpn < n || (whole && rpn == n)) v.push_back({"random" + std::to_string(n) + "_rpn" + std::to_string(rpn), {}, n, rpn});
}

}  // namespace sfr_test
