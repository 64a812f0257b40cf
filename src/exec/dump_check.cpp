#include "exec/dump_check.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <functional>
#include <map>
#include <unordered_map>

#include "core/error.hpp"
#include "exec/reference/reference.hpp"
#include "io/json_strict.hpp"

namespace sfr::exec {

using core::Index;
using core::OpKind;
using io::Json;

namespace {

// A floating-point value of a dump: a number, or "inf", "-inf", "nan" (spec 4); false otherwise.
bool float_value(const Json& a, double& v) {
  if (a.is_number()) {
    v = a.get<double>();
    return true;
  }
  if (!a.is_string()) return false;
  const auto& s = a.get_ref<const std::string&>();
  if (s == "inf")
    v = std::numeric_limits<double>::infinity();
  else if (s == "-inf")
    v = -std::numeric_limits<double>::infinity();
  else if (s == "nan")
    v = std::numeric_limits<double>::quiet_NaN();
  else
    return false;
  return true;
}

// Every NaN of a floating-point buffer as the one quiet NaN, so that byte comparisons compare
// values ("nan matches nan", whatever sign or payload the computation left).
void canonical_nans(Buffer& b) {
  core::visit_unit(b.unit, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T> || core::is_complex_v<T>) {
      using R = std::conditional_t<std::is_floating_point_v<T>, T, double>;
      R* d = reinterpret_cast<R*>(b.bytes.data());
      const std::size_t n = b.components() * (std::is_floating_point_v<T> ? 1 : 2);
      for (std::size_t k = 0; k < n; ++k)
        if (std::isnan(d[k])) d[k] = std::numeric_limits<R>::quiet_NaN();
    }
  });
}

// A candidate array as a typed buffer shaped like the reference one; false if the shape differs.
bool to_buffer(const Json& arr, const Buffer& like, Buffer& out) {
  const size_t per = static_cast<size_t>(core::unit_numbers(like.unit));
  if (!arr.is_array() || arr.size() != like.components() * per) return false;
  out = Buffer(like.unit, like.bs, like.count);
  bool ok = true;
  core::visit_unit(like.unit, [&]<class T>() {
    T* d = out.as<T>();
    for (size_t k = 0; k < like.components(); ++k) {
      const Json& a = arr[k * per];
      if constexpr (core::is_complex_v<T>) {
        double re = 0, im = 0;
        if (!float_value(a, re) || !float_value(arr[k * per + 1], im)) {
          ok = false;
          return;
        }
        d[k] = T(re, im);
      } else if constexpr (std::is_floating_point_v<T>) {
        double v = 0;
        if (!float_value(a, v)) {
          ok = false;
          return;
        }
        d[k] = static_cast<T>(v);
      } else {
        if (!a.is_number() || (per == 2 && !arr[k * per + 1].is_number())) {
          ok = false;
          return;
        }
        if constexpr (core::is_pair_v<T>)
          d[k] = T{a.get<std::int32_t>(), arr[k * per + 1].get<std::int32_t>()};
        else
          d[k] = a.get<T>();
      }
    }
  });
  if (ok) canonical_nans(out);
  return ok;
}

// Raw bytes of vertex v (a block of bs components).
std::string block(const Buffer& b, Index v) {
  const size_t sz = static_cast<size_t>(b.bs) * core::unit_size(b.unit);
  return std::string(reinterpret_cast<const char*>(b.bytes.data()) + static_cast<size_t>(v) * sz, sz);
}

struct LeafAt {
  int rank;
  Index pos;
};

// Leaves of every root, per root rank, sorted by (leaf rank, position).
std::vector<std::vector<std::vector<LeafAt>>> leaves_by_root(const core::Graph& g) {
  std::vector<std::vector<std::vector<LeafAt>>> by(static_cast<size_t>(g.nranks));
  for (int s = 0; s < g.nranks; ++s) by[static_cast<size_t>(s)].resize(static_cast<size_t>(g[s].nroots));
  for (int r = 0; r < g.nranks; ++r)
    for (Index j = 0; j < g[r].nleaves(); ++j)
      by[static_cast<size_t>(g[r].remote_rank[static_cast<size_t>(j)])][static_cast<size_t>(g[r].remote_index[static_cast<size_t>(j)])]
          .push_back({r, g[r].leaf_position(j)});
  for (auto& ranks : by)
    for (auto& v : ranks)
      std::sort(v.begin(), v.end(), [](const LeafAt& a, const LeafAt& b) { return std::tie(a.rank, a.pos) < std::tie(b.rank, b.pos); });
  return by;
}

