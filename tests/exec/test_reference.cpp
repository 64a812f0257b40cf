// The reference executor against an independent model: the spec's input formulas and MPI's op
// definitions re-implemented here with long double / plain integer arithmetic, applied edge by edge
// in PETSc's documented order. Every op x unit x legal mpi_op x bs in {1,3}.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "exec/reference/reference.hpp"
#include "support/graphs.hpp"
#include "trace/reader.hpp"

using namespace sfr;
using namespace sfr_test;
using core::MpiOp;
using core::OpKind;
using core::Unit;

namespace {

// Three ranks: holes (rank 0 position 2), roots of degree 0 ((0,0), (1,1), (2,0)), degree 2 with a
// self leaf ((0,1)), degree 3 with two leaves from one rank ((1,0)), a rank without leaves.
Graph sweep_graph() { return make_graph({{2, {{3, 1, 0}, {0, 0, 1}, {1, 1, 0}}}, {3, {{0, 1, 0}, {1, 0, 1}, {2, 1, 2}}}, {1, {}}}); }

struct V {
  long double re = 0, im = 0;
  long long idx = 0;
  bool operator==(const V&) const = default;
};

long long gf(int r, Index i, int c) { return ((r * 131LL + i * 31 + c * 7) % 97) + 1; }
long long hf(int r, Index i, int c) { return ((r * 17LL + i * 13 + c * 5) % 89) + 1; }

long long tr(long long x, std::optional<MpiOp> op) {
  if (op == MpiOp::prod) return 1 + x % 2;
  if (op == MpiOp::land || op == MpiOp::lor || op == MpiOp::lxor) return x % 2;
  return x;
}

V input(bool root, Unit u, std::optional<MpiOp> op, int r, Index i, int c, long long global) {
  const long long g = tr(gf(r, i, c), op), h = tr(hf(r, i, c), op);
  const long long mine = root ? g : h, other = root ? h : g;
  if (u == Unit::int32_pair) return {static_cast<long double>(mine % 5), 0, global};
  if (u == Unit::complex128) return {static_cast<long double>(mine), static_cast<long double>(other), 0};
  return {static_cast<long double>(mine), 0, 0};
}

V combine(MpiOp op, Unit u, V a, const V& b) {
  const auto I = [](long double x) { return static_cast<long long>(x); };
  switch (op) {
    case MpiOp::replace: return b;
    case MpiOp::sum: return {a.re + b.re, a.im + b.im, 0};
    case MpiOp::prod:
      if (u == Unit::complex128) return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re, 0};
      return {a.re * b.re, 0, 0};
    case MpiOp::max: return {std::max(a.re, b.re), 0, 0};
    case MpiOp::min: return {std::min(a.re, b.re), 0, 0};
    case MpiOp::land: return {static_cast<long double>(a.re != 0 && b.re != 0), 0, 0};
    case MpiOp::lor: return {static_cast<long double>(a.re != 0 || b.re != 0), 0, 0};
    case MpiOp::lxor: return {static_cast<long double>((a.re != 0) != (b.re != 0)), 0, 0};
    case MpiOp::band: return {static_cast<long double>(I(a.re) & I(b.re)), 0, 0};
    case MpiOp::bor: return {static_cast<long double>(I(a.re) | I(b.re)), 0, 0};
    case MpiOp::bxor: return {static_cast<long double>(I(a.re) ^ I(b.re)), 0, 0};
    case MpiOp::maxloc:
      if (b.re > a.re || (b.re == a.re && b.idx < a.idx)) return b;
      return a;
    case MpiOp::minloc:
      if (b.re < a.re || (b.re == a.re && b.idx < a.idx)) return b;
      return a;
  }
  return a;
}

// Reads a buffer back as V values (vertex-major, bs components).
std::vector<V> values(const exec::Buffer& b) {
  std::vector<V> out;
  core::visit_unit(b.unit, [&]<class T>() {
    const T* d = b.as<T>();
    for (size_t k = 0; k < b.components(); ++k) {
      if constexpr (core::is_pair_v<T>)
        out.push_back({static_cast<long double>(d[k].value), 0, d[k].index});
      else if constexpr (core::is_complex_v<T>)
        out.push_back({d[k].real(), d[k].imag(), 0});
      else
        out.push_back({static_cast<long double>(d[k]), 0, 0});
    }
  });
  return out;
}

struct Edge {
  int r;
  Index pos;
  int s;
  Index i;
};

