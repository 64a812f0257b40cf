#include "capture/merge.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "core/error.hpp"
#include "io/json_strict.hpp"
#include "io/strict_reader.hpp"
#include "trace/build.hpp"

namespace sfr::capture {

namespace {

namespace fs = std::filesystem;
using io::Json;

// op_counts' name for the SFs first used after the op records were full (their graphs not read).
constexpr const char* kBeyondCapName = "(SFs first used beyond --max-ops)";

using Kind = io::StrictReader::Kind;

struct RankFile {
  RankFile(std::string p, Json d) : path(std::move(p)), doc(std::move(d)), r(path) {}
  std::string path;
  Json doc;
  io::StrictReader r;  // pointed errors naming this file
};

// Member `k` of `obj` (at `base`), present with kind `kind`.
const Json& field(const RankFile& f, const Json& obj, const std::string& base, const char* k, Kind kind) {
  f.r.require(obj, base, {{k, kind}});
  return obj[k];
}

// Where the ranks ran, from the rank files' hosts and sockets: the trace's machine where each
// host holds one block of consecutive ranks, all blocks of one size but the last (what an
// mpiexec by slot, a hostfile or Slurm's block distribution gives), and sockets the same within
// the nodes where every rank was bound within one. `text` says what was found, also when the
// placement cannot be written (ranks round-robin over hosts).
struct CapturedPlacement {
  Json hosts = Json::array();  // per rank; empty when the rank files predate hosts
  std::optional<trace::Machine> machine;
  std::string text;
};

// Consecutive runs of equal values: the common length of all but the last (which may be
// shorter), or 0 when a value comes back after another or the runs differ.
int block_size(const std::vector<std::string>& v) {
  std::vector<int> runs;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i > 0 && v[i] == v[i - 1]) {
      ++runs.back();
      continue;
    }
    if (!seen.insert(v[i]).second) return 0;
    runs.push_back(1);
  }
  for (std::size_t k = 0; k + 1 < runs.size(); ++k)
    if (runs[k] != runs[0]) return 0;
  return runs.empty() || runs.back() > runs[0] ? 0 : runs[0];
}

CapturedPlacement captured_placement(const std::vector<RankFile>& files) {
  CapturedPlacement p;
  std::vector<std::string> hosts, sockets;
  for (const RankFile& f : files) {
    if (!f.doc.contains("host") || !f.doc["host"].is_string()) {
      p.hosts = Json::array();
      p.text = "not recorded (rank files without hosts)";
      return p;
    }
    hosts.push_back(f.doc["host"].get<std::string>());
    p.hosts.push_back(hosts.back());
    const int socket = f.doc.contains("socket") && f.doc["socket"].is_number_integer() ? f.doc["socket"].get<int>() : -1;
    sockets.push_back(socket < 0 ? "" : hosts.back() + "/" + std::to_string(socket));
  }
  const std::size_t nhosts = std::set<std::string>(hosts.begin(), hosts.end()).size();
  const int rpn = block_size(hosts);
  if (rpn == 0) {
    p.text = std::to_string(nhosts) + " hosts, ranks not in consecutive blocks of one size per host: no placement written (simulate "
             "with --ranks-per-node)";
    return p;
  }
  const bool bound = std::none_of(sockets.begin(), sockets.end(), [](const std::string& s) { return s.empty(); });
  const int by_socket = bound ? block_size(sockets) : 0;
  const bool known = by_socket > 0 && rpn % by_socket == 0;
  const int rps = known ? by_socket : rpn;  // unknown: the socket tier is not told apart
  p.machine = trace::Machine{rpn, rps, 0};
  p.text = std::to_string(rpn) + " rank(s) per node on " + std::to_string(nhosts) + " host(s), " +
           (known ? std::to_string(rps) + " per socket" : std::string("sockets not known (ranks not each bound within one socket)"));
  return p;
}

