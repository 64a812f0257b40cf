// Replays a whole trace under one machine model and one or more backends: ops run in order, each
// `repeat` times, each rank starting an op as soon as it finished the previous one; `overlap_us`
// of compute sits between an op's begin (sends posted) and end (completion).
#pragma once

#include <string>
#include <vector>

#include "core/budget.hpp"

#include "sim/strategies.hpp"
#include "trace/result_docs.hpp"
#include "trace/trace.hpp"

namespace sfr::sim {

// Per call, on the rank that finished last (seconds): the terms along the chain that finished it
// (engine.hpp's Accum); `other` is the rest (waiting for peers that started late).
struct Breakdown {
  double latency = 0, bandwidth = 0, contention = 0, injection_wait = 0, overhead = 0, copies = 0, sync = 0, other = 0;
  static constexpr int kTerms = 8;
  static const char* term_name(int k);  // "latency", "bandwidth", "contention", ...
  double term(int k) const;
  Breakdown& operator+=(const Breakdown& b);
  Breakdown scaled(double f) const;
  // Makes the terms a breakdown of `total`: none negative, all adding up to it (terms past the
  // total scaled down to it; "other" is what they leave).
  void fit(double total);
};
struct OpResult {
  std::size_t index = 0;
  std::string label;  // "bcast A float64x1"
  core::Index repeat = 1;
  double total_s = 0;  // makespan increase over all repeats
  double per_call_s = 0;
  Breakdown breakdown;
  std::uint64_t messages = 0;  // simulated messages (all repeats)
  // One call's messages and their bytes, as planned (plan::op_rounds: what run --timing reports).
  std::uint64_t call_messages = 0;
  std::int64_t call_bytes = 0;
};
struct BackendResult {
  BackendVariant backend;
  double total_s = 0;
  std::uint64_t messages = 0;
  Breakdown breakdown;  // sum over ops of per-call breakdown x repeat
  std::vector<OpResult> ops;
};
struct SimResult {
  std::string trace, machine, model;
  RankLayout layout;          // where the ranks were put
  std::string placement;  // that, in words, with where it came from (placement_text)
  std::vector<BackendResult> backends;
};

RankLayout layout_for(const trace::Trace& t, const MachineModel& m);
// The layout in one line, with its source (the trace's placement, the machine's nodes, or who
// overrode them), and where it puts a capture's ranks on fewer nodes than it ran on, that.
std::string placement_text(const trace::Trace& t, const MachineModel& m);
// --ranks-per-node / --ranks-per-socket (0: not given): the machine's topology overridden, after
// checking them against the trace's ranks.
void set_placement(MachineModel& m, const trace::Trace& t, int ranks_per_node, int ranks_per_socket);
// Whether any op of the trace touches device memory (then device-aware variants make sense).
bool uses_device(const trace::Trace& t);

// The backends of a parsed --backend list (cli::parse_backends); basic when it is empty. Where
// `all` was given (`all`: every simulated backend is in `chosen`) and the trace uses device
// memory, each backend also gets its device-aware variant where it has one.
std::vector<BackendVariant> select_backends(const std::vector<BackendVariant>& chosen, bool all, const trace::Trace& t);

// `timeline`: when non-null, every backend's slices are recorded (tracks = endpoints).
// Peak memory of simulating the trace's ops (rank lists and message lists, about 60 bytes per leaf of
// each op's graph, bounded here by 128), named after the op with the largest graph; builds the
// graphs the ops use (within the trace's memory limit).
core::SizeEstimate memory_estimate(const trace::BuiltTrace& bt);

// `ops_apart`: every rank waits for all before each op (a barrier of no cost), as the executor
// times ops; each op's result is then what it would be alone.
SimResult simulate(const trace::BuiltTrace& bt, const MachineModel& m, const std::vector<BackendVariant>& backends, Timeline* timeline = nullptr,
                   bool ops_apart = false);

}  // namespace sfr::sim
