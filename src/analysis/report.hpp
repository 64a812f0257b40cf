// Markdown report of a trace: the inspect statistics plus, when given, a run summary, measured times
// (MPI executor) and predicted times (simulator), side by side where both are present.
#pragma once

#include <string>

#include "analysis/capture_summary.hpp"
#include "analysis/inspect.hpp"
#include "io/json_strict.hpp"

namespace sfr::analysis {

struct RunSummary {
  std::string executor;   // e.g. "reference"
  std::string dump_path;  // empty when no dump
  std::size_t ops_run = 0;
};

// Optional inputs of a report, each already parsed and checked by the caller (null: section left out).
struct ReportInputs {
  const RunSummary* run = nullptr;
  io::Json timing;       // sf-timing v1 document from `sf-replay run --timing`
  io::Json simulation;   // document from `sf-replay simulate --json`: the machine measured
  io::Json what_if;      // the same on another machine: predictions only, no comparison
  const CaptureSummary* capture = nullptr;  // a captured application's op counts (sf-replay capture)
  io::Json model_check;  // sf-model-check document from `sf-replay validate-model --json`, its pairs of this trace
};

std::string render_markdown(const TraceStats& s, const ReportInputs& in = {});

}  // namespace sfr::analysis
