#include "trace/reader.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>

#include "core/budget.hpp"
#include "core/error.hpp"
#include "io/json_strict.hpp"
#include "io/strict_reader.hpp"
#include "trace/build.hpp"

namespace sfr::trace {

using namespace sfr::io;  // the JSON layer
namespace {

// Largest root count / leaf position accepted: far beyond any buffer that fits in memory, small
// enough that sizes never overflow.
constexpr Index kMaxIndex = Index{1} << 40;
constexpr Index kMaxRanks = Index{1} << 24;

std::string join_names(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + json_quote(x);
  return s.empty() ? "(none)" : s;
}

class Reader : io::StrictReader {
public:
  Reader(std::string source, std::uint64_t limit) : io::StrictReader(std::move(source)), limit_(limit) {}

  BuiltTrace read(Json root) {
    if (!root.is_object()) fail("", "expected a JSON object (an sf-trace document), got " + describe(root));
    io::check_format(root, source(), "sf-trace", false);  // first: another kind of file is named as such
    check_keys(root, "", {"format", "version", "name", "nranks", "machine", "meta", "sfs", "ops"});
    if (auto* v = opt(root, "version")) {
      const Index ver = get_int(*v, "/version", 0, std::numeric_limits<Index>::max(), "a version number");
      if (ver != 1) fail("/version", "unsupported version " + std::to_string(ver) + " (this reader knows version 1)");
    }
    Trace t;
    t.name = get_string(need(root, "", "name"), "/name", "the trace name");
    if (t.name.empty()) fail("/name", "the trace name must not be empty");
    t.nranks = static_cast<int>(get_int(need(root, "", "nranks"), "/nranks", 1, kMaxRanks, "a rank count"));
    nranks_ = t.nranks;
    if (auto* m = opt(root, "machine")) t.machine = read_machine(*m);
    if (auto* m = opt(root, "meta")) {
      if (!m->is_object()) fail("/meta", "expected an object, got " + describe(*m));
      t.meta_json = m->dump();
    }
    need(root, "", "sfs");
    Json& sfs = root["sfs"];
    if (!sfs.is_object()) fail("/sfs", "expected an object mapping SF names to SFs, got " + describe(sfs));
    for (const auto& [name, _] : sfs.items()) all_names_.push_back(name);
    for (auto& [name, j] : sfs.items()) {
      const std::string ptr = pointer_join("/sfs", name);
      if (name.empty()) fail(ptr, "SF names must not be empty");
      SFDef def = read_sf(name, j, ptr);
      // A pattern SF is valid once its root counts are: it is built only when something uses it
      // (a derived SF here, an operation later), so validating a huge one costs nothing.
      if (std::holds_alternative<PatternSF>(def.def))
        pending_.emplace(name, def);
      else
        build(def);
      t.sfs.push_back(std::move(def));
    }
    const Json& ops = need(root, "", "ops");
    if (!is_array_like(ops)) fail("/ops", "expected an array of operations, got " + describe(ops));
    for (size_t i = 0; i < array_length(ops); ++i) {
      Json tmp;
      t.ops.push_back(read_op(element_at(ops, i, tmp), pointer_join("/ops", i)));
    }
    return BuiltTrace(std::move(t), std::move(graphs_), limit_, bytes_built_);
  }

private:
  // Builds `def` within the memory limit; errors name the source and the SF.
  void build(const SFDef& def) const {
    const std::string ptr = pointer_join("/sfs", def.name);
    try {
      graphs_[def.name] = build_sf_within(
          def, nranks_, [&](std::string_view n) { return input_graph(n); }, limit_, bytes_built_);
    } catch (const GraphError& e) {
      fail(ptr, e.what());
    } catch (const InputError& e) {
      throw InputError(source(), e.what());
    }
  }
  // A graph built so far, or a pending pattern SF built now; nullptr for a name not defined yet.
  const core::Graph* input_graph(std::string_view n) const {
    auto it = graphs_.find(n);
    if (it != graphs_.end()) return it->second.get();
    auto p = pending_.find(n);
    if (p == pending_.end()) return nullptr;
    const SFDef def = p->second;
    pending_.erase(p);
    build(def);
    return graphs_.at(def.name).get();
  }
  bool defined(std::string_view n) const { return graphs_.count(n) || pending_.count(n); }