std::vector<core::Index> ints(const RankFile& f, const Json& a, const std::string& ptr) {
  std::vector<core::Index> v;
  v.reserve(a.size());
  for (std::size_t k = 0; k < a.size(); ++k) {
    if (!a[k].is_number_integer()) f.r.fail(io::pointer_join(ptr, k), "not an integer");
    v.push_back(a[k].get<core::Index>());
  }
  return v;
}

core::RankGraph rank_graph(const RankFile& f, const Json& s, const std::string& ptr) {
  core::RankGraph g;
  g.nroots = field(f, s, ptr, "nroots", Kind::integer).get<core::Index>();
  const auto rr = ints(f, field(f, s, ptr, "remote_rank", Kind::array), io::pointer_join(ptr, "remote_rank"));
  g.remote_index = ints(f, field(f, s, ptr, "remote_index", Kind::array), io::pointer_join(ptr, "remote_index"));
  if (rr.size() != g.remote_index.size()) f.r.fail(ptr, "remote_rank and remote_index differ in length");
  for (auto r : rr) g.remote_rank.push_back(static_cast<int>(r));
  if (s.contains("ilocal") && !s["ilocal"].is_null()) {
    g.has_ilocal = true;
    g.ilocal = ints(f, s["ilocal"], io::pointer_join(ptr, "ilocal"));
    if (g.ilocal.size() != rr.size()) f.r.fail(ptr, "ilocal and remote_rank differ in length");
  }
  return g;
}

std::string str_or(const Json& o, const char* k) { return o.contains(k) && o[k].is_string() ? o[k].get<std::string>() : ""; }

trace::OpSpec op_spec(const RankFile& f, const Json& o, const std::string& ptr, const std::vector<std::string>& names) {
  trace::OpSpec op;
  const std::string kind = field(f, o, ptr, "op", Kind::string).get<std::string>();
  if (!core::parse_op_kind(kind, op.op)) f.r.fail(io::pointer_join(ptr, "op"), "unknown op " + io::json_quote(kind));
  const auto sf = field(f, o, ptr, "sf", Kind::integer).get<std::int64_t>();
  if (sf < 0 || static_cast<std::size_t>(sf) >= names.size()) f.r.fail(io::pointer_join(ptr, "sf"), "no such SF");
  op.sf = names[static_cast<std::size_t>(sf)];
  if (o.contains("unit")) {
    const std::string u = o["unit"].get<std::string>();
    if (!core::parse_unit(u, op.unit)) f.r.fail(io::pointer_join(ptr, "unit"), "unknown unit " + io::json_quote(u));
  }
  if (o.contains("bs")) op.bs = o["bs"].get<int>();
  op.mpi_op = core::default_mpi_op(op.op);
  if (o.contains("mpi_op")) {
    const std::string m = o["mpi_op"].get<std::string>();
    if (!core::parse_mpi_op(m, op.mpi_op)) f.r.fail(io::pointer_join(ptr, "mpi_op"), "unknown mpi_op " + io::json_quote(m));
  }
  if (o.contains("memtype")) {
    core::parse_memtype(str_or(o["memtype"], "root"), op.root_mem);
    core::parse_memtype(str_or(o["memtype"], "leaf"), op.leaf_mem);
  }
  op.repeat = field(f, o, ptr, "repeat", Kind::integer).get<core::Index>();
  return op;
}

// Per-rank tables that are summed into meta ((op, reason) -> count, etc.).
void add_table(std::map<std::vector<std::string>, std::int64_t>& to, const Json& rows, const std::vector<const char*>& keys) {
  for (const auto& r : rows) {
    std::vector<std::string> k;
    for (const char* name : keys) k.push_back(r.value(name, std::string()));
    to[k] += r.value("count", std::int64_t{0});
  }
}

}  // namespace

bool no_rank_files(const std::string& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const auto n = e.path().filename().string();
    if (n.rfind("rank-", 0) == 0 && e.path().extension() == ".json") return false;
  }
  return true;
}

