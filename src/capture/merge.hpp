// Merging the capture library's rank files (sf-capture-rank v1, one per MPI rank, written at
// PetscFinalize) into one sf-trace: the ranks must agree on the SFs and on the op stream; each SF
// is written in the form PETSc built it (pattern, or derived from recorded SFs) where that form
// gives exactly the graph PETSc held, else as its explicit graph. Every refusal is an InputError
// (one line naming the rank file and what is wrong); nothing is written here.
#pragma once

#include <string>
#include <vector>

#include "trace/trace.hpp"

namespace sfr::capture {

struct MergeInfo {
  std::string name;                  // the trace's name
  std::vector<std::string> command;  // the application's command line (meta)
  std::string date;                  // ISO 8601 (meta)
};

// Reads DIR/rank-R.json for R = 0..P-1. Throws InputError when there is none ("no rank files"),
// when PETSc was refused, when ranks are missing or disagree, or when no op could be recorded.
trace::Trace merge_rank_files(const std::string& dir, const MergeInfo& info);

// True when DIR holds no rank file at all (the command never reached PetscFinalize with the
// library loaded).
bool no_rank_files(const std::string& dir);

}  // namespace sfr::capture
