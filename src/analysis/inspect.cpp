#include "analysis/inspect.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/format.hpp"

namespace sfr::analysis {
namespace {

const char* form_of(const trace::SFDef& d) {
  if (std::holds_alternative<trace::ExplicitSF>(d.def)) return "explicit";
  if (std::holds_alternative<trace::LayoutSF>(d.def)) return "layout";
  if (const auto* p = std::get_if<trace::PatternSF>(&d.def)) return core::pattern_name(p->pattern);
  return trace::derive_kind_name(std::get<trace::DerivedSF>(d.def).kind);
}

// "socket 3, node 2, network 1" (counts or, with `bytes`, byte sizes) in core::Tier order.
std::string tier_text(const TierSplit& t, bool bytes = false) {
  std::string out;
  for (const auto& [tier, name] : core::kTierNames) {
    const Index v = t.v[static_cast<std::size_t>(tier)];
    out += std::string(out.empty() ? "" : ", ") + name + " " + (bytes ? core::format_bytes(v) : std::to_string(v));
  }
  return out;
}

SFStats sf_stats(const trace::BuiltTrace& t, const trace::SFDef& def) {
  const core::Graph& g = t.graph(def.name);
  const auto& machine = t.trace().machine;
  SFStats s;
  s.name = def.name;
  s.form = form_of(def);
  s.roots = g.total_roots();
  s.leaves = g.total_leaves();
  const auto deg = core::root_degrees(g);
  bool first = true;
  for (const auto& d : deg)
    for (Index x : d) {
      s.degree_min = first ? x : std::min(s.degree_min, x);
      s.degree_max = first ? x : std::max(s.degree_max, x);
      s.degree_zero += x == 0;
      first = false;
    }
  s.degree_mean = s.roots ? static_cast<double>(s.leaves) / static_cast<double>(s.roots) : 0.0;
  std::vector<Index> sent(static_cast<size_t>(g.nranks), 0);  // messages per root rank (bcast senders)
  std::vector<int> in_deg(static_cast<size_t>(g.nranks), 0), out_deg(static_cast<size_t>(g.nranks), 0);
  Index max_leaves = 0;
  for (int r = 0; r < g.nranks; ++r) {
    const core::RankGraph& rg = g[r];
    s.leafspace += rg.leafspace();
    max_leaves = std::max(max_leaves, rg.nleaves());
    std::map<int, Index> per_peer;
    for (int p : rg.remote_rank) ++per_peer[p];
    for (auto [p, n] : per_peer) {
      if (p == r) {
        s.self_edges += n;
        continue;
      }
      s.remote_edges += n;
      ++s.messages;
      const auto slot = static_cast<int>(trace::tier_of(machine, r, p));
      ++s.tier_messages.v[static_cast<size_t>(slot)];
      s.tier_edges.v[static_cast<size_t>(slot)] += n;
      ++in_deg[static_cast<size_t>(r)];
      ++out_deg[static_cast<size_t>(p)];
      ++sent[static_cast<size_t>(p)];
    }
  }
  for (int r = 0; r < g.nranks; ++r) {
    s.max_in_degree = std::max(s.max_in_degree, in_deg[static_cast<size_t>(r)]);
    s.max_out_degree = std::max(s.max_out_degree, out_deg[static_cast<size_t>(r)]);
  }
  const double n = g.nranks;
  s.leaf_imbalance = s.leaves ? static_cast<double>(max_leaves) / (static_cast<double>(s.leaves) / n) : 1.0;
  const Index max_sent = *std::max_element(sent.begin(), sent.end());
  s.message_imbalance = s.messages ? static_cast<double>(max_sent) / (static_cast<double>(s.messages) / n) : 1.0;
  // Bytes for each (unit, bs) used by an op on this SF; float64 bs=1 when no op uses it.
  std::vector<std::pair<std::string, int>> used;
  Index default_bytes = 8;
  for (const auto& op : t.trace().ops) {
    if (op.sf != def.name) continue;
    const std::pair<std::string, int> key{
        std::string(core::unit_name(core::op_wire_unit(op))) + (core::op_traits(op.op).has_unit ? "" : "(degree)"), core::op_wire_bs(op)};
    if (std::find(used.begin(), used.end(), key) != used.end()) continue;
    used.push_back(key);
    UnitBytes ub{key.first, key.second, 0, 0, {}};
    const Index vb = core::op_vertex_bytes(op);
    ub.remote_bytes = s.remote_edges * vb;
    ub.self_bytes = s.self_edges * vb;
    for (size_t k = 0; k < 3; ++k) ub.tier_bytes.v[k] = s.tier_edges.v[k] * vb;
    s.bytes.push_back(ub);
  }
  if (s.bytes.empty()) {
    UnitBytes ub{"float64", 1, s.remote_edges * default_bytes, s.self_edges * default_bytes, {}};
    for (size_t k = 0; k < 3; ++k) ub.tier_bytes.v[k] = s.tier_edges.v[k] * default_bytes;
    s.bytes.push_back(ub);
  }
  return s;
}

}  // namespace

core::RankLayout trace_placement(const trace::Trace& t) {
  return {t.nranks, std::max(1, std::min(t.nranks, t.machine ? t.machine->ranks_per_node : 1))};
}

TraceStats compute_stats(const trace::BuiltTrace& t, const InspectPlan* want) {
  InspectPlan deflt;
  deflt.place = trace_placement(t.trace());
  const InspectPlan& ip = want ? *want : deflt;
  const auto transport = plan::transport_of(ip.backend);
  std::map<const core::Graph*, std::vector<core::RankLists>> plans_of;
  TraceStats ts;
  ts.plan = ip;
  const trace::Trace& tr = t.trace();
  ts.name = tr.name;
  ts.nranks = tr.nranks;
  if (tr.machine)
    ts.machine = std::to_string(tr.machine->ranks_per_node) + " ranks/node, " + std::to_string(tr.machine->ranks_per_socket) +
                 " ranks/socket, " + std::to_string(tr.machine->gpus_per_node) + " GPUs/node";
  else
    ts.machine = "not given (every rank counted as its own node)";
  std::map<std::string, size_t> index;
  for (const auto& d : tr.sfs) {
    index[d.name] = ts.sfs.size();
    ts.sfs.push_back(sf_stats(t, d));
  }
  for (size_t i = 0; i < tr.ops.size(); ++i) {
    const auto& op = tr.ops[i];
    const SFStats& s = ts.sfs[index.at(op.sf)];
    const Index vb = core::op_vertex_bytes(op);
    OpSummary o;
    o.index = i;
    const core::Graph& g = t.graph_for(op);
    auto pl = plans_of.find(&g);
    if (pl == plans_of.end()) pl = plans_of.emplace(&g, core::build_rank_lists(g)).first;
    for (const auto& r : plan::op_rounds(pl->second, op, ip.place, transport, ip.params)) {
      const auto tot = plan::totals({r});
      o.rounds.push_back({r.label, tot.messages, tot.bytes, tot.shm_bytes});
      o.messages += tot.messages;
      o.remote_bytes += tot.bytes;
    }
    o.self_bytes = s.self_edges * vb;
    std::ostringstream line;
    line << "#" << i << " " << core::op_kind_name(op.op) << " on " << op.sf;
    const core::OpTraits& traits = core::op_traits(op.op);
    if (traits.has_unit) line << ", " << core::unit_name(op.unit) << " bs=" << op.bs;
    if (traits.takes_mpi_op) line << ", " << core::mpi_op_name(op.mpi_op);
    if (traits.on_multi) line << " (through the multi-SF)";
    line << ": " << o.messages << " messages";
    if (o.rounds.size() == 1) line << " (" << tier_text(s.tier_messages) << ")";
    line << ", " << core::format_bytes(o.remote_bytes) << " sent + " << core::format_bytes(o.self_bytes) << " self";
    if (o.rounds.size() > 1 || (want && ip.backend != core::kDefaultBackend)) {
      line << " [" << core::backend_name(ip.backend) << ":";
      for (const auto& r : o.rounds) {
        line << " " << r.label << " " << r.messages << " msgs " << core::format_bytes(r.bytes);
        if (r.shm_bytes > 0) line << " + " << core::format_bytes(r.shm_bytes) << " shared memory";
        line << ";";
      }
      line << "]";
    }
    if (op.repeat > 1) line << ", repeat " << op.repeat;
    if (op.overlap_us > 0) line << ", overlap " << op.overlap_us << " us";
    if (core::op_uses_device(op))
      line << ", memtype root=" << core::memtype_name(op.root_mem) << " leaf=" << core::memtype_name(op.leaf_mem);
    o.text = line.str();
    ts.ops.push_back(o);
  }
  return ts;
}

std::string render_table(const TraceStats& ts) {
  std::ostringstream o;
  char buf[512];
  o << "trace " << ts.name << ": " << ts.nranks << " ranks; machine: " << ts.machine << "\n\n";
  for (const SFStats& s : ts.sfs) {
    o << "SF " << s.name << " (" << s.form << ")\n";
    std::snprintf(buf, sizeof buf, "  %-26s %lld roots, %lld leaves, leaf space %lld (%lld holes)\n", "size", (long long)s.roots,
                  (long long)s.leaves, (long long)s.leafspace, (long long)(s.leafspace - s.leaves));
    o << buf;
    std::snprintf(buf, sizeof buf, "  %-26s min %lld / mean %.2f / max %lld (%lld roots of degree 0)\n", "root degree",
                  (long long)s.degree_min, s.degree_mean, (long long)s.degree_max, (long long)s.degree_zero);
    o << buf;
    const double tot = static_cast<double>(s.self_edges + s.remote_edges);
    std::snprintf(buf, sizeof buf, "  %-26s %lld remote, %lld self (self share %.1f%%)\n", "edges", (long long)s.remote_edges,
                  (long long)s.self_edges, tot > 0 ? 100.0 * static_cast<double>(s.self_edges) / tot : 0.0);
    o << buf;
    std::snprintf(buf, sizeof buf, "  %-26s %lld  (%s)\n", "messages (rank pairs)", (long long)s.messages,
                  tier_text(s.tier_messages).c_str());
    o << buf;
    std::snprintf(buf, sizeof buf, "  %-26s max out %d, max in %d; imbalance max/mean: leaves %.2f, messages %.2f\n", "per-rank peers",
                  s.max_out_degree, s.max_in_degree, s.leaf_imbalance, s.message_imbalance);
    o << buf;
    for (const UnitBytes& b : s.bytes) {
      std::snprintf(buf, sizeof buf, "  bytes/op %-17s %s remote (%s), %s self\n", (b.unit + " bs=" + std::to_string(b.bs)).c_str(),
                    core::format_bytes(b.remote_bytes).c_str(), tier_text(b.tier_bytes, true).c_str(),
                    core::format_bytes(b.self_bytes).c_str());
      o << buf;
    }
    o << "\n";
  }
  o << "ops (" << ts.ops.size() << ")\n";
  for (const OpSummary& op : ts.ops) o << "  " << op.text << "\n";
  return o.str();
}

std::string render_json(const TraceStats& ts) {
  using J = nlohmann::ordered_json;
  auto tiers = [](const TierSplit& t) {
    J j;
    for (const auto& [tier, name] : core::kTierNames) j[name] = t.v[static_cast<std::size_t>(tier)];
    return j;
  };
  J j;
  j["trace"] = ts.name;
  j["plan"] = {{"backend", core::backend_name(ts.plan.backend)}, {"ranks_per_node", ts.plan.place.ranks_per_node}, {"split_cap", ts.plan.params.split_cap}};
  j["nranks"] = ts.nranks;
  j["machine"] = ts.machine;
  J sfs = J::array();
  for (const SFStats& s : ts.sfs) {
    J b = J::array();
    for (const UnitBytes& u : s.bytes)
      b.push_back({{"unit", u.unit},
                   {"bs", u.bs},
                   {"remote_bytes", u.remote_bytes},
                   {"self_bytes", u.self_bytes},
                   {"remote_bytes_by_tier", tiers(u.tier_bytes)}});
    sfs.push_back(
        {{"name", s.name},
         {"form", s.form},
         {"roots", s.roots},
         {"leaves", s.leaves},
         {"leafspace", s.leafspace},
         {"root_degree", {{"min", s.degree_min}, {"mean", s.degree_mean}, {"max", s.degree_max}, {"zero", s.degree_zero}}},
         {"edges", {{"remote", s.remote_edges}, {"self", s.self_edges}}},
         {"self_share",
          (s.self_edges + s.remote_edges) ? static_cast<double>(s.self_edges) / static_cast<double>(s.self_edges + s.remote_edges) : 0.0},
         {"messages", s.messages},
         {"messages_by_tier", tiers(s.tier_messages)},
         {"edges_by_tier", tiers(s.tier_edges)},
         {"max_out_degree", s.max_out_degree},
         {"max_in_degree", s.max_in_degree},
         {"leaf_imbalance", s.leaf_imbalance},
         {"message_imbalance", s.message_imbalance},
         {"bytes_per_op", b}});
  }
  j["sfs"] = sfs;
  J ops = J::array();
  for (const OpSummary& o : ts.ops)
  {
    J rounds = J::array();
    for (const auto& r : o.rounds) rounds.push_back({{"label", r.label}, {"messages", r.messages}, {"bytes", r.bytes}, {"shm_bytes", r.shm_bytes}});
    ops.push_back({{"index", o.index},
                   {"messages", o.messages},
                   {"remote_bytes", o.remote_bytes},
                   {"self_bytes", o.self_bytes},
                   {"rounds", rounds},
                   {"summary", o.text}});
  }
  j["ops"] = ops;
  return j.dump(2) + "\n";
}

}  // namespace sfr::analysis
