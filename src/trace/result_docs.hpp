// The result documents as types: sf-timing (`run --timing`), sf-simulation (`simulate --json`,
// `compare --json`) and sf-model-check (`validate-model --json`). Each writer fills the struct and
// serialises it with to_json; each reader (report, regress, dashboard) gets the struct from the
// *_from_json conversion, which checks the document strictly (format and version, required
// members, kinds) and refuses a bad one with a one-line InputError naming the source and the JSON
// pointer. Key names and their order live only in result_docs.cpp, so writers and readers cannot
// drift apart.
//
// They live in the trace layer (2) because both their writers (exec/mpi at layer 3, sim at 5) and
// their readers (analysis at 5) must include them, and sim and analysis may not include each
// other. Provenance stays a JSON object (trace/provenance.hpp builds it; its keys are checked here).
//
// Members that older documents may lack are std::optional where a reader tells "absent" from a
// value (a simulation op's per_call), or default when absence means the default; unknown keys are
// accepted (a newer writer may add some).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/json_strict.hpp"

namespace sfr::trace {

// The documents' "format" members (readers that sort a folder of documents by kind use these).
inline constexpr const char* kTimingFormat = "sf-timing";
inline constexpr const char* kSimulationFormat = "sf-simulation";
inline constexpr const char* kModelCheckFormat = "sf-model-check";

// ---- sf-timing v1 ----
// What one call of a device op asked of the device (exec/cuda/runtime.hpp's counts, per call, the
// most over ranks): kernel launches, stream / event / device-wide synchronisations, copies by
// direction and their bytes, memsets.
struct DeviceWork {
  double launches = 0, stream_syncs = 0, event_syncs = 0, device_syncs = 0, memsets = 0;
  double h2d = 0, h2d_bytes = 0, d2h = 0, d2h_bytes = 0, d2d = 0, d2d_bytes = 0;
  bool operator==(const DeviceWork&) const = default;
};
// The calls an op record stands for: its `repeat` (a record with repeat <= 1 is one call). A
// timed iteration runs all of them; every per-call time divides by this.
inline double calls_of(std::int64_t repeat) { return repeat > 1 ? static_cast<double>(repeat) : 1.0; }

struct TimingResult {
  std::size_t index = 0;  // the op's position in the trace
  std::string op, sf, backend, unit;
  std::int64_t bs = 1;
  std::string mpi_op;  // "" for ops that take none
  std::int64_t repeat = 1;
  std::int64_t bytes = 0, messages = 0;  // remote, per execution, all ranks (the plan)
  double min_us = 0, median_us = 0, max_us = 0;  // min and max over every timed iteration
  // The timed iterations (max over ranks): every one up to core::kSampleCap (65,536) of them, in
  // order; beyond, a uniform sample of that many (samples_exact false: median_us and percentiles
  // taken from them are estimates). Empty in old documents.
  std::vector<double> samples_us;
  std::optional<double> mean_us;  // over every timed iteration; absent in old documents
  bool samples_exact = true;
  std::optional<DeviceWork> device;  // ops on a device (a cuda-* backend, or data in device memory)
  bool operator==(const TimingResult&) const = default;
  // The times above are per timed iteration: all `repeat` calls of the op, a total. One call:
  double calls() const { return calls_of(repeat); }
  double per_call_us() const { return median_us / calls(); }
};
// `run --backend auto` labels each result with the backend it chose: "auto:basic".
std::string auto_label(const std::string& chose);
// What auto chose, from such a label ("basic" for "auto:basic"); "" for a fixed backend's name.
std::string auto_choice(const std::string& label);
// The result with its times (min, median, max, mean, samples) per call: what every comparison
// between ops, backends and predictions uses (the simulator predicts per call).
TimingResult per_call(TimingResult r);
struct TimingDoc {
  io::Json provenance;  // null: none (documents from before provenance)
  std::string trace;
  std::int64_t nranks = 0, warmup = 0, iters = 0;
  std::vector<TimingResult> results;
  std::int64_t split_cap = 0;  // > 0: the split strategies' chunk the run used (written only then)
  std::int64_t ranks_per_node = 0;  // > 0: the nodes the run's plans used (consecutive blocks); 0 in old documents
  bool operator==(const TimingDoc&) const = default;
};

// ---- sf-simulation v1 ----
// Per call, on the rank that finished last (seconds), as sim::Breakdown.
struct SimBreakdown {
  double latency = 0, bandwidth = 0, contention = 0, injection_wait = 0, overhead = 0, copies = 0, sync = 0, other = 0;
  bool operator==(const SimBreakdown&) const = default;
};
struct SimOp {
  std::size_t index = 0;
  std::string op;  // label, "bcast A float64x1"
  std::optional<std::int64_t> repeat;
  double total = 0;               // seconds, all repeats
  std::optional<double> per_call;  // seconds; older documents: total / repeat
  std::uint64_t messages = 0, messages_per_call = 0;
  std::int64_t bytes_per_call = 0;
  std::optional<SimBreakdown> breakdown;
  std::string dominant;
  bool operator==(const SimOp&) const = default;
  double per_call_us() const;  // per_call, else total / repeat (microseconds)
};
struct SimBackend {
  std::string backend;
  double total = 0;
  std::uint64_t messages = 0;
  std::optional<SimBreakdown> breakdown;
  std::string dominant;
  std::vector<SimOp> ops;
  bool operator==(const SimBackend&) const = default;
};
struct SimRankedOp {
  std::size_t index = 0;
  std::vector<std::string> order;  // backends, fastest first
  std::optional<std::string> why;  // with two or more backends
  bool operator==(const SimRankedOp&) const = default;
};
struct SimRanking {
  std::vector<std::string> order;
  std::optional<std::string> why;
  std::vector<SimRankedOp> ops;
  bool operator==(const SimRanking&) const = default;
};
struct SimulationDoc {
  io::Json provenance;
  std::string trace, machine, model;
  std::string unit = "seconds";
  std::vector<SimBackend> backends;
  std::optional<SimRanking> ranking;  // written as null without backends
  // Where the ranks were put: {"ranks_per_node", "ranks_per_socket", "nodes", "text"}; null in
  // documents from before it was written.
  io::Json placement;
  bool operator==(const SimulationDoc&) const = default;
};

// ---- sf-model-check v1 ----
struct ModelCheckPair {
  std::string trace;
  std::size_t op = 0;
  std::string label, backend;
  double measured_us = 0, predicted_us = 0, error = 0;
  double spread = 0;           // the measurement's run-to-run spread (0: one repeat, or an older document)
  bool within_spread = false;  // |error| <= spread
  bool operator==(const ModelCheckPair&) const = default;
};
struct ModelCheckOp {
  std::string trace;
  std::size_t op = 0;
  std::string measured_best, predicted_best;
  bool right = false;
  bool within_spread = false;  // right, or within the measured best's run-to-run spread
  bool operator==(const ModelCheckOp&) const = default;
};
// One backend's accuracy over its pairs: the median |error| and its worst pair (signed error).
struct ModelCheckBackend {
  std::string backend;
  std::uint64_t pairs = 0;
  double median_abs_error = 0, worst_error = 0;
  std::string worst_trace;
  std::size_t worst_op = 0;
  bool operator==(const ModelCheckBackend&) const = default;
};
struct ModelCheckDoc {
  std::string machine;
  std::vector<ModelCheckPair> pairs;
  std::vector<ModelCheckOp> ops;
  std::vector<ModelCheckBackend> by_backend;  // in order of first appearance (none in older documents)
  std::uint64_t summary_pairs = 0, summary_ops_ranked = 0, summary_within_spread = 0;
  double median_abs_error = 0, ranking_right = 0, median_spread = 0, ranking_within_spread = 0;
  // basic on calibrate's ring: as the machine file recorded it and as measured with the pairs
  // (sim::RingCheck; 0 and 0: not compared, or an older document). summary.calibration_ring.
  double ring_calibrated_us = 0, ring_now_us = 0;
  io::Json provenance;  // written last, only when set
  bool operator==(const ModelCheckDoc&) const = default;
};

// Serialisation: the documents' keys in their order (format and version first).
io::Json to_json(const DeviceWork& w);
io::Json to_json(const TimingDoc& d);
io::Json to_json(const SimulationDoc& d);
io::Json to_json(const ModelCheckDoc& d);

// Checked conversion; `source` names the document in errors (a file name).
TimingDoc timing_doc_from_json(const io::Json& j, const std::string& source);
// The format member may be missing (simulations written before it existed).
SimulationDoc simulation_doc_from_json(const io::Json& j, const std::string& source);
ModelCheckDoc model_check_doc_from_json(const io::Json& j, const std::string& source);
// A provenance object's checks (commit, date, host strings; trace_sha256 string or null) at
// "/provenance"; null is accepted (no provenance).
void check_provenance(const io::Json& p, const std::string& source);

}  // namespace sfr::trace
