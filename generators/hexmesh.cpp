#include "hexmesh.hpp"

#include <algorithm>
#include <numeric>

#include "core/error.hpp"

namespace sfr::gen {

namespace {
constexpr std::array<Choice<MeshOrder>, 3> kOrders{
    {{MeshOrder::sequential, "sequential"}, {MeshOrder::chunks, "chunks"}, {MeshOrder::random, "random"}}};
}  // namespace

MeshOrder parse_mesh_order(const std::string& s) { return parse_choice("--order", "order", s, kOrders); }
const char* mesh_order_name(MeshOrder o) { return choice_name(o, kOrders); }

std::array<int, 3> cubic_factors(int p) {
  std::array<int, 3> best{p, 1, 1};
  for (int a = 1; a <= p; ++a) {
    if (p % a) continue;
    for (int b = 1; b <= p / a; ++b) {
      if ((p / a) % b) continue;
      std::array<int, 3> f{a, b, p / a / b};
      std::sort(f.begin(), f.end(), std::greater<>());
      if (f[0] < best[0] || (f[0] == best[0] && f[1] < best[1])) best = f;
    }
  }
  return best;
}

core::Graph hexmesh_graph(const HexmeshOptions& o) {
  require_positive("--cells", o.cells);
  require_positive("--ranks", o.nranks);
  const Index n = o.cells, n3 = n * n * n;
  const std::array<int, 3> pg = cubic_factors(o.nranks);
  if (pg[0] > n)
    throw InputError("--ranks", std::to_string(o.nranks) + " ranks need a " + std::to_string(pg[0]) + "x" + std::to_string(pg[1]) + "x" +
                                    std::to_string(pg[2]) + " grid of boxes, more than " + std::to_string(n) + " cells per side");
  // Naive distribution: cell order, then split.
  std::vector<Index> order(static_cast<std::size_t>(n3));
  std::iota(order.begin(), order.end(), Index{0});
  if (o.order == MeshOrder::random) Rng(o.seed).shuffle(order);
  std::vector<Index> lay = split_ownership(n3, o.nranks);
  if (o.order == MeshOrder::sequential) std::fill(lay.begin() + 1, lay.end(), n3);  // everything on rank 0
  std::vector<int> cell_rank(static_cast<std::size_t>(n3));
  std::vector<Index> cell_pos(static_cast<std::size_t>(n3));  // position among the rank's cells
  std::vector<Index> ncells(static_cast<std::size_t>(o.nranks));
  for (int r = 0; r < o.nranks; ++r) {
    const auto ur = static_cast<std::size_t>(r);
    ncells[ur] = lay[ur + 1] - lay[ur];
    for (Index q = lay[ur]; q < lay[ur + 1]; ++q) {
      cell_rank[static_cast<std::size_t>(order[static_cast<std::size_t>(q)])] = r;
      cell_pos[static_cast<std::size_t>(order[static_cast<std::size_t>(q)])] = q - lay[ur];
    }
  }
  // Root of an anchored point: stratum s (0 cell, 1 faces, 2 edges, 3 vertex), axis d.
  auto root = [&](int stratum, int d, Index anchor, int& rank) {
    rank = cell_rank[static_cast<std::size_t>(anchor)];
    const Index nc = ncells[static_cast<std::size_t>(rank)], p = cell_pos[static_cast<std::size_t>(anchor)];
    switch (stratum) {
      case 0: return p;
      case 1: return nc + 3 * p + d;
      case 2: return 4 * nc + 3 * p + d;
      default: return 7 * nc + p;
    }
  };
  auto id = [&](Index i, Index j, Index k) { return ((i % n + n) % n) + n * (((j % n + n) % n) + n * ((k % n + n) % n)); };
  std::array<std::vector<Index>, 3> box;
  for (std::size_t d = 0; d < 3; ++d) box[d] = split_ownership(n, pg[d]);
  core::Graph g(o.nranks);
  for (int r = 0; r < o.nranks; ++r) g[r].nroots = 8 * ncells[static_cast<std::size_t>(r)];
  for (int r = 0; r < o.nranks; ++r) {
    const std::array<int, 3> p{r % pg[0], (r / pg[0]) % pg[1], r / (pg[0] * pg[1])};
    std::vector<Index> cells, faces, edges, verts;  // global ids; faces/edges as d*N^3 + anchor
    for (Index k = box[2][static_cast<std::size_t>(p[2])]; k < box[2][static_cast<std::size_t>(p[2]) + 1]; ++k)
      for (Index j = box[1][static_cast<std::size_t>(p[1])]; j < box[1][static_cast<std::size_t>(p[1]) + 1]; ++j)
        for (Index i = box[0][static_cast<std::size_t>(p[0])]; i < box[0][static_cast<std::size_t>(p[0]) + 1]; ++i) {
          cells.push_back(id(i, j, k));
          const std::array<Index, 3> c{i, j, k};
          for (int d = 0; d < 3; ++d) {
            std::array<Index, 3> hi = c;
            ++hi[static_cast<std::size_t>(d)];
            faces.push_back(d * n3 + id(c[0], c[1], c[2]));
            faces.push_back(d * n3 + id(hi[0], hi[1], hi[2]));
            const int a = (d + 1) % 3, b = (d + 2) % 3;
            for (int da = 0; da < 2; ++da)
              for (int db = 0; db < 2; ++db) {
                std::array<Index, 3> v = c;
                v[static_cast<std::size_t>(a)] += da;
                v[static_cast<std::size_t>(b)] += db;
                edges.push_back(d * n3 + id(v[0], v[1], v[2]));
              }
          }
          for (int m = 0; m < 8; ++m) verts.push_back(id(i + (m & 1), j + ((m >> 1) & 1), k + ((m >> 2) & 1)));
        }
    core::RankGraph& rg = g[r];
    auto add = [&](std::vector<Index>& ids, int stratum) {
      std::sort(ids.begin(), ids.end());
      ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
      for (Index x : ids) {
        int owner = 0;
        const Index idx = root(stratum, static_cast<int>(x / n3), x % n3, owner);
        rg.remote_rank.push_back(owner);
        rg.remote_index.push_back(idx);
      }
    };
    add(cells, 0);
    add(faces, 1);
    add(edges, 2);
    add(verts, 3);
  }
  return g;
}

trace::Trace hexmesh_trace(const HexmeshOptions& o) {
  core::Graph g = hexmesh_graph(o);
  nlohmann::json params = {{"cells", o.cells}, {"ranks", o.nranks}, {"order", mesh_order_name(o.order)}};
  trace::Trace t = make_trace("hexmesh-" + std::to_string(o.cells) + "-" + mesh_order_name(o.order) + "-p" + std::to_string(o.nranks),
                              o.nranks, o.place, "hexmesh", std::move(params), o.seed);
  t.sfs.push_back(explicit_sf("migration", std::move(g)));
  t.ops.push_back(make_op(core::OpKind::bcast, "migration", core::MpiOp::replace));
  return t;
}

}  // namespace sfr::gen
