// sf-trace v1 in memory (see ../shared/spec/sf-trace-v1.md and src/trace/README.md).
// SF definitions are kept in their original form (explicit, layout, pattern, derived) so that
// writing a trace back reproduces it; `build_graphs` turns them into core graphs.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/derive.hpp"
#include "core/graph.hpp"
#include "core/op_spec.hpp"
#include "core/ops.hpp"
#include "core/tier.hpp"
#include "core/units.hpp"

namespace sfr::trace {

using core::Index;

struct Machine {
  int ranks_per_node = 1;
  int ranks_per_socket = 1;
  int gpus_per_node = 0;
  bool operator==(const Machine&) const = default;
};

struct ExplicitSF {
  std::shared_ptr<const core::Graph> graph;
  bool operator==(const ExplicitSF& o) const { return *graph == *o.graph; }
};
struct LayoutSF {
  std::vector<Index> layout;
  std::vector<core::LayoutRank> ranks;
  bool operator==(const LayoutSF& o) const;
};
struct PatternSF {
  core::Pattern pattern = core::Pattern::allgather;
  std::vector<Index> nroots;
  bool operator==(const PatternSF&) const = default;
};

enum class DeriveKind { multi, compose, compose_inverse, embed_roots, embed_leaves, inverse, concatenate };
bool parse_derive_kind(std::string_view s, DeriveKind& out);
const char* derive_kind_name(DeriveKind k);

struct DerivedSF {
  DeriveKind kind = DeriveKind::multi;
  std::vector<std::string> of;
  std::vector<std::vector<Index>> selected;  // embed_roots / embed_leaves
  bool shared_roots = false;                 // concatenate
  bool operator==(const DerivedSF&) const = default;
};

struct SFDef {
  std::string name;
  std::variant<ExplicitSF, LayoutSF, PatternSF, DerivedSF> def;
  bool operator==(const SFDef&) const = default;
};

// The op vocabulary lives in core (core/op_spec.hpp); a trace is a list of them.
using core::MemType;
using core::OpKind;
using core::OpSpec;

struct Trace {
  std::string name;
  int nranks = 0;
  std::optional<Machine> machine;
  std::string meta_json;  // the `meta` object as compact JSON text; empty when absent
  std::vector<SFDef> sfs;
  std::vector<OpSpec> ops;

  const SFDef* find_sf(std::string_view name) const;
  bool operator==(const Trace&) const = default;
};

// A trace with every SF built into a graph (and multi-SFs built lazily for gather/scatter).
class BuiltTrace {
public:
  using GraphMap = std::map<std::string, std::shared_ptr<const core::Graph>, std::less<>>;
  explicit BuiltTrace(Trace t);  // builds every SF; throws InputError naming the SF (pointer /sfs/NAME) on failure
  // `built`: the graphs the reader built (taking `bytes_built` of `max_memory`); the others are
  // built on first use, refused (InputError naming /sfs/NAME) when they would pass the limit.
  BuiltTrace(Trace t, GraphMap built, std::uint64_t max_memory, long double bytes_built);
  const Trace& trace() const { return trace_; }
  const core::Graph& graph(std::string_view name) const;
  const core::Graph& multi(std::string_view name) const;  // multi-SF of the named SF
  const core::Graph& graph_for(const OpSpec& op) const;   // multi for gather/scatter
  std::uint64_t max_memory() const { return max_memory_; }
  // Another placement to look at the trace under (report --ranks-per-node): the graphs stay.
  void set_machine(const Machine& m) { trace_.machine = m; }

private:
  Trace trace_;
  mutable GraphMap graphs_;
  mutable GraphMap multis_;
  std::uint64_t max_memory_ = UINT64_MAX;
  mutable long double bytes_built_ = 0;
};

// A placement given for a trace of `nranks` ranks (--ranks-per-node, --ranks-per-socket): the
// machine it makes, or InputError naming the option that does not fit.
Machine checked_placement(int nranks, int ranks_per_node, int ranks_per_socket, int gpus_per_node);

// Locality tier of two distinct ranks under `machine` (absent machine: every rank its own node).
core::Tier tier_of(const std::optional<Machine>& m, int a, int b);

}  // namespace sfr::trace
