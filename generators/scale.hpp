// sf-replay scale: a captured application's trace at another rank count. The SFs the capture knows
// PETSc built for a DMDA (meta.sfs[i].built_by: its ghost update, the MatMult of a matrix made from
// it) are regenerated on the process grid PETSc would choose at P ranks; the SFs derived from them
// stay derived; the op stream and its counts stay as captured. An SF it cannot regenerate is
// refused by name, with the reason (or, asked for, left out with its ops and listed in the meta).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "core/budget.hpp"
#include "generators/dmda.hpp"
#include "trace/trace.hpp"

namespace sfr::gen {

struct ScaleOptions {
  int ranks = 0;                          // P
  std::optional<trace::Machine> machine;  // the placement at P ranks (--ranks-per-node), none: unplaced
  bool leave_out = false;                 // drop the SFs that cannot scale, and their ops
};

// Which of a DMDA's SFs it is (the capture's built_by.role).
enum class DmdaRole { global_to_local, matmult };
const char* role_name(DmdaRole r);

// One SF regenerated at P ranks: which of a DMDA's SFs it is, and its process grids.
struct RegeneratedSF {
  std::string name;
  DmdaRole role = DmdaRole::global_to_local;
  DmdaShape shape;
  std::array<int, 3> grid_captured{1, 1, 1}, grid_scaled{1, 1, 1};
};

struct LeftOutSF {
  std::string name, reason;
  long long op_calls = 0;  // calls of the trace's ops on it (their repeats summed)
};

// What scaling will do, decided and checked before anything at P ranks is built.
struct ScalePlan {
  int from_ranks = 0;
  std::vector<RegeneratedSF> regenerated;
  std::vector<std::string> derived;  // SFs kept in their derived form (built from regenerated ones)
  std::vector<LeftOutSF> left_out;
  long long calls_without_sf = 0;    // meta.op_counts' calls whose SF the capture did not keep (beyond --max-ops): dropped
  core::SizeEstimate size;           // the scaled trace's graphs
};

// Decides every SF of `t` (read from `path`). Each regenerated SF is first regenerated at the
// captured rank count and must equal the captured graph exactly (else PETSc built it some other
// way: the application chose its process grid, a matrix type or fill sf-replay does not model),
// so a scaled graph is only ever one whose construction reproduced PETSc's. InputError: an SF
// the ops need cannot scale (without o.leave_out), nothing to leave out (with it), or PETSc would
// refuse the split at P ranks (naming --ranks).
ScalePlan plan_scale(const trace::BuiltTrace& t, const std::string& path, const ScaleOptions& o);

// The trace at P ranks (meta: ranks, the DMDAs' process grids, op counts of what is kept, and a
// `scaled` record of what was regenerated and left out; the capture's hosts dropped).
trace::Trace scale_trace(const trace::BuiltTrace& t, const ScalePlan& plan, const ScaleOptions& o);

// The graph of a regenerated SF on process grid `procs`.
core::Graph regenerate(const RegeneratedSF& sf, const std::array<int, 3>& procs);

}  // namespace sfr::gen