class Checker {
public:
  Checker(const trace::BuiltTrace& t, DumpCheck& out) : t_(t), out_(out) {}

  void check_op(size_t entry, size_t index, const Json& ranks) {
    const core::OpSpec& op = t_.trace().ops[index];
    const std::string base = "/ops/" + std::to_string(entry) + "/ranks";
    OpArrays ref = reference::run_op(t_, op);
    for (auto& rk : ref.ranks)
      for (auto& nb : rk) canonical_nans(nb.buffer);
    const core::Graph& g = t_.graph_for(op);
    if (!ranks.is_array() || ranks.size() != ref.ranks.size()) {
      problem(base, "expected " + std::to_string(ref.ranks.size()) + " rank entries");
      return;
    }
    // cand[r][array name]
    std::vector<std::map<std::string, Buffer>> cand(ref.ranks.size());
    bool exact = true;
    for (size_t r = 0; r < ref.ranks.size(); ++r)
      for (const auto& nb : ref.ranks[r]) {
        const std::string ptr = base + "/" + std::to_string(r) + "/" + nb.name;
        const Json& rk = ranks[r];
        if (!rk.is_object() || !rk.contains(nb.name)) {
          problem(ptr, "missing array");
          return;
        }
        Buffer b;
        if (!to_buffer(rk[nb.name], nb.buffer, b)) {
          problem(ptr, "expected " + std::to_string(nb.buffer.components() * static_cast<size_t>(core::unit_numbers(nb.buffer.unit))) +
                           " numbers");
          return;
        }
        exact = exact && b == nb.buffer;
        cand[r][nb.name] = std::move(b);
      }
    if (exact) return;
    const auto by_root = leaves_by_root(t_.graph(op.sf));
    switch (op.op) {
      case OpKind::bcast:
      case OpKind::degree: exact_arrays(base, ref, cand); break;
      case OpKind::reduce:
        if (op.mpi_op == core::MpiOp::replace)
          replace_roots(base, ref, cand, by_root, "rootdata", op);
        else
          exact_arrays(base, ref, cand);
        break;
      case OpKind::fetch_and_op: fetch_and_op(base, ref, cand, by_root, op); break;
      case OpKind::gather: gather(base, ref, cand, by_root); break;
      case OpKind::scatter: scatter(base, ref, cand, by_root, g); break;
    }
  }

private:
  void problem(const std::string& ptr, const std::string& what) {
    if (out_.problems.size() < 50) out_.problems.push_back(ptr + ": " + what);
  }

  void exact_arrays(const std::string& base, const OpArrays& ref, std::vector<std::map<std::string, Buffer>>& cand) {
    for (size_t r = 0; r < ref.ranks.size(); ++r)
      for (const auto& nb : ref.ranks[r]) {
        const Buffer& c = cand[r][nb.name];
        for (Index v = 0; v < nb.buffer.count; ++v)
          if (block(c, v) != block(nb.buffer, v)) {
            problem(base + "/" + std::to_string(r) + "/" + nb.name, "vertex " + std::to_string(v) + " differs from the reference");
            break;
          }
      }
  }

  // Inputs the op started from (conformance data), per rank.
  std::vector<Buffer> inputs(const core::OpSpec& op, Side side, bool roots) {
    return conformance_inputs(t_.graph_for(op), side, op, roots);
  }