// Edges grouped per root in PETSc's application order: own rank first, then ascending rank, then
// ascending position.
std::map<std::pair<int, Index>, std::vector<Edge>> edges_by_root(const Graph& g) {
  std::map<std::pair<int, Index>, std::vector<Edge>> m;
  for (int r = 0; r < g.nranks; ++r)
    for (Index j = 0; j < g[r].nleaves(); ++j)
      m[{g[r].remote_rank[static_cast<size_t>(j)], g[r].remote_index[static_cast<size_t>(j)]}].push_back(
          {r, g[r].leaf_position(j), g[r].remote_rank[static_cast<size_t>(j)], g[r].remote_index[static_cast<size_t>(j)]});
  for (auto& [root, v] : m)
    std::sort(v.begin(), v.end(), [&](const Edge& a, const Edge& b) {
      const int ka = a.r == a.s ? -1 : a.r, kb = b.r == b.s ? -1 : b.r;
      return std::tie(ka, a.pos) < std::tie(kb, b.pos);
    });
  return m;
}

struct Case {
  OpKind op;
  Unit unit;
  std::optional<MpiOp> mop;
  int bs;
};

trace::BuiltTrace one_op_trace(const Graph& g, const Case& c) {
  trace::Trace t;
  t.name = "sweep";
  t.nranks = g.nranks;
  t.sfs.push_back({"S", trace::ExplicitSF{std::make_shared<const Graph>(g)}});
  core::OpSpec op;
  op.op = c.op;
  op.sf = "S";
  op.unit = c.unit;
  op.bs = c.bs;
  op.mpi_op = c.mop.value_or(core::default_mpi_op(c.op));
  t.ops.push_back(op);
  return trace::BuiltTrace(std::move(t));
}

std::string describe(const Case& c) {
  return std::string(core::op_kind_name(c.op)) + " " + core::unit_name(c.unit) + " " + (c.mop ? core::mpi_op_name(*c.mop) : "-") +
         " bs=" + std::to_string(c.bs);
}

