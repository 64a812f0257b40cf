// Turns one SF definition into a core graph (used by the reader while parsing, and by BuiltTrace
// for traces made in memory). Throws GraphError.
#pragma once

#include <functional>
#include <memory>
#include <string_view>

#include "trace/trace.hpp"

namespace sfr::trace {

using GraphLookup = std::function<const core::Graph*(std::string_view)>;
std::shared_ptr<const core::Graph> build_sf(const SFDef& def, int nranks, const GraphLookup& lookup);

}  // namespace sfr::trace
