// A run's timings as the user reads them (exec/mpi/runner.hpp measures them): the OSU-style table
// on standard output and the sf-timing document.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "exec/mpi/runner.hpp"
#include "io/json_strict.hpp"
#include "trace/trace.hpp"

namespace sfr::exec::mpi {

// OSU-style table and the timing JSON (sf-timing v1, src/exec/mpi/README.md "Timing").
std::string timing_table(const trace::BuiltTrace& t, const std::vector<OpTiming>& r, int iters);
// `provenance`: the document's provenance object (trace/provenance.hpp).
// split_cap > 0: the split strategies' chunk the run used (recorded as "split_cap").
std::string timing_json(const trace::BuiltTrace& t, const std::vector<OpTiming>& r, int warmup, int iters, const io::Json& provenance,
                        std::int64_t split_cap = 0);

}  // namespace sfr::exec::mpi
