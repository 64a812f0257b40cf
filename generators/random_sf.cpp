#include "random_sf.hpp"
#include <algorithm>

#include <cmath>
#include <numeric>

#include "core/error.hpp"

namespace sfr::gen {

core::Graph random_graph(const RandomOptions& o) {
  require_positive("--ranks", o.nranks);
  if (o.max_roots < 0) throw InputError("--max-roots", "must be at least 0");
  if (o.max_leaves < 0) throw InputError("--max-leaves", "must be at least 0");
  if (o.max_degree < 0) throw InputError("--max-degree", "must be at least 0");
  if (!(o.holes >= 0 && o.holes <= 100)) throw InputError("--holes", "must be between 0 and 100");
  require_fraction("--self", o.self);
  Rng rng(o.seed);
  core::Graph g(o.nranks);
  for (int r = 0; r < o.nranks; ++r) g[r].nroots = rng.below(o.max_roots + 1);
  std::vector<std::vector<Index>> degree(static_cast<std::size_t>(o.nranks));
  std::vector<int> with_roots;
  for (int r = 0; r < o.nranks; ++r) {
    degree[static_cast<std::size_t>(r)].assign(static_cast<std::size_t>(g[r].nroots), 0);
    if (g[r].nroots > 0) with_roots.push_back(r);
  }
  // The ranks with roots other than r, without building that list per rank (quadratic in ranks):
  // with_roots is ascending, so r's own place in it is found by binary search and skipped.
  for (int r = 0; r < o.nranks; ++r) {
    const auto self_at = std::lower_bound(with_roots.begin(), with_roots.end(), r);
    const bool r_has_roots = self_at != with_roots.end() && *self_at == r;
    const auto skip = static_cast<std::size_t>(self_at - with_roots.begin());
    const std::size_t nothers = with_roots.size() - (r_has_roots ? 1 : 0);
    auto other = [&](std::size_t k) { return with_roots[r_has_roots && k >= skip ? k + 1 : k]; };
    const Index attempts = rng.below(o.max_leaves + 1);
    std::vector<std::pair<int, Index>> edges;
    for (Index a = 0; a < attempts; ++a) {
      const bool own = rng.unit() < o.self;
      int q = -1;
      if (own && g[r].nroots > 0)
        q = r;
      else if (!own && nothers > 0)
        q = other(static_cast<std::size_t>(rng.below(static_cast<Index>(nothers))));
      if (q < 0) continue;
      for (int t = 0; t < 16; ++t) {
        const Index i = rng.below(g[q].nroots);
        Index& deg = degree[static_cast<std::size_t>(q)][static_cast<std::size_t>(i)];
        if (o.max_degree == 0 || deg < o.max_degree) {
          ++deg;
          edges.emplace_back(q, i);
          break;
        }
      }
    }
    const Index nleaves = static_cast<Index>(edges.size());
    std::vector<Index> pos(static_cast<std::size_t>(nleaves + std::llround(o.holes * static_cast<double>(nleaves))));
    std::iota(pos.begin(), pos.end(), Index{0});
    if (o.holes > 0) rng.shuffle(pos);
    core::RankGraph& rg = g[r];
    for (Index j = 0; j < nleaves; ++j)
      rg.add_leaf(pos[static_cast<std::size_t>(j)], edges[static_cast<std::size_t>(j)].first, edges[static_cast<std::size_t>(j)].second);
    rg.normalize_ilocal();
  }
  return g;
}

trace::Trace random_trace(const RandomOptions& o) {
  core::Graph g = random_graph(o);
  nlohmann::json params = {{"ranks", o.nranks},          {"max_roots", o.max_roots}, {"max_leaves", o.max_leaves},
                           {"max_degree", o.max_degree}, {"holes", o.holes},         {"self", o.self}};
  trace::Trace t = make_trace("random-p" + std::to_string(o.nranks) + "-s" + std::to_string(o.seed), o.nranks, o.place, "random",
                              std::move(params), o.seed);
  t.sfs.push_back(explicit_sf("random", std::move(g)));
  using K = core::OpKind;
  const core::Unit u = core::Unit::int64;
  t.ops = {make_op(K::bcast, "random", core::MpiOp::replace, u),    make_op(K::reduce, "random", core::MpiOp::sum, u),
           make_op(K::fetch_and_op, "random", core::MpiOp::sum, u), make_op(K::gather, "random", core::MpiOp::replace, u),
           make_op(K::scatter, "random", core::MpiOp::replace, u),  make_op(K::degree, "random", core::MpiOp::replace, core::Unit::int32)};
  return t;
}

}  // namespace sfr::gen
