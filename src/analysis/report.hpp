// Markdown report of a trace: the inspect statistics plus, when given, a run summary, measured times
// (MPI executor) and predicted times (simulator), side by side where both are present.
#pragma once

#include <string>

#include "analysis/inspect.hpp"

namespace sfr::analysis {

struct RunSummary {
  std::string executor;   // e.g. "reference"
  std::string dump_path;  // empty when no dump
  std::size_t ops_run = 0;
};

// Optional inputs of a report, each already parsed and checked by the caller (empty: section left out).
struct ReportInputs {
  const RunSummary* run = nullptr;
  std::string timing_json;      // sf-timing v1 document from `sf-replay run --timing`
  std::string simulation_json;  // document from `sf-replay simulate --json`
};

std::string render_markdown(const TraceStats& s, const ReportInputs& in = {});

}  // namespace sfr::analysis
