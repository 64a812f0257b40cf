#include "generators/scale.hpp"

#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "generators/estimate.hpp"

namespace sfr::gen {

namespace {

using nlohmann::json;

const char* const kNoRecord = "no record of how PETSc built it (not found as a DMDA's ghost update or MatMult)";

// The checks of a DMDA record's values: what a capture of PETSc writes, and nothing that would
// make the regeneration divide by zero or build a grid of another dimension.
std::string check_shape(const DmdaShape& s, const std::array<int, 3>& grid) {
  for (std::size_t d = 0; d < 3; ++d) {
    const bool used = static_cast<int>(d) < s.dim;
    if (s.sizes[d] < 1 || grid[d] < 1 || (!used && (s.sizes[d] != 1 || grid[d] != 1)))
      return "its DMDA record (built_by.dmda) has sizes or processes out of range in dimension " + std::string(1, "xyz"[d]);
  }
  if (s.dof < 1 || s.width < 0) return "its DMDA record (built_by.dmda) has a dof below 1 or a negative stencil width";
  return "";
}

// Why a capture's built_by record cannot be regenerated ("" if it can), read into `out`.
std::string read_dmda(const json& built_by, RegeneratedSF& out) {
  if (!built_by.is_object()) return kNoRecord;
  try {
    const std::string role = built_by.at("role").get<std::string>();
    if (role != "global_to_local" && role != "matmult") return "built as '" + role + "', which is not regenerated";
    out.role = role == "matmult" ? DmdaRole::matmult : DmdaRole::global_to_local;
    const json& d = built_by.at("dmda");
    DmdaShape& s = out.shape;
    s.dim = d.at("dim").get<int>();
    if (s.dim != 2 && s.dim != 3) return "a " + std::to_string(s.dim) + "-D DMDA (2-D and 3-D are regenerated)";
    for (std::size_t i = 0; i < 3; ++i) {
      s.sizes[i] = d.at("sizes").at(i).get<Index>();
      out.grid_captured[i] = d.at("processes").at(i).get<int>();
      const std::string b = d.at("boundary").at(i).get<std::string>();
      if (b != "none" && b != "periodic") return "boundary type '" + b + "' in dimension " + "xyz"[i] + " (none and periodic are regenerated)";
      s.periodic[i] = b == "periodic";
    }
    s.dof = d.at("dof").get<int>();
    s.width = d.at("stencil_width").get<int>();
    const std::string st = d.at("stencil").get<std::string>();
    if (st != "star" && st != "box") return "stencil type '" + st + "'";
    s.stencil = st == "star" ? StencilKind::star : StencilKind::box;
    // DMRefine and DMCoarsen give the new DMDA the process grid and ownership ranges derived from
    // the one it came from, not PETSc's own split of its sizes.
    const int refine = d.value("refine_level", 0), coarsen = d.value("coarsen_level", 0);
    if (refine != 0 || coarsen != 0)
      return "a DMDA made by DMRefine or DMCoarsen (refine level " + std::to_string(refine) + ", coarsen level " + std::to_string(coarsen) +
             "): PETSc derives its ownership from the DMDA it came from";
  } catch (const json::exception&) {
    return "its record (built_by) lacks role, dim, sizes, processes, dof, stencil, stencil_width or boundary, or has one of another type";
  }
  return check_shape(out.shape, out.grid_captured);
}

// Why the regeneration at the captured grid is not PETSc's graph ("" if it is).
std::string check_reproduces(const RegeneratedSF& sf, int nranks, const core::Graph& held) {
  std::array<int, 3> petsc{};
  core::Graph mine;
  try {
    petsc = dmda_processes(sf.shape, nranks, "");
    if (petsc == sf.grid_captured) mine = regenerate(sf, sf.grid_captured);
  } catch (const InputError& e) {
    return std::string("PETSc's own split of the captured ranks fails: ") + e.what();
  }
  if (petsc != sf.grid_captured)
    return "the application chose its process grid (" + grid_text(sf.grid_captured, sf.shape.dim) + "; PETSc's own choice at " +
           std::to_string(nranks) + " ranks is " + grid_text(petsc, sf.shape.dim) + "), so the grid at other counts is unknown";
  for (int r = 0; r < held.nranks; ++r)
    if (!(mine[r] == held[r]))
      return "regenerated at the captured " + std::to_string(nranks) + " ranks it differs from the captured graph on rank " +
             std::to_string(r) + " (" + std::to_string(mine[r].nleaves()) + " leaves against " + std::to_string(held[r].nleaves()) +
             "): PETSc built it another way (a matrix type, block fill or preallocation sf-replay does not model)";
  return "";
}

long long calls_on(const trace::Trace& t, const std::string& sf) {
  long long n = 0;
  for (const auto& op : t.ops)
    if (op.sf == sf) n += op.repeat;
  return n;
}

// Leaves of a regenerated SF from its shape alone: a ghost update holds every rank's ghosted box
// (at most prod_d N_d + 2 w P_d points), a MatMult the ghost shell of it, dof values per point.
long double leaves_of(const RegeneratedSF& sf) {
  long double box = 1, owned = 1;
  for (std::size_t d = 0; d < static_cast<std::size_t>(sf.shape.dim); ++d) {
    box *= static_cast<long double>(sf.shape.sizes[d]) + 2.0L * sf.shape.width * sf.grid_scaled[d];
    owned *= static_cast<long double>(sf.shape.sizes[d]);
  }
  return sf.role == DmdaRole::matmult ? (box - owned) * sf.shape.dof : box;
}

// meta.sfs[i].built_by by SF name (entries without a string name are not an SF's).
std::map<std::string, json> built_by_records(const json& meta) {
  std::map<std::string, json> out;
  if (meta.is_object() && meta.contains("sfs") && meta["sfs"].is_array())
    for (const auto& s : meta["sfs"])
      if (s.is_object() && s.contains("name") && s["name"].is_string() && s.contains("built_by")) out[s["name"].get<std::string>()] = s["built_by"];
  return out;
}

// A count of meta.op_counts (0 where absent or not a number).
long long count_of(const json& c) { return c.contains("count") && c["count"].is_number_integer() ? c["count"].get<long long>() : 0; }
std::string sf_of(const json& c) { return c.contains("sf") && c["sf"].is_string() ? c["sf"].get<std::string>() : ""; }

// Why `def` cannot scale ("" if it can: then it is in plan.regenerated or plan.derived).
std::string decide(const trace::BuiltTrace& bt, const trace::SFDef& def, const std::map<std::string, json>& built_by,
                   const std::set<std::string>& kept, ScalePlan& plan) {
  if (std::holds_alternative<trace::ExplicitSF>(def.def)) {
    RegeneratedSF sf;
    sf.name = def.name;
    const auto it = built_by.find(def.name);
    std::string why = read_dmda(it == built_by.end() ? json() : it->second, sf);
    if (why.empty()) why = check_reproduces(sf, bt.trace().nranks, bt.graph(def.name));
    if (why.empty()) plan.regenerated.push_back(sf);
    return why;
  }
  if (const auto* d = std::get_if<trace::DerivedSF>(&def.def)) {
    if (d->kind == trace::DeriveKind::embed_roots || d->kind == trace::DeriveKind::embed_leaves)
      return "an embedded SF: the points it selects are numbered on the captured ranks";
    for (const auto& parent : d->of)
      if (!kept.count(parent)) return "derived from " + parent + ", which does not scale";
    plan.derived.push_back(def.name);
    return "";
  }
  return "a layout or pattern SF: its sizes at other rank counts are not recorded";
}

// The refusal of SFs the ops need that cannot scale (without --leave-out-unscalable), or of the
// option where nothing needs leaving out.
void check_left_out(const ScalePlan& plan, const std::string& path, bool leave_out) {
  std::string refused;
  long long calls = 0;
  for (const auto& l : plan.left_out)
    if (l.op_calls > 0) {
      refused += (refused.empty() ? "" : "; ") + l.name + " (" + l.reason + ")";
      calls += l.op_calls;
    }
  if (!leave_out && !refused.empty())
    throw InputError(path, "cannot scale " + refused + "; --leave-out-unscalable leaves them and their " + std::to_string(calls) +
                               " op call(s) out");
  if (leave_out && refused.empty())
    throw InputError("--leave-out-unscalable", "every SF the ops of " + path + " use scales: nothing to leave out");
}

}  // namespace

const char* role_name(DmdaRole r) { return r == DmdaRole::matmult ? "matmult" : "global_to_local"; }

core::Graph regenerate(const RegeneratedSF& sf, const std::array<int, 3>& procs) {
  const StencilOptions o = dmda_stencil(sf.shape, procs);
  return sf.role == DmdaRole::matmult ? dmda_matmult_graph(o) : stencil_graph(o);
}

ScalePlan plan_scale(const trace::BuiltTrace& bt, const std::string& path, const ScaleOptions& o) {
  const trace::Trace& t = bt.trace();
  const json meta = json::parse(t.meta_json.empty() ? "{}" : t.meta_json, nullptr, false);
  const auto built_by = built_by_records(meta);
  if (built_by.empty())
    throw InputError(path, "no SF says how PETSc built it (meta.sfs[i].built_by): scale needs a trace `sf-replay capture` made of a DMDA program");
  if (o.ranks < 1) throw InputError("--ranks", "must be at least 1");
  ScalePlan plan;
  plan.from_ranks = t.nranks;
  std::set<std::string> kept;
  for (const auto& def : t.sfs) {
    const std::string why = decide(bt, def, built_by, kept, plan);
    if (why.empty()) kept.insert(def.name);
    else plan.left_out.push_back({def.name, why, calls_on(t, def.name)});
  }
  check_left_out(plan, path, o.leave_out);
  // Calls the capture only counted (their SF first used beyond --max-ops, never read): nothing to scale.
  if (meta.is_object() && meta.contains("op_counts") && meta["op_counts"].is_array())
    for (const auto& c : meta["op_counts"])
      if (c.is_object() && !t.find_sf(sf_of(c))) plan.calls_without_sf += count_of(c);
  bool any_op = false;
  for (const auto& op : t.ops) any_op = any_op || kept.count(op.sf);
  if (!any_op) throw InputError(path, "no op of the trace runs on an SF that scales");
  long double leaves = 0;
  for (auto& sf : plan.regenerated) {
    sf.grid_scaled = dmda_processes(sf.shape, o.ranks, "--ranks");
    leaves += leaves_of(sf);
  }
  // As a generator's: the graphs, their growth and the text written and read back (64 B a leaf).
  plan.size = leaves_and_ranks("--ranks", leaves, static_cast<long double>(o.ranks) * static_cast<long double>(plan.regenerated.size()));
  return plan;
}

namespace {

// The captured meta at P ranks: what was kept, the DMDAs' new grids, and what scale did.
using RegeneratedByName = std::map<std::string, const RegeneratedSF*>;

json scaled_meta(const trace::Trace& t, const ScalePlan& plan, const ScaleOptions& o, const RegeneratedByName& regen,
                 const std::set<std::string>& kept, long long in_trace) {
  json meta = json::parse(t.meta_json.empty() ? "{}" : t.meta_json, nullptr, false);
  if (!meta.is_object()) meta = json::object();
  json captured_only = json::object();  // per captured rank, or summed over the captured ranks
  for (const char* key : {"hosts", "petsc_events_per_rank", "not_recorded", "internal_calls"})
    if (meta.contains(key)) captured_only[key] = meta[key], meta.erase(key);
  meta["ranks"] = o.ranks;
  meta["placement"] = o.machine ? std::to_string(o.machine->ranks_per_node) + " rank(s) per node, " +
                                      std::to_string(o.machine->ranks_per_socket) + " per socket, as scale was told"
                                : "none: scaled from a capture at " + std::to_string(plan.from_ranks) + " ranks; give --ranks-per-node";
  json sfs = json::array();
  for (auto s : meta.value("sfs", json::array()))
    if (s.is_object() && s.contains("name") && s["name"].is_string() && kept.count(s["name"].get<std::string>())) {
      if (auto it = regen.find(s["name"].get<std::string>()); it != regen.end()) s["built_by"]["dmda"]["processes"] = it->second->grid_scaled;
      sfs.push_back(s);
    }
  meta["sfs"] = sfs;
  json counts = json::array();
  long long recorded = 0;
  for (const auto& c : meta.value("op_counts", json::array()))
    if (c.is_object() && kept.count(sf_of(c))) counts.push_back(c), recorded += count_of(c);
  meta["op_counts"] = counts;
  meta["ops_recorded"] = recorded;
  meta["ops_in_trace"] = in_trace;
  json regenerated = json::array(), left = json::array();
  for (const auto& sf : plan.regenerated)
    regenerated.push_back({{"sf", sf.name}, {"role", role_name(sf.role)}, {"processes_captured", sf.grid_captured}, {"processes", sf.grid_scaled}});
  for (const auto& l : plan.left_out) left.push_back({{"sf", l.name}, {"reason", l.reason}, {"op_calls", l.op_calls}});
  meta["scaled"] = {{"from_ranks", plan.from_ranks},
                    {"ranks", o.ranks},
                    {"regenerated", regenerated},
                    {"derived", plan.derived},
                    {"left_out", left},
                    {"calls_without_sf", plan.calls_without_sf},
                    {"at_captured_ranks", captured_only},
                    {"op_stream", "as captured: the same ops and counts at every rank count"}};
  return meta;
}

}  // namespace

trace::Trace scale_trace(const trace::BuiltTrace& bt, const ScalePlan& plan, const ScaleOptions& o) {
  const trace::Trace& t = bt.trace();
  trace::Trace out;
  // capture-ex5-p4 -> capture-ex5-p4096: the name states the rank count it is for.
  const std::string from = "-p" + std::to_string(t.nranks);
  const bool named_by_count = t.name.size() > from.size() && t.name.compare(t.name.size() - from.size(), from.size(), from) == 0;
  out.name = (named_by_count ? t.name.substr(0, t.name.size() - from.size()) : t.name) + "-p" + std::to_string(o.ranks);
  out.nranks = o.ranks;
  out.machine = o.machine;
  RegeneratedByName regen;
  for (const auto& sf : plan.regenerated) regen[sf.name] = &sf;
  std::set<std::string> kept(plan.derived.begin(), plan.derived.end());
  for (const auto& def : t.sfs)
    if (auto it = regen.find(def.name); it != regen.end()) {
      out.sfs.push_back({def.name, trace::ExplicitSF{std::make_shared<const core::Graph>(regenerate(*it->second, it->second->grid_scaled))}});
      kept.insert(def.name);
    } else if (kept.count(def.name)) {
      out.sfs.push_back(def);
    }
  long long in_trace = 0;
  for (const auto& op : t.ops)
    if (kept.count(op.sf)) out.ops.push_back(op), in_trace += op.repeat;
  out.meta_json = scaled_meta(t, plan, o, regen, kept, in_trace).dump();
  return out;
}

}  // namespace sfr::gen