namespace {
// The rank files of `dir`: rank 0 says how many there must be; each must be there, name its own
// rank and rank 0's count, and none may carry a refusal.
std::vector<RankFile> load_rank_files(const std::string& dir) {
  std::vector<RankFile> files;
  auto load = [&](int r) -> std::optional<RankFile> {
    const std::string p = (fs::path(dir) / ("rank-" + std::to_string(r) + ".json")).string();
    std::error_code ec;
    if (!fs::exists(p, ec)) return std::nullopt;
    RankFile f{p, io::parse_json_file(p)};
    io::check_format(f.doc, p, "sf-capture-rank", true);
    return f;
  };
  auto first = load(0);
  if (!first) {
    if (no_rank_files(dir)) throw InputError("", "no rank files");
    throw InputError("", "rank 0 wrote no capture file (it did not reach PetscFinalize)");
  }
  files.push_back(std::move(*first));
  const int nranks = static_cast<int>(field(files[0], files[0].doc, "", "size", Kind::integer).get<int>());
  if (nranks < 1) files[0].r.fail("/size", "must be at least 1");
  if (const auto refused = str_or(files[0].doc, "refused"); !refused.empty()) throw InputError("", refused);
  std::vector<int> missing;
  for (int r = 1; r < nranks; ++r) {
    auto f = load(r);
    if (!f) {
      missing.push_back(r);
      continue;
    }
    if (const auto refused = str_or(f->doc, "refused"); !refused.empty()) throw InputError("", refused);
    files.push_back(std::move(*f));
  }
  if (!missing.empty()) {
    std::string list;
    for (int r : missing) list += (list.empty() ? "" : ", ") + std::to_string(r);
    throw InputError("", "rank(s) " + list + " of " + std::to_string(nranks) +
                             " wrote no capture file (they did not reach PetscFinalize): the capture is incomplete");
  }
  for (int r = 0; r < nranks; ++r) {
    const RankFile& f = files[static_cast<std::size_t>(r)];
    if (field(f, f.doc, "", "rank", Kind::integer).get<int>() != r || field(f, f.doc, "", "size", Kind::integer).get<int>() != nranks)
      f.r.fail("/rank", "says another rank or rank count than its name and rank 0's file");
  }
  return files;
}

// The ranks must agree on the SFs and the op stream, and the stream must hold an op.
void check_ranks_agree(const std::vector<RankFile>& files) {
  const RankFile& f0 = files[0];
  const Json& sfs0 = field(f0, f0.doc, "", "sfs", Kind::array);
  const Json& ops0 = field(f0, f0.doc, "", "ops", Kind::array);
  for (const RankFile& f : files) {
    const Json& sfs = field(f, f.doc, "", "sfs", Kind::array);
    const Json& ops = field(f, f.doc, "", "ops", Kind::array);
    if (sfs.size() != sfs0.size())
      f.r.fail("/sfs", "recorded " + std::to_string(sfs.size()) + " SFs where rank 0 recorded " + std::to_string(sfs0.size()) +
                           " (the ranks did not run the same SF operations in the same order)");
    for (std::size_t k = 0; k < std::min(ops.size(), ops0.size()); ++k)
      if (ops[k] != ops0[k])
        f.r.fail(io::pointer_join("/ops", k),
                 "differs from rank 0's op " + std::to_string(k) + " (" + ops0[k].dump() + " there, " + ops[k].dump() + " here)");
    if (ops.size() != ops0.size())
      f.r.fail("/ops", "recorded " + std::to_string(ops.size()) + " ops where rank 0 recorded " + std::to_string(ops0.size()));
    if (f.doc.value("op_counts", Json::array()) != f0.doc.value("op_counts", Json::array()))
      f.r.fail("/op_counts", "differ from rank 0's: the ranks did not run the same SF operations");
  }
  if (!ops0.empty()) return;
  std::string why;
  std::map<std::vector<std::string>, std::int64_t> skipped;
  for (const RankFile& f : files) add_table(skipped, f.doc.value("not_recorded", Json::array()), {"op", "reason"});
  for (const auto& [k, n] : skipped) why += (why.empty() ? "" : "; ") + k[0] + " x" + std::to_string(n) + ": " + k[1];
  throw InputError("", "no PetscSF carried an operation that could be recorded" + (why.empty() ? std::string() : " (not recorded: " + why + ")"));
}

// The form PETSc built SF i in (a pattern, or derived from earlier SFs), where the ranks agree on
// it; nullopt otherwise.
std::optional<trace::SFDef> petsc_form(const std::vector<RankFile>& files, std::size_t i, const std::vector<std::string>& names,
                                       const core::Graph& g, const std::string& ptr) {
  const Json& s0 = files[0].doc["sfs"][i];
  auto agree = [&](const char* k) {
    for (const RankFile& f : files)
      if (f.doc["sfs"][i].value(k, Json()) != s0.value(k, Json())) return false;
    return true;
  };
  if (s0.contains("pattern") && agree("pattern")) {
    trace::PatternSF p;
    core::parse_pattern(s0["pattern"].get<std::string>(), p.pattern);
    for (const auto& rg : g.ranks) p.nroots.push_back(rg.nroots);
    return trace::SFDef{names[i], p};
  }
  if (s0.contains("derive") && agree("derive") && agree("of")) {
    trace::DerivedSF d;
    trace::parse_derive_kind(s0["derive"].get<std::string>(), d.kind);
    for (const auto& p : s0["of"]) d.of.push_back(names.at(p.get<std::size_t>()));
    if (d.kind == trace::DeriveKind::embed_roots || d.kind == trace::DeriveKind::embed_leaves)
      for (const RankFile& f : files) d.selected.push_back(ints(f, f.doc["sfs"][i].value("selected", Json::array()), ptr));
    return trace::SFDef{names[i], d};
  }
  return std::nullopt;
}

// The SFs: each in the form PETSc built it in where that form gives exactly the graph PETSc
// held, else explicit; and per SF what the trace's meta says of it.
Json merged_sfs(const std::vector<RankFile>& files, const std::vector<std::string>& names, trace::Trace& t) {
  const int nranks = t.nranks;
  const RankFile& f0 = files[0];
  std::map<std::string, std::shared_ptr<const core::Graph>> built;
  const trace::GraphLookup lookup = [&](std::string_view n) -> const core::Graph* {
    auto it = built.find(std::string(n));
    return it == built.end() ? nullptr : it->second.get();
  };
  Json sf_meta = Json::array();
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string ptr = io::pointer_join("/sfs", i);
    auto g = std::make_shared<core::Graph>();
    g->nranks = nranks;
    for (const RankFile& f : files) g->ranks.push_back(rank_graph(f, f.doc["sfs"][i], ptr));
    for (const auto& rg : g->ranks)
      for (int rr : rg.remote_rank)
        if (rr < 0 || rr >= nranks) f0.r.fail(ptr, "a leaf names rank " + std::to_string(rr) + " outside the " + std::to_string(nranks) + " ranks");
    const Json& s0 = f0.doc["sfs"][i];
    Json m = {{"name", names[i]}, {"petsc_type", str_or(s0, "petsc_type")}, {"first_via", str_or(s0, "first_via")}};
    if (s0.contains("built_by") && s0["built_by"].is_object()) m["built_by"] = s0["built_by"];
    std::optional<trace::SFDef> form = petsc_form(files, i, names, *g, ptr);
    std::string note;
    if (form) {
      try {
        if (!(*trace::build_sf(*form, nranks, lookup) == *g)) {
          note = "PETSc built it as " + std::string(std::holds_alternative<trace::PatternSF>(form->def) ? "a pattern" : "a derived SF") +
                 ", but that form's graph differs from the one PETSc held: written explicitly";
          form.reset();
        }
      } catch (const std::exception& e) {
        note = std::string("PETSc's form could not be rebuilt (") + e.what() + "): written explicitly";
        form.reset();
      }
    }
    if (!form) form = trace::SFDef{names[i], trace::ExplicitSF{g}};
    m["form"] = std::holds_alternative<trace::ExplicitSF>(form->def) ? "explicit"
                : std::holds_alternative<trace::PatternSF>(form->def) ? "pattern"
                                                                       : "derived";
    if (!note.empty()) m["note"] = note;
    sf_meta.push_back(std::move(m));
    built[names[i]] = g;
    t.sfs.push_back(std::move(*form));
  }
  return sf_meta;
}

