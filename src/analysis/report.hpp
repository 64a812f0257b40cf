// Markdown report of a trace: the inspect statistics plus, when given, a run summary.
#pragma once

#include <string>

#include "analysis/inspect.hpp"

namespace sfr::analysis {

struct RunSummary {
  std::string executor;   // e.g. "reference"
  std::string dump_path;  // empty when no dump
  std::size_t ops_run = 0;
};

// `timing_json` (optional, may be empty): an sf-timing v1 document from `sf-replay run --timing`.
std::string render_markdown(const TraceStats& s, const RunSummary* run, const std::string& timing_json = "");

}  // namespace sfr::analysis
