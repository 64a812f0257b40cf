// Structural statistics of the SFs and ops of a trace (`sf-replay inspect`).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "core/backends.hpp"
#include "plan/rounds.hpp"
#include "trace/trace.hpp"

namespace sfr::analysis {

using core::Index;

// Counts split by locality tier (core::Tier order: socket, node, network).
struct TierSplit {
  std::array<Index, 3> v{};
  Index total() const { return v[0] + v[1] + v[2]; }
};

struct UnitBytes {
  std::string unit;
  int bs = 1;
  Index remote_bytes = 0;  // all remote edges, one op execution
  Index self_bytes = 0;
  TierSplit tier_bytes;
};

struct SFStats {
  std::string name, form;
  Index roots = 0, leaves = 0, leafspace = 0;
  Index degree_min = 0, degree_max = 0, degree_zero = 0;
  double degree_mean = 0;
  Index self_edges = 0, remote_edges = 0;
  Index messages = 0;  // distinct (leaf rank, root rank) pairs, remote only
  TierSplit tier_messages, tier_edges;
  int max_out_degree = 0, max_in_degree = 0;  // distinct remote peers per rank (bcast direction)
  double leaf_imbalance = 0;                  // max/mean leaves per rank
  double message_imbalance = 0;               // max/mean messages sent per rank
  std::vector<UnitBytes> bytes;               // for each (unit, bs) used by an op on this SF
};

// One round of an op's plan under a backend (plan::Round, counted).
struct RoundSummary {
  std::string label;
  Index messages = 0, bytes = 0, shm_bytes = 0;
};

struct OpSummary {
  std::size_t index = 0;
  std::string text;
  // What one execution sends, from the plan layer (every round: fetch_and_op's two, a node-aware
  // strategy's three steps) under `backend` (inspect --backend; the direct plan, basic's, without).
  Index messages = 0, remote_bytes = 0, self_bytes = 0;
  std::vector<RoundSummary> rounds;
};

// The backend and placement inspect plans the ops for (inspect --backend).
struct InspectPlan {
  core::BackendId backend = core::kDefaultBackend;
  core::RankLayout place;
  plan::RouteParams params;
};

struct TraceStats {
  std::string name;
  int nranks = 0;
  std::string machine;  // one-line description
  std::vector<SFStats> sfs;
  std::vector<OpSummary> ops;
  InspectPlan plan;  // what the ops' messages were planned for
};

// Without a plan: basic's messages on the trace's placement.
TraceStats compute_stats(const trace::BuiltTrace& t, const InspectPlan* plan = nullptr);
// The placement a trace describes: its machine's ranks per node (1 without one).
core::RankLayout trace_placement(const trace::Trace& t);
std::string render_table(const TraceStats& s);
std::string render_json(const TraceStats& s);

}  // namespace sfr::analysis