// Rank 0's op counts per SF and op (the calls beyond the recorder's cap under kBeyondCapName),
// and their total.
std::pair<Json, std::int64_t> op_counts(const RankFile& f0, const std::vector<std::string>& names) {
  Json counts = Json::array();
  std::int64_t total = 0;
  for (const auto& c : f0.doc.value("op_counts", Json::array())) {
    const auto sf = c.value("sf", std::int64_t{0});
    if (sf >= static_cast<std::int64_t>(names.size())) f0.r.fail("/op_counts", "names an SF it did not record");
    const std::string name = sf < 0 ? std::string(kBeyondCapName) : names[static_cast<std::size_t>(sf)];
    counts.push_back({{"sf", name}, {"op", c.value("op", std::string())}, {"count", c.value("count", std::int64_t{0})},
                      {"vecscatter", c.value("vecscatter", std::int64_t{0})}});
    total += c.value("count", std::int64_t{0});
  }
  return {counts, total};
}

// What every rank did not record and called within PETSc, summed over the ranks, and each rank's
// PETSc events.
void add_rank_tables(const std::vector<RankFile>& files, Json& meta) {
  std::map<std::vector<std::string>, std::int64_t> skipped, internal;
  Json events = Json::array();
  for (const RankFile& f : files) {
    add_table(skipped, f.doc.value("not_recorded", Json::array()), {"op", "reason"});
    add_table(internal, f.doc.value("internal", Json::array()), {"op", "within"});
    events.push_back(f.doc.value("events", Json::object()));
  }
  Json sk = Json::array(), in = Json::array();
  for (const auto& [k, n] : skipped) sk.push_back({{"op", k[0]}, {"reason", k[1]}, {"count_all_ranks", n}});
  for (const auto& [k, n] : internal) in.push_back({{"op", k[0]}, {"within", k[1]}, {"count_all_ranks", n}});
  meta["not_recorded"] = std::move(sk);
  meta["internal_calls"] = std::move(in);
  meta["petsc_events_per_rank"] = std::move(events);
}
}  // namespace