  // REPLACE: a root of degree > 1 must hold one of its leaves' values.
  void replace_roots(const std::string& base, const OpArrays& ref, std::vector<std::map<std::string, Buffer>>& cand,
                     const std::vector<std::vector<std::vector<LeafAt>>>& by_root, const char* name, const core::OpSpec& op) {
    const auto leaf_in = inputs(op, Side::leaf, false);
    for (size_t s = 0; s < ref.ranks.size(); ++s) {
      const Buffer* rb = nullptr;
      for (const auto& nb : ref.ranks[s])
        if (nb.name == name) rb = &nb.buffer;
      const Buffer& c = cand[s][name];
      for (Index i = 0; i < rb->count; ++i) {
        const auto& leaves = by_root[s][static_cast<size_t>(i)];
        const std::string got = block(c, i);
        bool ok = leaves.size() <= 1 ? got == block(*rb, i) : false;
        for (size_t k = 0; !ok && k < leaves.size(); ++k) ok = got == block(leaf_in[static_cast<size_t>(leaves[k].rank)], leaves[k].pos);
        if (!ok) {
          problem(base + "/" + std::to_string(s) + "/" + name, "root " + std::to_string(i) + " holds no value of its leaves");
          return;
        }
      }
    }
  }

  // fetch_and_op: the leafupdates of every root must replay as one serial order that ends at
  // the candidate's root value.
  void fetch_and_op(const std::string& base, const OpArrays& ref, std::vector<std::map<std::string, Buffer>>& cand,
                    const std::vector<std::vector<std::vector<LeafAt>>>& by_root, const core::OpSpec& op) {
    const auto root_in = inputs(op, Side::root, true);
    const auto leaf_in = inputs(op, Side::leaf, false);
    const size_t bs = static_cast<size_t>(op.bs);
    // Leaf positions not attached to anything keep leafupdate 0: compare those exactly.
    for (size_t r = 0; r < ref.ranks.size(); ++r) {
      const core::RankGraph& rg = t_.graph(op.sf)[static_cast<int>(r)];
      std::vector<char> attached(static_cast<size_t>(rg.leafspace()), 0);
      for (Index j = 0; j < rg.nleaves(); ++j) attached[static_cast<size_t>(rg.leaf_position(j))] = 1;
      for (Index p = 0; p < rg.leafspace(); ++p)
        if (!attached[static_cast<size_t>(p)] && block(cand[r]["leafupdate"], p) != block(ref.ranks[r][1].buffer, p))
          problem(base + "/" + std::to_string(r) + "/leafupdate", "unattached position " + std::to_string(p) + " was written");
    }
    core::visit_unit(op.unit, [&]<class T>() {
      core::visit_op(op.mpi_op, [&]<class O>() {
        if constexpr (O::template legal<T>) {
          std::vector<const T*> upd_of;  // each rank's leafupdate
          for (size_t r = 0; r < cand.size(); ++r) upd_of.push_back(cand[r]["leafupdate"].template as<T>());
          auto bytes_of = [](const T* p, size_t bs) { return std::string(reinterpret_cast<const char*>(p), bs * sizeof(T)); };
          for (size_t s = 0; s < by_root.size(); ++s)
            for (size_t i = 0; i < by_root[s].size(); ++i) {
              const auto& leaves = by_root[s][i];
              // Each leaf is a step from the root value it fetched to that value combined with its
              // contribution (the op is a function of the two), so a serial order of the leaves is a
              // walk through the root's values that takes every step once: an Eulerian trail from
              // the root's input to its final value. One exists exactly when every value is left as
              // often as it is entered, but for the input (left once more) and the final value
              // (entered once more) where they differ, and every step lies in one connected piece
              // with the input (the directed Euler theorem): checked in linear time, for any number
              // of leaves and any order the transport chose.
              std::unordered_map<std::string, std::size_t> node_of;
              std::vector<long> balance;            // out - in, per value
              std::vector<std::size_t> parent;      // union-find over values joined by a step
              auto node = [&](const std::string& key) {
                const auto [it, fresh] = node_of.try_emplace(key, balance.size());
                if (fresh) {
                  balance.push_back(0);
                  parent.push_back(parent.size());
                }
                return it->second;
              };
              auto find = [&](std::size_t x) {
                while (parent[x] != x) x = parent[x] = parent[parent[x]];
                return x;
              };
              const std::size_t start = node(bytes_of(root_in[s].template as<T>() + i * bs, bs));
              const T* final_root = cand[s]["rootdata"].template as<T>() + i * bs;
              const std::size_t end = node(bytes_of(final_root, bs));
              std::vector<T> next(bs);
              for (const LeafAt& a : leaves) {
                const T* u = upd_of[static_cast<size_t>(a.rank)] + static_cast<size_t>(a.pos) * bs;
                const T* v = leaf_in[static_cast<size_t>(a.rank)].template as<T>() + static_cast<size_t>(a.pos) * bs;
                std::copy(u, u + bs, next.begin());
                for (size_t c = 0; c < bs; ++c) O::apply(next[c], v[c]);
                const std::size_t from = node(bytes_of(u, bs)), to = node(bytes_of(next.data(), bs));
                ++balance[from];
                --balance[to];
                parent[find(from)] = find(to);
              }
              bool found = true;
              for (std::size_t x = 0; x < balance.size() && found; ++x) {
                const long want = start == end ? 0 : x == start ? 1 : x == end ? -1 : 0;
                found = balance[x] == want;
              }
              if (found)  // every step in the input's piece
                for (const LeafAt& a : leaves) {
                  const T* u = upd_of[static_cast<size_t>(a.rank)] + static_cast<size_t>(a.pos) * bs;
                  if (find(node_of.at(bytes_of(u, bs))) != find(start)) found = false;
                }
              if (!found) {
                const int lr = leaves.empty() ? static_cast<int>(s) : leaves[0].rank;
                problem(base + "/" + std::to_string(lr) + "/leafupdate", "leafupdates of root " + std::to_string(i) + " of rank " +
                                                                             std::to_string(s) +
                                                                             " and its final value match no serial order");
              }
            }
        }
      });
    });
  }