// Expected dump arrays of one case, computed independently.
std::vector<std::map<std::string, std::vector<V>>> expected(const Graph& g, const Case& c) {
  const int n = g.nranks, bs = c.bs;
  std::vector<std::map<std::string, std::vector<V>>> out(static_cast<size_t>(n));
  std::vector<long long> root_off(static_cast<size_t>(n) + 1, 0), leaf_off(static_cast<size_t>(n) + 1, 0);
  for (int r = 0; r < n; ++r) {
    root_off[static_cast<size_t>(r) + 1] = root_off[static_cast<size_t>(r)] + g[r].nroots;
    leaf_off[static_cast<size_t>(r) + 1] = leaf_off[static_cast<size_t>(r)] + g[r].leafspace();
  }
  auto root_in = [&](int r, Index i, int k) { return input(true, c.unit, c.mop, r, i, k, root_off[static_cast<size_t>(r)] + i); };
  auto leaf_in = [&](int r, Index p, int k) { return input(false, c.unit, c.mop, r, p, k, leaf_off[static_cast<size_t>(r)] + p); };
  auto fill = [&](int r, Index count, bool root) {
    std::vector<V> v;
    for (Index i = 0; i < count; ++i)
      for (int k = 0; k < bs; ++k) v.push_back(root ? root_in(r, i, k) : leaf_in(r, i, k));
    return v;
  };
  const auto by_root = edges_by_root(g);
  switch (c.op) {
    case OpKind::bcast:
      for (int r = 0; r < n; ++r) {
        auto leaf = fill(r, g[r].leafspace(), false);
        for (Index j = 0; j < g[r].nleaves(); ++j)
          for (int k = 0; k < bs; ++k) {
            V& d = leaf[static_cast<size_t>(g[r].leaf_position(j) * bs + k)];
            d = combine(*c.mop, c.unit, d, root_in(g[r].remote_rank[static_cast<size_t>(j)], g[r].remote_index[static_cast<size_t>(j)], k));
          }
        out[static_cast<size_t>(r)]["leafdata"] = leaf;
      }
      break;
    case OpKind::reduce:
    case OpKind::fetch_and_op: {
      std::vector<std::vector<V>> root(static_cast<size_t>(n)), upd(static_cast<size_t>(n));
      for (int r = 0; r < n; ++r) {
        root[static_cast<size_t>(r)] = fill(r, g[r].nroots, true);
        upd[static_cast<size_t>(r)].assign(static_cast<size_t>(g[r].leafspace() * bs), V{});
      }
      for (const auto& [rt, edges] : by_root)
        for (const Edge& e : edges)
          for (int k = 0; k < bs; ++k) {
            V& d = root[static_cast<size_t>(e.s)][static_cast<size_t>(e.i * bs + k)];
            upd[static_cast<size_t>(e.r)][static_cast<size_t>(e.pos * bs + k)] = d;
            d = combine(*c.mop, c.unit, d, leaf_in(e.r, e.pos, k));
          }
      for (int r = 0; r < n; ++r) {
        out[static_cast<size_t>(r)]["rootdata"] = root[static_cast<size_t>(r)];
        if (c.op == OpKind::fetch_and_op) out[static_cast<size_t>(r)]["leafupdate"] = upd[static_cast<size_t>(r)];
      }
      break;
    }
    case OpKind::gather:
    case OpKind::scatter: {
      // Multi-roots: root by root; leaves of a root by (leaf rank, leaf position).
      std::vector<Index> nmulti(static_cast<size_t>(n), 0);
      std::map<std::pair<int, Index>, std::pair<int, Index>> slot;  // (leaf rank, pos) -> (s, multi index)
      for (int s = 0; s < n; ++s)
        for (Index i = 0; i < g[s].nroots; ++i) {
          auto it = by_root.find({s, i});
          if (it == by_root.end()) continue;
          auto leaves = it->second;
          std::sort(leaves.begin(), leaves.end(), [](const Edge& a, const Edge& b) { return std::tie(a.r, a.pos) < std::tie(b.r, b.pos); });
          for (const Edge& e : leaves) slot[{e.r, e.pos}] = {s, nmulti[static_cast<size_t>(s)]++};
        }
      std::vector<long long> moff(static_cast<size_t>(n) + 1, 0);
      for (int r = 0; r < n; ++r) moff[static_cast<size_t>(r) + 1] = moff[static_cast<size_t>(r)] + nmulti[static_cast<size_t>(r)];
      if (c.op == OpKind::gather) {
        std::vector<std::vector<V>> mr(static_cast<size_t>(n));
        for (int s = 0; s < n; ++s) mr[static_cast<size_t>(s)].assign(static_cast<size_t>(nmulti[static_cast<size_t>(s)] * bs), V{});
        for (const auto& [leaf, sl] : slot)
          for (int k = 0; k < bs; ++k)
            mr[static_cast<size_t>(sl.first)][static_cast<size_t>(sl.second * bs + k)] = leaf_in(leaf.first, leaf.second, k);
        for (int s = 0; s < n; ++s) out[static_cast<size_t>(s)]["multirootdata"] = mr[static_cast<size_t>(s)];
      } else {
        for (int r = 0; r < n; ++r) {
          auto leaf = fill(r, g[r].leafspace(), false);
          for (const auto& [lf, sl] : slot)
            if (lf.first == r)
              for (int k = 0; k < bs; ++k)
                leaf[static_cast<size_t>(lf.second * bs + k)] =
                    input(true, c.unit, std::nullopt, sl.first, sl.second, k, moff[static_cast<size_t>(sl.first)] + sl.second);
          out[static_cast<size_t>(r)]["leafdata"] = leaf;
        }
      }
      break;
    }
    case OpKind::degree:
      for (int s = 0; s < n; ++s) {
        std::vector<V> d;
        for (Index i = 0; i < g[s].nroots; ++i) {
          auto it = by_root.find({s, i});
          d.push_back({static_cast<long double>(it == by_root.end() ? 0 : it->second.size()), 0, 0});
        }
        out[static_cast<size_t>(s)]["degree"] = d;
      }
      break;
  }
  return out;
}

void check_case(const Graph& g, const Case& c) {
  const auto t = one_op_trace(g, c);
  const exec::OpArrays got = exec::reference::run_op(t, t.trace().ops[0]);
  const auto want = expected(g, c);
  ASSERT_EQ(got.ranks.size(), want.size());
  for (size_t r = 0; r < want.size(); ++r) {
    ASSERT_EQ(got.ranks[r].size(), want[r].size()) << describe(c);
    for (const auto& arr : got.ranks[r]) {
      auto it = want[r].find(arr.name);
      ASSERT_NE(it, want[r].end()) << describe(c) << " unexpected array " << arr.name;
      const auto vals = values(arr.buffer);
      ASSERT_EQ(vals.size(), it->second.size()) << describe(c) << " rank " << r << " " << arr.name;
      for (size_t k = 0; k < vals.size(); ++k)
        EXPECT_EQ(vals[k], it->second[k]) << describe(c) << " rank " << r << " " << arr.name << "[" << k << "]";
    }
  }
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (Unit u : core::kAllUnits)
    for (int bs : {1, 3}) {
      for (OpKind k : {OpKind::bcast, OpKind::reduce, OpKind::fetch_and_op})
        for (MpiOp op : core::kAllOps)
          if (core::op_legal(u, op)) cases.push_back({k, u, op, bs});
      cases.push_back({OpKind::gather, u, std::nullopt, bs});
      cases.push_back({OpKind::scatter, u, std::nullopt, bs});
    }
  cases.push_back({OpKind::degree, Unit::int64, std::nullopt, 1});
  return cases;
}

}  // namespace