trace::Trace merge_rank_files(const std::string& dir, const MergeInfo& info) {
  const std::vector<RankFile> files = load_rank_files(dir);
  check_ranks_agree(files);
  const RankFile& f0 = files[0];
  trace::Trace t;
  t.name = info.name;
  t.nranks = static_cast<int>(files.size());
  const CapturedPlacement placed = captured_placement(files);
  t.machine = placed.machine;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < f0.doc["sfs"].size(); ++i) names.push_back("sf" + std::to_string(i));
  Json sf_meta = merged_sfs(files, names, t);
  const Json& ops0 = f0.doc["ops"];
  for (std::size_t k = 0; k < ops0.size(); ++k) t.ops.push_back(op_spec(f0, ops0[k], io::pointer_join("/ops", k), names));
  // Meta: what ran, and the exact counts.
  Json meta = Json::object();
  meta["generator"] = "capture";
  meta["command"] = info.command;
  meta["petsc_version"] = str_or(f0.doc, "petsc");
  meta["ranks"] = t.nranks;
  meta["date"] = info.date;
  if (!placed.hosts.empty()) meta["hosts"] = placed.hosts;
  meta["placement"] = placed.text;
  auto [counts, total] = op_counts(f0, names);
  meta["op_counts"] = std::move(counts);
  std::int64_t kept = 0;
  for (const auto& op : t.ops) kept += op.repeat;
  meta["ops_recorded"] = total;
  meta["ops_in_trace"] = kept;
  meta["ops_dropped"] = f0.doc.value("dropped_ops", std::int64_t{0});
  meta["sfs"] = std::move(sf_meta);
  add_rank_tables(files, meta);
  t.meta_json = meta.dump();
  return t;
}

}  // namespace sfr::capture
