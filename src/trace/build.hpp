// Turns one SF definition into a core graph (used by the reader while parsing, and by BuiltTrace
// for traces made in memory). Throws GraphError.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

#include "trace/trace.hpp"

namespace sfr::trace {

using GraphLookup = std::function<const core::Graph*(std::string_view)>;
std::shared_ptr<const core::Graph> build_sf(const SFDef& def, int nranks, const GraphLookup& lookup);

// build_sf after estimating its cost (trace/size.hpp) from the inputs `lookup` gives: refused with
// InputError("/sfs/NAME", "would build ...: about X, over the memory limit of Y (--max-memory)")
// when `bytes_built` plus that cost exceeds `limit`; otherwise built and the cost added.
std::shared_ptr<const core::Graph> build_sf_within(const SFDef& def, int nranks, const GraphLookup& lookup, std::uint64_t limit,
                                                   long double& bytes_built);

}  // namespace sfr::trace
