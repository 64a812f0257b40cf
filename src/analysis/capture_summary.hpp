// A captured application's communication, for the report: from the trace's capture meta (exact
// counts of every (SF, op kind), sf-replay capture), the bytes each op moves (inspect) and, where
// a timing document is given, the measured time per op: which SFs and ops dominate.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/inspect.hpp"
#include "io/json_strict.hpp"
#include "trace/result_docs.hpp"
#include "trace/trace.hpp"

namespace sfr::analysis {

struct CaptureRow {
  std::string sf, op;
  std::int64_t count = 0, vecscatter = 0;
  double remote_bytes = 0;  // per call: the mean over the trace's records of this (SF, op), weighted by their calls
  std::size_t records = 0;  // the trace's op records of this (SF, op); 0: its calls came beyond the cap
  double us = -1;           // measured median per call on `backend` (its records' mean weighted by calls); < 0: not measured
};

// One backend's share of the verdict: the captured application's communication on it, the sum
// over (SF, op) of the call count x the time per call (its records' mean weighted by calls), in microseconds; at
// the records' 25th and 75th percentiles too, so that two backends are told apart only beyond
// their noise.
struct BackendTotal {
  std::string backend;
  double median_us = 0, p25_us = 0, p75_us = 0;
};

struct CaptureSummary {
  io::Json meta;             // the trace's meta (generator "capture")
  std::vector<BackendTotal> totals;  // per backend that ran every op record, least first
  std::string backend;       // the backend whose times are used (least count x per call over the rows), or ""
  std::vector<CaptureRow> rows;  // heaviest first: by total time where measured, else by count x bytes
  // The same totals from a prediction (simulate/compare --json of this trace), per simulated
  // backend, least first (p25 = p75 = median: a prediction has no noise); its machine and placement.
  std::vector<BackendTotal> predicted;
  std::string predicted_machine, predicted_placement;
};

// Empty when the trace was not made by sf-replay capture; `timing` and `prediction` may be null.
std::optional<CaptureSummary> capture_summary(const trace::BuiltTrace& t, const TraceStats& s, const trace::TimingDoc* timing,
                                              const trace::SimulationDoc* prediction = nullptr);

}  // namespace sfr::analysis