  // gather: the multi-roots of one root that come from one leaf rank may be permuted.
  void gather(const std::string& base, const OpArrays& ref, std::vector<std::map<std::string, Buffer>>& cand,
              const std::vector<std::vector<std::vector<LeafAt>>>& by_root) {
    for (size_t s = 0; s < by_root.size(); ++s) {
      const Buffer& rb = ref.ranks[s][0].buffer;
      const Buffer& c = cand[s]["multirootdata"];
      Index slot = 0;
      for (const auto& leaves : by_root[s])
        for (size_t k = 0; k < leaves.size();) {
          size_t e = k;
          while (e < leaves.size() && leaves[e].rank == leaves[k].rank) ++e;
          std::vector<std::string> a, b;
          for (size_t q = k; q < e; ++q) {
            a.push_back(block(rb, slot + static_cast<Index>(q - k)));
            b.push_back(block(c, slot + static_cast<Index>(q - k)));
          }
          std::sort(a.begin(), a.end());
          std::sort(b.begin(), b.end());
          if (a != b)
            problem(base + "/" + std::to_string(s) + "/multirootdata",
                    "multi-roots " + std::to_string(slot) + ".. differ from the reference as a set");
          slot += static_cast<Index>(e - k);
          k = e;
        }
    }
  }

  // scatter: the leaves of one leaf rank attached to one root may receive their values permuted.
  void scatter(const std::string& base, const OpArrays& ref, std::vector<std::map<std::string, Buffer>>& cand,
               const std::vector<std::vector<std::vector<LeafAt>>>& by_root, const core::Graph& multi) {
    std::vector<std::vector<char>> grouped(ref.ranks.size());
    for (size_t r = 0; r < ref.ranks.size(); ++r) grouped[r].assign(static_cast<size_t>(multi[static_cast<int>(r)].leafspace()), 0);
    for (const auto& ranks : by_root)
      for (const auto& leaves : ranks)
        for (size_t k = 0; k < leaves.size();) {
          size_t e = k;
          while (e < leaves.size() && leaves[e].rank == leaves[k].rank) ++e;
          const size_t r = static_cast<size_t>(leaves[k].rank);
          std::vector<std::string> a, b;
          for (size_t q = k; q < e; ++q) {
            a.push_back(block(ref.ranks[r][0].buffer, leaves[q].pos));
            b.push_back(block(cand[r]["leafdata"], leaves[q].pos));
            grouped[r][static_cast<size_t>(leaves[q].pos)] = 1;
          }
          std::sort(a.begin(), a.end());
          std::sort(b.begin(), b.end());
          if (a != b)
            problem(base + "/" + std::to_string(r) + "/leafdata",
                    "leaves at " + std::to_string(leaves[k].pos) + ".. differ from the reference as a set");
          k = e;
        }
    for (size_t r = 0; r < ref.ranks.size(); ++r)
      for (size_t p = 0; p < grouped[r].size(); ++p)
        if (!grouped[r][p] && block(cand[r]["leafdata"], static_cast<Index>(p)) != block(ref.ranks[r][0].buffer, static_cast<Index>(p)))
          problem(base + "/" + std::to_string(r) + "/leafdata", "hole " + std::to_string(p) + " was written");
  }

