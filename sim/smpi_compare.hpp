// Agreement with SimGrid SMPI: the reference patterns of the comparison (rings, random degree-d
// exchanges; SpMV ghost exchanges come from the generators) and one call that replays a trace in
// SMPI (exported time-independent trace) and in our simulator on the same uniform machine, with
// both predicted times and wall times. Used by the SimGrid test and the benchmark.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/machine.hpp"
#include "sim/strategies.hpp"
#include "trace/trace.hpp"

namespace sfr::sim {

// Every rank r sends `bytes` to r + o (mod P) for every o in `offsets`, as `ops` bcasts.
trace::BuiltTrace ring_trace(int nranks, const std::vector<int>& offsets, std::int64_t bytes, int ops);
// Every rank receives `bytes` from `degree` distinct random other ranks (seeded), as `ops` bcasts.
trace::BuiltTrace random_degree_trace(int nranks, int degree, std::int64_t bytes, int ops, std::uint64_t seed);

struct SmpiComparison {
  double smpi_s = -1, ours_s = 0;           // predicted times (seconds); smpi_s < 0: SMPI failed
  double smpi_wall_s = 0, ours_wall_s = 0;  // wall-clock time of each replay
  double diff() const { return (ours_s - smpi_s) / smpi_s; }
  double speedup() const { return ours_wall_s > 0 ? smpi_wall_s / ours_wall_s : 0; }
};
// Replays `bt` (backend `b`'s plan: basic by default) in SMPI under `m`'s off-node eager alpha/beta (a uniform machine is
// what both evaluate identically) and in our simulator under `m`. `dir` receives the export and
// SMPI's log. Requires smpirun_available().
SmpiComparison compare_with_smpi(const trace::BuiltTrace& bt, const MachineModel& m, const std::string& dir, const BackendVariant& b = {});

}  // namespace sfr::sim