  void expect_array(const Json& j, const std::string& ptr, const char* what, size_t n = SIZE_MAX) const {
    if (!is_array_like(j)) fail(ptr, std::string("expected ") + what + ", got " + describe(j));
    if (n != SIZE_MAX && array_length(j) != n)
      fail(ptr, "has " + std::to_string(array_length(j)) + " entries, expected " + std::to_string(n));
  }

  // Integer element k of an array (the pointer to it is built only for the error message).
  Index int_at(const Json& arr, size_t k, const std::string& arr_ptr, Index lo, Index hi, const char* what) const {
    if (!is_packed(arr)) return get_int(arr[k], pointer_join(arr_ptr, k), lo, hi, what);
    const Index v = packed_at(arr, k);
    if (v < lo || v > hi)
      fail(pointer_join(arr_ptr, k),
           std::string(what) + " " + std::to_string(v) + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return v;
  }

  Index get_int(const Json& j, const std::string& ptr, Index lo, Index hi, const char* what) const {
    Index v = 0;
    if (j.is_number_unsigned()) {
      const auto u = j.get<std::uint64_t>();
      if (u > static_cast<std::uint64_t>(std::numeric_limits<Index>::max()))
        fail(ptr, std::string(what) + " " + j.dump() + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
      v = static_cast<Index>(u);
    } else if (j.is_number_integer()) {
      v = j.get<Index>();
    } else if (j.is_number_float() && std::floor(j.get<double>()) == j.get<double>()) {
      // JSON has one number type: 2.0 or 1e3 are integers; 1e20 is out of range.
      const double d = j.get<double>();
      if (d < static_cast<double>(lo) || d > static_cast<double>(hi))
        fail(ptr, std::string(what) + " " + j.dump() + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
      v = static_cast<Index>(d);
    } else {
      fail(ptr, std::string("expected ") + what + " (an integer), got " + describe(j));
    }
    if (v < lo || v > hi)
      fail(ptr, std::string(what) + " " + std::to_string(v) + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return v;
  }

  std::string get_string(const Json& j, const std::string& ptr, const char* what) const {
    if (!j.is_string()) fail(ptr, std::string("expected ") + what + " (a string), got " + describe(j));
    return j.get<std::string>();
  }

  std::vector<Index> get_index_array(const Json& j, const std::string& ptr, Index lo, Index hi, const char* what,
                                     size_t n = SIZE_MAX) const {
    expect_array(j, ptr, "an array of integers", n);
    std::vector<Index> out;
    const size_t n_in = array_length(j);
    out.reserve(n_in);
    for (size_t k = 0; k < n_in; ++k) out.push_back(int_at(j, k, ptr, lo, hi, what));
    return out;
  }

  // ilocal: absent/null (contiguous) or a duplicate-free array of nleaves positions.
  void read_ilocal(const Json& rank_obj, const std::string& rptr, size_t nleaves, bool& has, std::vector<Index>& out) const {
    const Json* il = opt(rank_obj, "ilocal");
    has = il && !il->is_null();
    if (!has) return;
    const std::string ptr = pointer_join(rptr, "ilocal");
    if (!is_array_like(*il)) fail(ptr, "expected null or an array of leaf positions, got " + describe(*il));
    if (array_length(*il) != nleaves)
      fail(ptr, "has " + std::to_string(array_length(*il)) + " entries but the rank has " + std::to_string(nleaves) + " leaves");
    out = get_index_array(*il, ptr, 0, kMaxIndex, "leaf position");
    std::vector<size_t> order(out.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return out[a] < out[b]; });
    for (size_t k = 1; k < order.size(); ++k)
      if (out[order[k]] == out[order[k - 1]])
        fail(pointer_join(ptr, order[k]),
             "duplicate leaf position " + std::to_string(out[order[k]]) + " (also at " + pointer_join(ptr, order[k - 1]) + ")");
  }

  Machine read_machine(const Json& m) const {
    expect_object(m, "/machine", "an object");
    check_keys(m, "/machine", {"ranks_per_node", "ranks_per_socket", "gpus_per_node"});
    Machine mc;
    if (auto* v = opt(m, "ranks_per_node"))
      mc.ranks_per_node = static_cast<int>(get_int(*v, "/machine/ranks_per_node", 1, kMaxRanks, "a rank count"));
    mc.ranks_per_socket = mc.ranks_per_node;
    if (auto* v = opt(m, "ranks_per_socket"))
      mc.ranks_per_socket = static_cast<int>(get_int(*v, "/machine/ranks_per_socket", 1, kMaxRanks, "a rank count"));
    if (auto* v = opt(m, "gpus_per_node"))
      mc.gpus_per_node = static_cast<int>(get_int(*v, "/machine/gpus_per_node", 0, 1 << 16, "a GPU count"));
    if (mc.ranks_per_node % mc.ranks_per_socket != 0)
      fail("/machine/ranks_per_socket",
           "ranks_per_socket " + std::to_string(mc.ranks_per_socket) + " must divide ranks_per_node " + std::to_string(mc.ranks_per_node));
    return mc;
  }

  SFDef read_sf(const std::string& name, Json& j, const std::string& ptr) const {
    expect_object(j, ptr, "an SF object");
    SFDef def;
    def.name = name;
    if (j.contains("derive"))
      def.def = read_derived(name, j, ptr);
    else if (j.contains("pattern"))
      def.def = read_pattern(j, ptr);
    else if (j.contains("layout"))
      def.def = read_layout(j, ptr);
    else if (j.contains("ranks"))
      def.def = read_explicit(j, ptr);
    else
      fail(ptr, "cannot tell the SF form: expected one of the keys \"ranks\", \"layout\", \"pattern\", \"derive\"");
    return def;
  }

  // Frees each rank's JSON once it is in the graph, so that the document and the graph are never
  // both held whole.
  ExplicitSF read_explicit(Json& j, const std::string& ptr) const {
    check_keys(j, ptr, {"ranks"});
    const std::string rptr = pointer_join(ptr, "ranks");
    Json& ranks = j["ranks"];
    expect_array(ranks, rptr, "an array with one object per rank", static_cast<size_t>(nranks_));
    auto g = std::make_shared<core::Graph>(nranks_);
    for (int r = 0; r < nranks_; ++r) {
      const std::string p = pointer_join(rptr, static_cast<size_t>(r));
      Json tmp;
      const Json& R = element_at(ranks, static_cast<size_t>(r), tmp);
      expect_object(R, p, "a rank object");
      check_keys(R, p, {"nroots", "ilocal", "remote_rank", "remote_index"});
      (*g)[r].nroots = get_int(need(R, p, "nroots"), pointer_join(p, "nroots"), 0, kMaxIndex, "a root count");
    }
    for (int r = 0; r < nranks_; ++r) {
      const std::string p = pointer_join(rptr, static_cast<size_t>(r));
      Json& R = ranks[static_cast<size_t>(r)];
      core::RankGraph& rg = (*g)[r];
      const std::string prr = pointer_join(p, "remote_rank"), pri = pointer_join(p, "remote_index");
      const Json& rr = need(R, p, "remote_rank");
      const Json& ri = need(R, p, "remote_index");
      expect_array(rr, prr, "an array of ranks");
      expect_array(ri, pri, "an array of root indices");
      const size_t n = array_length(rr);
      if (array_length(ri) != n) fail(pri, "has " + std::to_string(array_length(ri)) + " entries but remote_rank has " + std::to_string(n));
      rg.remote_rank.reserve(n);
      rg.remote_index.reserve(n);
      for (size_t k = 0; k < n; ++k) {
        const int s = static_cast<int>(int_at(rr, k, prr, 0, nranks_ - 1, "rank"));
        const Index nr = (*g)[s].nroots;
        const Index i = int_at(ri, k, pri, 0, kMaxIndex, "root index");
        if (i >= nr)
          fail(pointer_join(pri, k),
               "root index " + std::to_string(i) + " is out of range: rank " + std::to_string(s) + " has " + std::to_string(nr) + " roots");
        rg.remote_rank.push_back(s);
        rg.remote_index.push_back(i);
      }
      read_ilocal(R, p, n, rg.has_ilocal, rg.ilocal);
      R = nullptr;
    }
    return ExplicitSF{std::move(g)};
  }

  LayoutSF read_layout(Json& j, const std::string& ptr) const {
    check_keys(j, ptr, {"layout", "ranks"});
    LayoutSF l;
    const std::string lp = pointer_join(ptr, "layout");
    l.layout = get_index_array(j["layout"], lp, 0, kMaxIndex, "layout offset", static_cast<size_t>(nranks_) + 1);
    if (l.layout[0] != 0) fail(pointer_join(lp, size_t{0}), "the layout must start at 0, got " + std::to_string(l.layout[0]));
    for (size_t p = 1; p < l.layout.size(); ++p)
      if (l.layout[p] < l.layout[p - 1])
        fail(pointer_join(lp, p),
             "the layout must be non-decreasing: " + std::to_string(l.layout[p]) + " < " + std::to_string(l.layout[p - 1]));
    const Index total = l.layout.back();
    const std::string rptr = pointer_join(ptr, "ranks");
    need(j, ptr, "ranks");
    Json& ranks = j["ranks"];
    expect_array(ranks, rptr, "an array with one object per rank", static_cast<size_t>(nranks_));
    for (int r = 0; r < nranks_; ++r) {
      const std::string p = pointer_join(rptr, static_cast<size_t>(r));
      Json tmp;
      const Json& R = element_at(ranks, static_cast<size_t>(r), tmp);
      expect_object(R, p, "a rank object");
      check_keys(R, p, {"ilocal", "global"});
      core::LayoutRank lr;
      const std::string gp = pointer_join(p, "global");
      const Json& gl = need(R, p, "global");
      expect_array(gl, gp, "an array of global root numbers");
      const size_t n = array_length(gl);
      lr.global.reserve(n);
      for (size_t k = 0; k < n; ++k) {
        const Index v = int_at(gl, k, gp, 0, kMaxIndex, "global root number");
        if (v >= total)
          fail(pointer_join(gp, k),
               "global root number " + std::to_string(v) + " is out of range: the layout has " + std::to_string(total) + " roots");
        lr.global.push_back(v);
      }
      read_ilocal(R, p, n, lr.has_ilocal, lr.ilocal);
      l.ranks.push_back(std::move(lr));
      ranks[static_cast<size_t>(r)] = nullptr;
    }
    return l;
  }

  PatternSF read_pattern(const Json& j, const std::string& ptr) const {
    check_keys(j, ptr, {"pattern", "nroots"});
    PatternSF p;
    const std::string pp = pointer_join(ptr, "pattern");
    const std::string s = get_string(j["pattern"], pp, "a pattern name");
    if (!core::parse_pattern(s, p.pattern)) fail(pp, "unknown pattern " + json_quote(s) + " (expected allgather, gather or alltoall)");
    const std::string np = pointer_join(ptr, "nroots");
    p.nroots = get_index_array(need(j, ptr, "nroots"), np, 0, kMaxIndex, "root count", static_cast<size_t>(nranks_));
    if (p.pattern == core::Pattern::alltoall)
      for (size_t r = 0; r < p.nroots.size(); ++r)
        if (p.nroots[r] != nranks_)
          fail(pointer_join(np, r),
               "alltoall needs nroots = nranks = " + std::to_string(nranks_) + " on every rank, got " + std::to_string(p.nroots[r]));
    return p;
  }

  DerivedSF read_derived(const std::string& name, const Json& j, const std::string& ptr) const {
    DerivedSF d;
    const std::string kp = pointer_join(ptr, "derive");
    const std::string kind = get_string(j["derive"], kp, "a derive kind");
    if (!parse_derive_kind(kind, d.kind))
      fail(kp, "unknown derive kind " + json_quote(kind) +
                   " (expected multi, compose, compose_inverse, embed_roots, embed_leaves, inverse or concatenate)");
    const bool embed = d.kind == DeriveKind::embed_roots || d.kind == DeriveKind::embed_leaves;
    if (embed)
      check_keys(j, ptr, {"derive", "of", "selected"});
    else if (d.kind == DeriveKind::concatenate)
      check_keys(j, ptr, {"derive", "of", "shared_roots"});
    else
      check_keys(j, ptr, {"derive", "of"});
    const std::string op = pointer_join(ptr, "of");
    const Json& of = need(j, ptr, "of");
    expect_array(of, op, "an array of SF names");
    size_t want = 1;
    if (d.kind == DeriveKind::compose || d.kind == DeriveKind::compose_inverse) want = 2;
    const size_t nof = array_length(of);
    if (d.kind == DeriveKind::concatenate) {
      if (nof == 0) fail(op, "concatenate needs at least one SF");
    } else if (nof != want) {
      fail(op, std::string(derive_kind_name(d.kind)) + " takes " + std::to_string(want) + " SF name" + (want > 1 ? "s" : "") + ", got " +
                   std::to_string(nof));
    }
    for (size_t k = 0; k < nof; ++k) {
      const std::string p = pointer_join(op, k);
      Json tmp;
      const std::string n = get_string(element_at(of, k, tmp), p, "an SF name");
      if (!defined(n)) {
        if (n == name) fail(p, "SF " + json_quote(n) + " refers to itself");
        if (std::find(all_names_.begin(), all_names_.end(), n) != all_names_.end())
          fail(p, "forward reference to SF " + json_quote(n) + ", which is defined later (an SF may use only SFs defined before it)");
        fail(p, "unknown SF " + json_quote(n) + " (defined so far: " + join_names(defined_before(name)) + ")");
      }
      d.of.push_back(n);
    }
    if (embed) {
      const std::string sp = pointer_join(ptr, "selected");
      const Json& sel = need(j, ptr, "selected");
      expect_array(sel, sp, "an array with one index array per rank", static_cast<size_t>(nranks_));
      const core::Graph& in = *input_graph(d.of[0]);
      for (int r = 0; r < nranks_; ++r) {
        const bool roots = d.kind == DeriveKind::embed_roots;
        const Index limit = roots ? in[r].nroots : in[r].nleaves();
        const std::string rp = pointer_join(sp, static_cast<size_t>(r));
        Json tmp;
        std::vector<Index> v =
            get_index_array(element_at(sel, static_cast<size_t>(r), tmp), rp, 0, kMaxIndex, roots ? "root index" : "leaf index");
        for (size_t k = 0; k < v.size(); ++k)
          if (v[k] >= limit)
            fail(pointer_join(rp, k), std::string("selected ") + (roots ? "root " : "leaf ") + std::to_string(v[k]) +
                                          " is out of range: rank " + std::to_string(r) + " of SF " + json_quote(d.of[0]) + " has " +
                                          std::to_string(limit) + (roots ? " roots" : " leaves"));
        d.selected.push_back(std::move(v));
      }
    }
    if (d.kind == DeriveKind::concatenate) {
      if (auto* s = opt(j, "shared_roots")) {
        if (!s->is_boolean()) fail(pointer_join(ptr, "shared_roots"), "expected true or false, got " + describe(*s));
        d.shared_roots = s->get<bool>();
      }
    }
    return d;
  }

  std::vector<std::string> defined_before(const std::string& name) const {
    std::vector<std::string> v;
    for (const auto& n : all_names_) {
      if (n == name) break;
      v.push_back(n);
    }
    return v;
  }

  static MemType read_memtype_value(const Reader& rd, const Json& j, const std::string& ptr) {
    const std::string s = rd.get_string(j, ptr, "a memory type");
    MemType m = MemType::host;
    if (parse_memtype(s, m)) return m;
    rd.fail(ptr, "unknown memory type " + json_quote(s) + " (expected host or device)");
  }

  OpSpec read_op(const Json& j, const std::string& ptr) const {
    expect_object(j, ptr, "an operation object");
    check_keys(j, ptr, {"op", "sf", "unit", "bs", "mpi_op", "memtype", "repeat", "overlap_us"});
    OpSpec o;
    const std::string opp = pointer_join(ptr, "op");
    const std::string ops = get_string(need(j, ptr, "op"), opp, "an operation name");
    if (!parse_op_kind(ops, o.op)) fail(opp, "unknown operation " + json_quote(ops) + " (expected " + core::op_kind_list() + ")");
    const std::string sfp = pointer_join(ptr, "sf");
    o.sf = get_string(need(j, ptr, "sf"), sfp, "an SF name");
    if (!defined(o.sf)) fail(sfp, "unknown SF " + json_quote(o.sf) + " (defined: " + join_names(all_names_) + ")");
    const std::string up = pointer_join(ptr, "unit");
    if (auto* u = opt(j, "unit")) {
      const std::string us = get_string(*u, up, "a unit name");
      if (!core::parse_unit(us, o.unit))
        fail(up, "unknown unit " + json_quote(us) + " (expected int32, int64, float32, float64, complex128 or int32_pair)");
    } else if (core::op_traits(o.op).has_unit) {
      fail(ptr, "missing required key \"unit\"");
    }
    if (auto* b = opt(j, "bs")) o.bs = static_cast<int>(get_int(*b, pointer_join(ptr, "bs"), 1, 1 << 20, "block size"));
    o.mpi_op = default_mpi_op(o.op);
    const std::string mp = pointer_join(ptr, "mpi_op");
    if (auto* m = opt(j, "mpi_op")) {
      if (!op_takes_mpi_op(o.op)) fail(mp, std::string(op_kind_name(o.op)) + " takes no mpi_op");
      const std::string ms = get_string(*m, mp, "an MPI operation name");
      if (!core::parse_mpi_op(ms, o.mpi_op))
        fail(mp, "unknown mpi_op " + json_quote(ms) +
                     " (expected replace, sum, prod, max, min, land, lor, lxor, band, bor, bxor, maxloc or minloc)");
      if (!core::op_legal(o.unit, o.mpi_op))
        fail(mp, "mpi_op " + json_quote(ms) + " is not defined on unit " + core::unit_name(o.unit) + " (MPI forbids this combination)");
    } else if (op_takes_mpi_op(o.op) && !core::op_legal(o.unit, o.mpi_op)) {
      fail(up, std::string(op_kind_name(o.op)) + " defaults to mpi_op \"" + core::mpi_op_name(o.mpi_op) +
                   "\", which is not defined on unit " + core::unit_name(o.unit) + "; name a legal mpi_op");
    }
    if (auto* m = opt(j, "memtype")) {
      const std::string p = pointer_join(ptr, "memtype");
      if (m->is_object()) {
        check_keys(*m, p, {"root", "leaf"});
        if (auto* r = opt(*m, "root")) o.root_mem = read_memtype_value(*this, *r, pointer_join(p, "root"));
        if (auto* l = opt(*m, "leaf")) o.leaf_mem = read_memtype_value(*this, *l, pointer_join(p, "leaf"));
      } else if (m->is_string()) {
        o.root_mem = o.leaf_mem = read_memtype_value(*this, *m, p);
      } else {
        fail(p, "expected \"host\", \"device\" or {\"root\": ..., \"leaf\": ...}, got " + describe(*m));
      }
    }
    if (auto* r = opt(j, "repeat")) o.repeat = get_int(*r, pointer_join(ptr, "repeat"), 1, Index{1} << 31, "repeat count");
    if (auto* ov = opt(j, "overlap_us")) {
      const std::string p = pointer_join(ptr, "overlap_us");
      if (!ov->is_number()) fail(p, "expected a number of microseconds, got " + describe(*ov));
      o.overlap_us = ov->get<double>();
      if (!(o.overlap_us >= 0) || !std::isfinite(o.overlap_us)) fail(p, "overlap_us must be >= 0, got " + ov->dump());
    }
    return o;
  }

  std::uint64_t limit_;
  int nranks_ = 0;
  std::vector<std::string> all_names_;
  mutable BuiltTrace::GraphMap graphs_;
  mutable std::map<std::string, SFDef, std::less<>> pending_;  // pattern SFs not built yet
  mutable long double bytes_built_ = 0;
};

}  // namespace

// Traces pack their index arrays: a large trace costs about 4 bytes per number while it is read.
static JsonOptions trace_json_options() {
  JsonOptions o;
  o.pack_integer_arrays = true;
  return o;
}

static std::uint64_t limit_of(const ReadOptions& o) { return o.max_memory ? o.max_memory : core::available_memory(); }

BuiltTrace parse_trace(std::string_view text, const std::string& source, const ReadOptions& o) {
  return Reader(source, limit_of(o)).read(parse_json_strict(text, source, trace_json_options()));
}

BuiltTrace read_trace_file(const std::string& path, const ReadOptions& o) {
  return Reader(path, limit_of(o)).read(parse_json_file(path, trace_json_options()));
}

}  // namespace sfr::trace
