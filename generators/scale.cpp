#include "generators/scale.hpp"

#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "generators/estimate.hpp"

namespace sfr::gen {

namespace {

using nlohmann::json;

std::string grid_text(const std::array<int, 3>& p, int dim) {
  std::string s = std::to_string(p[0]) + " x " + std::to_string(p[1]);
  return dim == 3 ? s + " x " + std::to_string(p[2]) : s;
}

// Why a capture's built_by record cannot be regenerated ("" if it can): read into `out`.
std::string read_dmda(const json& built_by, RegeneratedSF& out) {
  if (!built_by.is_object()) return "no record of how PETSc built it (not found as a DMDA's ghost update or MatMult)";
  out.role = built_by.value("role", "");
  if (out.role != "global_to_local" && out.role != "matmult") return "built as '" + out.role + "', which is not regenerated";
  const json& d = built_by.value("dmda", json::object());
  try {
    DmdaShape& s = out.shape;
    s.dim = d.at("dim").get<int>();
    if (s.dim != 2 && s.dim != 3) return "a " + std::to_string(s.dim) + "-D DMDA (2-D and 3-D are regenerated)";
    for (std::size_t i = 0; i < 3; ++i) {
      s.sizes[i] = d.at("sizes").at(i).get<Index>();
      out.captured[i] = d.at("processes").at(i).get<int>();
      const std::string b = d.at("boundary").at(i).get<std::string>();
      if (b != "none" && b != "periodic") return "boundary type '" + b + "' in dimension " + "xyz"[i] + " (none and periodic are regenerated)";
      s.periodic[i] = b == "periodic";
    }
    s.dof = d.at("dof").get<int>();
    s.width = d.at("stencil_width").get<int>();
    const std::string st = d.at("stencil").get<std::string>();
    if (st != "star" && st != "box") return "stencil type '" + st + "'";
    s.stencil = st == "star" ? StencilKind::star : StencilKind::box;
  } catch (const json::exception&) {
    return "its DMDA record (built_by.dmda) lacks dim, sizes, processes, dof, stencil, stencil_width or boundary";
  }
  return "";
}

// Why the regeneration at the captured grid is not PETSc's graph ("" if it is).
std::string check_reproduces(const RegeneratedSF& sf, int nranks, const core::Graph& captured) {
  std::array<int, 3> petsc{};
  try {
    petsc = dmda_processes(sf.shape, nranks, "");
  } catch (const InputError& e) {
    return std::string("PETSc's own split of the captured ranks fails: ") + e.what();
  }
  if (petsc != sf.captured)
    return "the application chose its process grid (" + grid_text(sf.captured, sf.shape.dim) + "; PETSc's own choice at " +
           std::to_string(nranks) + " ranks is " + grid_text(petsc, sf.shape.dim) + "), so the grid at other counts is unknown";
  const core::Graph mine = regenerate(sf, sf.captured);
  for (int r = 0; r < captured.nranks; ++r)
    if (!(mine[r] == captured[r]))
      return "regenerated at the captured " + std::to_string(nranks) + " ranks it differs from the captured graph on rank " +
             std::to_string(r) + " (" + std::to_string(mine[r].nleaves()) + " leaves against " + std::to_string(captured[r].nleaves()) +
             "): PETSc built it another way (a matrix type, block fill or preallocation sf-replay does not model)";
  return "";
}

long long calls_on(const trace::Trace& t, const std::string& sf) {
  long long n = 0;
  for (const auto& op : t.ops)
    if (op.sf == sf) n += op.repeat;
  return n;
}

core::SizeEstimate scaled_size(const std::vector<RegeneratedSF>& sfs, int ranks) {
  core::SizeEstimate total{"--ranks", 0, ""};
  long double leaves = 0;
  for (const auto& sf : sfs) {
    auto e = estimate(dmda_stencil(sf.shape, sf.scaled));
    const long double factor = sf.role == "matmult" ? sf.shape.dof : 1;  // ghost points x dof at most
    total.bytes += e.bytes * factor;
    leaves += (e.bytes / 64) * factor;
  }
  total.what = "the scaled graphs (about " + std::to_string(static_cast<long long>(leaves)) + " leaves on " + std::to_string(ranks) + " ranks)";
  return total;
}

}  // namespace

core::Graph regenerate(const RegeneratedSF& sf, const std::array<int, 3>& procs) {
  const StencilOptions o = dmda_stencil(sf.shape, procs);
  return sf.role == "matmult" ? dmda_matmult_graph(o) : stencil_graph(o);
}

ScalePlan plan_scale(const trace::BuiltTrace& bt, const std::string& path, const ScaleOptions& o) {
  const trace::Trace& t = bt.trace();
  const json meta = json::parse(t.meta_json.empty() ? "{}" : t.meta_json, nullptr, false);
  std::map<std::string, json> built_by;
  if (meta.is_object() && meta.contains("sfs") && meta["sfs"].is_array())
    for (const auto& s : meta["sfs"])
      if (s.is_object() && s.contains("name") && s.contains("built_by")) built_by[s["name"].get<std::string>()] = s["built_by"];
  if (built_by.empty())
    throw InputError(path, "no SF says how PETSc built it (meta.sfs[i].built_by): scale needs a trace `sf-replay capture` made of a DMDA program");
  if (o.ranks < 1) throw InputError("--ranks", "must be at least 1");
  ScalePlan plan;
  plan.from_ranks = t.nranks;
  std::set<std::string> kept;
  for (const auto& def : t.sfs) {
    std::string why;
    if (std::holds_alternative<trace::ExplicitSF>(def.def)) {
      RegeneratedSF sf;
      sf.name = def.name;
      auto it = built_by.find(def.name);
      why = read_dmda(it == built_by.end() ? json() : it->second, sf);
      if (why.empty()) why = check_reproduces(sf, t.nranks, bt.graph(def.name));
      if (why.empty()) plan.regenerated.push_back(sf);
    } else if (const auto* d = std::get_if<trace::DerivedSF>(&def.def)) {
      if (d->kind == trace::DeriveKind::embed_roots || d->kind == trace::DeriveKind::embed_leaves)
        why = "an embedded SF: the points it selects are numbered on the captured ranks";
      for (const auto& parent : d->of)
        if (why.empty() && !kept.count(parent)) why = "derived from " + parent + ", which does not scale";
      if (why.empty()) plan.derived.push_back(def.name);
    } else {
      why = "a layout or pattern SF: its sizes at other rank counts are not recorded";
    }
    if (why.empty()) kept.insert(def.name);
    else plan.left_out.push_back({def.name, why, calls_on(t, def.name)});
  }
  std::string refused;
  long long calls = 0;
  for (const auto& l : plan.left_out)
    if (l.op_calls > 0) {
      refused += (refused.empty() ? "" : "; ") + l.name + " (" + l.reason + ")";
      calls += l.op_calls;
    }
  if (!o.leave_out && !refused.empty())
    throw InputError(path, "cannot scale " + refused + "; --leave-out-unscalable leaves them and their " + std::to_string(calls) +
                               " op call(s) out");
  if (o.leave_out && plan.left_out.empty()) throw InputError("--leave-out-unscalable", "every SF of " + path + " scales: nothing to leave out");
  // Calls the capture only counted (their SF first used beyond --max-ops, never read): nothing to scale.
  for (const auto& c : meta.value("op_counts", json::array()))
    if (c.is_object() && !t.find_sf(c.value("sf", ""))) plan.calls_without_sf += c.value("count", 0LL);
  bool any_op = false;
  for (const auto& op : t.ops) any_op = any_op || kept.count(op.sf);
  if (!any_op) throw InputError(path, "no op of the trace runs on an SF that scales");
  for (auto& sf : plan.regenerated) sf.scaled = dmda_processes(sf.shape, o.ranks, "--ranks");
  plan.size = scaled_size(plan.regenerated, o.ranks);
  return plan;
}

trace::Trace scale_trace(const trace::BuiltTrace& bt, const ScalePlan& plan, const ScaleOptions& o) {
  const trace::Trace& t = bt.trace();
  trace::Trace out;
  // capture-ex5-p4 -> capture-ex5-p4096: the name states the rank count it is for.
  const std::string from = "-p" + std::to_string(t.nranks);
  const bool named_by_count = t.name.size() > from.size() && t.name.compare(t.name.size() - from.size(), from.size(), from) == 0;
  out.name = (named_by_count ? t.name.substr(0, t.name.size() - from.size()) : t.name) + "-p" + std::to_string(o.ranks);
  out.nranks = o.ranks;
  out.machine = o.machine;
  std::map<std::string, const RegeneratedSF*> regen;
  for (const auto& sf : plan.regenerated) regen[sf.name] = &sf;
  std::set<std::string> kept(plan.derived.begin(), plan.derived.end());
  for (const auto& def : t.sfs)
    if (auto it = regen.find(def.name); it != regen.end()) {
      out.sfs.push_back({def.name, trace::ExplicitSF{std::make_shared<const core::Graph>(regenerate(*it->second, it->second->scaled))}});
      kept.insert(def.name);
    } else if (kept.count(def.name)) {
      out.sfs.push_back(def);
    }
  long long in_trace = 0;
  for (const auto& op : t.ops)
    if (kept.count(op.sf)) out.ops.push_back(op), in_trace += op.repeat;

  json meta = json::parse(t.meta_json.empty() ? "{}" : t.meta_json);
  meta["ranks"] = o.ranks;
  meta.erase("hosts");
  meta.erase("petsc_events_per_rank");  // per captured rank
  meta["placement"] = o.machine ? std::to_string(o.machine->ranks_per_node) + " rank(s) per node, as scale was told"
                                : "none: scaled from a capture at " + std::to_string(plan.from_ranks) + " ranks; give --ranks-per-node";
  json sfs = json::array();
  for (auto s : meta.value("sfs", json::array()))
    if (s.is_object() && kept.count(s.value("name", ""))) {
      if (auto it = regen.find(s["name"].get<std::string>()); it != regen.end())
        s["built_by"]["dmda"]["processes"] = it->second->scaled;
      sfs.push_back(s);
    }
  meta["sfs"] = sfs;
  json counts = json::array();
  long long recorded = 0;
  for (const auto& c : meta.value("op_counts", json::array()))
    if (c.is_object() && kept.count(c.value("sf", ""))) counts.push_back(c), recorded += c.value("count", 0LL);
  meta["op_counts"] = counts;
  meta["ops_recorded"] = recorded;
  meta["ops_in_trace"] = in_trace;
  json regenerated = json::array(), left = json::array();
  for (const auto& sf : plan.regenerated)
    regenerated.push_back({{"sf", sf.name}, {"role", sf.role}, {"processes_captured", sf.captured}, {"processes", sf.scaled}});
  for (const auto& l : plan.left_out) left.push_back({{"sf", l.name}, {"reason", l.reason}, {"op_calls", l.op_calls}});
  meta["scaled"] = {{"from_ranks", plan.from_ranks},
                    {"ranks", o.ranks},
                    {"regenerated", regenerated},
                    {"derived", plan.derived},
                    {"left_out", left},
                    {"calls_without_sf", plan.calls_without_sf},
                    {"op_stream", "as captured: the same ops and counts at every rank count"}};
  out.meta_json = meta.dump();
  return out;
}

}  // namespace sfr::gen
