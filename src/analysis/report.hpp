// Markdown report of a trace: the inspect statistics plus, when given, a run summary, measured times
// (MPI executor) and predicted times (simulator), side by side where both are present.
#pragma once

#include <optional>
#include <string>

#include "analysis/capture_summary.hpp"
#include "analysis/inspect.hpp"
#include "trace/result_docs.hpp"

namespace sfr::analysis {

struct RunSummary {
  std::string executor;   // e.g. "reference"
  std::string dump_path;  // empty when no dump
  std::size_t ops_run = 0;
};

// Optional inputs of a report, each already parsed and checked by the caller (null: section left out).
struct ReportInputs {
  const RunSummary* run = nullptr;
  std::optional<trace::TimingDoc> timing;          // from `sf-replay run --timing`
  std::optional<trace::SimulationDoc> simulation;  // from `sf-replay simulate --json`: the machine measured
  std::optional<trace::SimulationDoc> what_if;     // the same on another machine: predictions only, no comparison
  const CaptureSummary* capture = nullptr;         // a captured application's op counts (sf-replay capture)
  std::optional<trace::ModelCheckDoc> model_check; // from `sf-replay validate-model --json`, its pairs of this trace
};

std::string render_markdown(const TraceStats& s, const ReportInputs& in = {});

}  // namespace sfr::analysis
