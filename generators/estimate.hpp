// Peak memory of each generator, estimated from its options alone (nothing is built): the
// command line refuses a run whose estimate exceeds the memory limit before allocating anything.
// Measured peaks are 25-57 bytes per leaf (graph arrays, their growth, the JSON text written);
// the estimates charge 64 bytes per leaf and 512 per rank, plus each generator's own tables.
#pragma once

#include "core/budget.hpp"
#include "generators/hexmesh.hpp"
#include "generators/random_sf.hpp"
#include "generators/scatter.hpp"
#include "generators/scenario.hpp"
#include "generators/spmv.hpp"
#include "generators/stencil.hpp"
#include "generators/synthetic.hpp"

namespace sfr::gen {

// A generator's graphs of `leaves` leaves on `ranks` ranks, plus `extra` bytes of its own tables.
core::SizeEstimate leaves_and_ranks(const char* option, long double leaves, long double ranks, long double extra = 0);

core::SizeEstimate estimate(const SpmvOptions& o);  // from the matrix file's size
core::SizeEstimate estimate(const StencilOptions& o);
core::SizeEstimate estimate(const HexmeshOptions& o);
core::SizeEstimate estimate(const SyntheticOptions& o);
core::SizeEstimate estimate(const ScatterOptions& o);
core::SizeEstimate estimate(const ScenarioOptions& o);
core::SizeEstimate estimate(const RandomOptions& o);

}  // namespace sfr::gen
