// Sizes of star forests before they are built: each SF form's leaf, root and leaf-space totals
// (exact for explicit, layout and pattern SFs, upper bounds for derived ones) and the bytes that
// building it takes, so that a trace whose graphs would not fit in memory is refused up front.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "core/graph.hpp"
#include "trace/trace.hpp"

namespace sfr::trace {

// Totals over all ranks (long double: a pattern SF's leaf count can exceed 2^64).
struct SFShape {
  long double leaves = 0, roots = 0, leafspace = 0;
};

SFShape shape_of(const core::Graph& g);

struct BuildCost {
  SFShape shape;          // of the built graph
  long double bytes = 0;  // the graph plus the work arrays of the algorithm that builds it
  std::string what;       // "pattern allgather with 6.4e+10 leaves"
};

// The cost of building `def`, given the shapes of the SFs it derives from.
BuildCost build_cost(const SFDef& def, int nranks, const std::function<SFShape(std::string_view)>& input_shape);

}  // namespace sfr::trace
