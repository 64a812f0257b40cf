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

std::string render_markdown(const TraceStats& s, const RunSummary* run);

}  // namespace sfr::analysis
