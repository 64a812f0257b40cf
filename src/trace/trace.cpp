#include "trace/trace.hpp"

#include "core/error.hpp"
#include "trace/build.hpp"
#include "trace/json_strict.hpp"

namespace sfr::trace {

bool LayoutSF::operator==(const LayoutSF& o) const {
  if (layout != o.layout || ranks.size() != o.ranks.size()) return false;
  for (size_t r = 0; r < ranks.size(); ++r) {
    const auto &a = ranks[r], &b = o.ranks[r];
    if (a.has_ilocal != b.has_ilocal || a.global != b.global || (a.has_ilocal && a.ilocal != b.ilocal)) return false;
  }
  return true;
}

bool parse_derive_kind(std::string_view s, DeriveKind& out) {
  for (auto k : {DeriveKind::multi, DeriveKind::compose, DeriveKind::compose_inverse, DeriveKind::embed_roots,
                 DeriveKind::embed_leaves, DeriveKind::inverse, DeriveKind::concatenate})
    if (s == derive_kind_name(k)) {
      out = k;
      return true;
    }
  return false;
}

const char* derive_kind_name(DeriveKind k) {
  switch (k) {
    case DeriveKind::multi: return "multi";
    case DeriveKind::compose: return "compose";
    case DeriveKind::compose_inverse: return "compose_inverse";
    case DeriveKind::embed_roots: return "embed_roots";
    case DeriveKind::embed_leaves: return "embed_leaves";
    case DeriveKind::inverse: return "inverse";
    case DeriveKind::concatenate: return "concatenate";
  }
  return "?";
}

bool parse_op_kind(std::string_view s, OpKind& out) {
  for (auto k : {OpKind::bcast, OpKind::reduce, OpKind::fetch_and_op, OpKind::gather, OpKind::scatter, OpKind::degree})
    if (s == op_kind_name(k)) {
      out = k;
      return true;
    }
  return false;
}

const char* op_kind_name(OpKind k) {
  switch (k) {
    case OpKind::bcast: return "bcast";
    case OpKind::reduce: return "reduce";
    case OpKind::fetch_and_op: return "fetch_and_op";
    case OpKind::gather: return "gather";
    case OpKind::scatter: return "scatter";
    case OpKind::degree: return "degree";
  }
  return "?";
}

bool op_takes_mpi_op(OpKind k) { return k == OpKind::bcast || k == OpKind::reduce || k == OpKind::fetch_and_op; }
core::MpiOp default_mpi_op(OpKind k) { return k == OpKind::fetch_and_op ? core::MpiOp::sum : core::MpiOp::replace; }
const char* memtype_name(MemType m) { return m == MemType::host ? "host" : "device"; }

core::Unit op_wire_unit(const OpSpec& op) { return op.op == OpKind::degree ? core::Unit::int64 : op.unit; }
int op_wire_bs(const OpSpec& op) { return op.op == OpKind::degree ? 1 : op.bs; }
std::int64_t op_vertex_bytes(const OpSpec& op) { return static_cast<std::int64_t>(core::unit_size(op_wire_unit(op))) * op_wire_bs(op); }

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
  auto g = build_sf_within(*def, trace_.nranks, [&](std::string_view n) { return &graph(n); }, max_memory_, bytes_built_);
  return *graphs_.emplace(std::string(name), std::move(g)).first->second;
}

const core::Graph& BuiltTrace::multi(std::string_view name) const {
  auto it = multis_.find(name);
  if (it == multis_.end()) {
    const SFDef def{std::string(name), DerivedSF{DeriveKind::multi, {std::string(name)}, {}, false}};
    it = multis_.emplace(std::string(name), build_sf_within(def, trace_.nranks, [&](std::string_view n) { return &graph(n); },
                                                            max_memory_, bytes_built_))
             .first;
  }
  return *it->second;
}

const core::Graph& BuiltTrace::graph_for(const OpSpec& op) const {
  return (op.op == OpKind::gather || op.op == OpKind::scatter) ? multi(op.sf) : graph(op.sf);
}

const char* tier_name(Tier t) {
  switch (t) {
    case Tier::self: return "self";
    case Tier::socket: return "on-socket";
    case Tier::node: return "on-node";
    case Tier::network: return "off-node";
  }
  return "?";
}

Tier tier_of(const std::optional<Machine>& m, int a, int b) {
  if (a == b) return Tier::self;
  if (!m) return Tier::network;
  if (a / m->ranks_per_node != b / m->ranks_per_node) return Tier::network;
  if (a / m->ranks_per_socket != b / m->ranks_per_socket) return Tier::node;
  return Tier::socket;
}

}  // namespace sfr::trace
