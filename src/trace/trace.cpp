#include "trace/trace.hpp"

#include "core/error.hpp"
#include "core/names.hpp"
#include "io/json_strict.hpp"
#include "trace/build.hpp"

namespace sfr::trace {

using namespace sfr::io;  // the JSON layer

bool LayoutSF::operator==(const LayoutSF& o) const {
  if (layout != o.layout || ranks.size() != o.ranks.size()) return false;
  for (size_t r = 0; r < ranks.size(); ++r) {
    const auto &a = ranks[r], &b = o.ranks[r];
    if (a.has_ilocal != b.has_ilocal || a.global != b.global || (a.has_ilocal && a.ilocal != b.ilocal)) return false;
  }
  return true;
}

namespace {
constexpr std::array<core::Named<DeriveKind>, 7> kDeriveNames{{{DeriveKind::multi, "multi"},
                                                               {DeriveKind::compose, "compose"},
                                                               {DeriveKind::compose_inverse, "compose_inverse"},
                                                               {DeriveKind::embed_roots, "embed_roots"},
                                                               {DeriveKind::embed_leaves, "embed_leaves"},
                                                               {DeriveKind::inverse, "inverse"},
                                                               {DeriveKind::concatenate, "concatenate"}}};
}  // namespace

bool parse_derive_kind(std::string_view s, DeriveKind& out) { return core::parse_name(s, kDeriveNames, out); }
const char* derive_kind_name(DeriveKind k) { return core::name_of(k, kDeriveNames); }

const SFDef* Trace::find_sf(std::string_view n) const {
  for (const auto& s : sfs)
    if (s.name == n) return &s;
  return nullptr;
}

BuiltTrace::BuiltTrace(Trace t) : trace_(std::move(t)) {
  for (const SFDef& def : trace_.sfs) {
    const std::string ptr = pointer_join("/sfs", def.name);
    if (graphs_.count(def.name)) throw InputError(ptr, "SF defined twice");
    try {
      graphs_[def.name] = build_sf(def, trace_.nranks, [&](std::string_view n) -> const core::Graph* {
        auto it = graphs_.find(n);
        return it == graphs_.end() ? nullptr : it->second.get();
      });
    } catch (const GraphError& e) {
      throw InputError(ptr, e.what());
    }
  }
  for (size_t i = 0; i < trace_.ops.size(); ++i)
    if (!graphs_.count(trace_.ops[i].sf))
      throw InputError(pointer_join(pointer_join("/ops", i), "sf"), "unknown SF " + json_quote(trace_.ops[i].sf));
}

BuiltTrace::BuiltTrace(Trace t, GraphMap built, std::uint64_t max_memory, long double bytes_built)
    : trace_(std::move(t)), graphs_(std::move(built)), max_memory_(max_memory), bytes_built_(bytes_built) {}

const core::Graph& BuiltTrace::graph(std::string_view name) const {
  auto it = graphs_.find(name);
  if (it != graphs_.end()) return *it->second;
  const SFDef* def = trace_.find_sf(name);
  if (!def) throw InputError("", "unknown SF " + json_quote(name));
  // Built on first use (a pattern SF the reader left unbuilt).
  auto g = build_sf_within(
      *def, trace_.nranks, [&](std::string_view n) { return &graph(n); }, max_memory_, bytes_built_);
  return *graphs_.emplace(std::string(name), std::move(g)).first->second;
}

const core::Graph& BuiltTrace::multi(std::string_view name) const {
  auto it = multis_.find(name);
  if (it == multis_.end()) {
    const SFDef def{std::string(name), DerivedSF{DeriveKind::multi, {std::string(name)}, {}, false}};
    it = multis_
             .emplace(std::string(name), build_sf_within(
                                             def, trace_.nranks, [&](std::string_view n) { return &graph(n); }, max_memory_, bytes_built_))
             .first;
  }
  return *it->second;
}

const core::Graph& BuiltTrace::graph_for(const OpSpec& op) const { return core::op_traits(op.op).on_multi ? multi(op.sf) : graph(op.sf); }

Machine checked_placement(int nranks, int ranks_per_node, int ranks_per_socket, int gpus_per_node) {
  if (ranks_per_node < 1 || ranks_per_node > nranks)
    throw InputError("--ranks-per-node",
                     "expected 1.." + std::to_string(nranks) + " (the trace's ranks), got " + std::to_string(ranks_per_node));
  if (ranks_per_socket < 1 || ranks_per_node % ranks_per_socket != 0)
    throw InputError("--ranks-per-socket", std::to_string(ranks_per_socket) + " must be >= 1 and divide the " +
                                               std::to_string(ranks_per_node) + " ranks per node");
  return {ranks_per_node, ranks_per_socket, gpus_per_node};
}

core::Tier tier_of(const std::optional<Machine>& m, int a, int b) {
  if (!m) return core::Tier::network;
  const core::RankLayout l{.ranks_per_node = m->ranks_per_node, .ranks_per_socket = m->ranks_per_socket};
  return core::tier_between(l.location(a), l.location(b));
}

}  // namespace sfr::trace