  const trace::BuiltTrace& t_;
  DumpCheck& out_;
};

}  // namespace

DumpCheck check_dump(const trace::BuiltTrace& t, const std::string& dump_text, const std::string& source,
                     const std::set<std::size_t>& skip) {
  DumpCheck res;
  const Json d = io::parse_json_strict(dump_text, source);
  io::check_format(d, source, "sf-dump", true);
  if (d.contains("trace")) {  // the trace the dump was made of: checking it against another is bad input, not a failure
    const Json& n = d["trace"];
    if (!n.is_string()) throw InputError(source, "/trace: expected the name of the dump's trace (a string)");
    if (n.get<std::string>() != t.trace().name)
      throw InputError(source, "/trace: a dump of trace " + io::json_quote(n.get<std::string>()) + ", not of " +
                                   io::json_quote(t.trace().name) + " (the trace given)");
  }
  if (!d.contains("ops") || !d["ops"].is_array()) throw InputError(source, "/ops: missing or not an array");
  std::set<size_t> seen, skip_all = skip;
  if (d.contains("skipped")) {  // the dump's own list of ops it left out (src/trace/README.md, "sf-dump extension")
    const Json& s = d["skipped"];
    if (!s.is_array()) res.problems.push_back("/skipped: expected an array");
    for (size_t k = 0; s.is_array() && k < s.size(); ++k) {
      const Json& e = s[k];
      if (!e.is_object() || !e.contains("index") || !e["index"].is_number_unsigned() || e["index"].get<size_t>() >= t.trace().ops.size() ||
          !e.contains("reason") || !e["reason"].is_string()) {
        res.problems.push_back("/skipped/" + std::to_string(k) + ": expected {\"index\": a trace op, \"reason\": a string}");
        continue;
      }
      skip_all.insert(e["index"].get<size_t>());
      res.skipped.push_back("op " + std::to_string(e["index"].get<size_t>()) + ": " + e["reason"].get<std::string>());
    }
  }
  Checker ck(t, res);
  const Json& ops = d["ops"];
  for (size_t e = 0; e < ops.size(); ++e) {
    const Json& o = ops[e];
    if (!o.is_object() || !o.contains("index") || !o["index"].is_number_unsigned() || o["index"].get<size_t>() >= t.trace().ops.size()) {
      res.problems.push_back("/ops/" + std::to_string(e) + "/index: missing or out of range");
      continue;
    }
    const size_t idx = o["index"].get<size_t>();
    if (skip_all.count(idx)) continue;
    const auto& spec = t.trace().ops[idx];
    if (o.value("op", "") != core::op_kind_name(spec.op) || o.value("sf", "") != spec.sf) {
      res.problems.push_back("/ops/" + std::to_string(e) + ": op or sf does not match trace op " + std::to_string(idx));
      continue;
    }
    seen.insert(idx);
    ck.check_op(e, idx, o.contains("ranks") ? o["ranks"] : Json());
    ++res.ops_checked;
  }
  for (size_t i = 0; i < t.trace().ops.size(); ++i)
    if (!seen.count(i) && !skip_all.count(i)) res.problems.push_back("/ops: trace op " + std::to_string(i) + " is missing from the dump");
  return res;
}

}  // namespace sfr::exec