TEST(Reference, EveryOpUnitMpiOpAndBlockSizeMatchesIndependentModel) {
  const Graph g = sweep_graph();
  const auto cases = all_cases();
  EXPECT_GT(cases.size(), 150u);
  for (const Case& c : cases) check_case(g, c);
}

TEST(Reference, SweepOnHandmadeGraphWithEmptyRank) {
  const Graph g = handmade_a();
  for (const Case& c : all_cases()) check_case(g, c);
}

TEST(Reference, BcastByHand) {
  // Rank 0 of the handmade graph: leaves pos4<-(1,0), pos0<-(0,1), pos2<-(2,1); holes keep h.
  // g(1,0)=35, g(0,1)=32, g(2,1)=3; h(0,1)=14, h(0,3)=40.
  const auto t = one_op_trace(handmade_a(), {OpKind::bcast, Unit::float64, MpiOp::replace, 1});
  const auto res = exec::reference::run_op(t, t.trace().ops[0]);
  const auto v = values(res.ranks[0][0].buffer);
  std::vector<long double> got;
  for (const V& x : v) got.push_back(x.re);
  EXPECT_EQ(got, (std::vector<long double>{32, 14, 3, 40, 35}));
}

TEST(Reference, ReduceSumClosedForm) {
  // Root (1,0) of the handmade graph: g(1,0)=35 plus leaves h(0,4)=53, h(1,2)=44, h(2,1)=48.
  const auto t = one_op_trace(handmade_a(), {OpKind::reduce, Unit::int64, MpiOp::sum, 1});
  const auto res = exec::reference::run_op(t, t.trace().ops[0]);
  EXPECT_EQ(res.ranks[1][0].buffer.as<std::int64_t>()[0], 35 + 53 + 44 + 48);
}

TEST(Reference, FetchAndOpSelfLeavesComeFirst) {
  // Root (0,1): self leaf (0,pos0) first, then rank 1 pos0, then rank 2 pos3.
  const auto t = one_op_trace(handmade_a(), {OpKind::fetch_and_op, Unit::int64, MpiOp::sum, 1});
  const auto res = exec::reference::run_op(t, t.trace().ops[0]);
  const long long g01 = 32, h00 = 1, h10 = 18, h23 = ((2 * 17 + 3 * 13) % 89) + 1;
  EXPECT_EQ(res.ranks[0][1].buffer.as<std::int64_t>()[0], g01);                    // rank 0 leafupdate pos0
  EXPECT_EQ(res.ranks[1][1].buffer.as<std::int64_t>()[0], g01 + h00);              // rank 1 pos0
  EXPECT_EQ(res.ranks[2][1].buffer.as<std::int64_t>()[3], g01 + h00 + h10);        // rank 2 pos3
  EXPECT_EQ(res.ranks[0][0].buffer.as<std::int64_t>()[1], g01 + h00 + h10 + h23);  // rootdata
  EXPECT_EQ(res.ranks[2][1].buffer.as<std::int64_t>()[0], 0);                      // hole stays 0
}

TEST(Reference, AllgatherPatternFollowsPetscPatternedOrder) {
  // 3 ranks, one root each; every rank has 3 leaves (one per root). Root (1,0) sees leaves from
  // ranks 0, 1, 2 (h(r, 1) = 14, 31, 48).
  const auto t = trace::parse_trace(R"({"name": "ag", "nranks": 3, "sfs": {"AG": {"pattern": "allgather", "nroots": [1, 1, 1]}},
      "ops": [{"op": "reduce", "sf": "AG", "unit": "int32"}, {"op": "fetch_and_op", "sf": "AG", "unit": "int64"}]})",
                                    "ag");
  const auto red = exec::reference::run_op(t, t.trace().ops[0]);
  EXPECT_EQ(red.ranks[1][0].buffer.as<std::int32_t>()[0], 31);  // own rank's copy
  const auto fop = exec::reference::run_op(t, t.trace().ops[1]);
  const std::int64_t g10 = 35;                                             // g(1, 0)
  EXPECT_EQ(fop.ranks[0][1].buffer.as<std::int64_t>()[1], g10);            // rank 0 fetches first
  EXPECT_EQ(fop.ranks[1][1].buffer.as<std::int64_t>()[1], g10 + 14);       // then rank 1
  EXPECT_EQ(fop.ranks[2][1].buffer.as<std::int64_t>()[1], g10 + 14 + 31);  // then rank 2
}
