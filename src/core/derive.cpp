#include "core/derive.hpp"

#include "core/names.hpp"

#include <algorithm>
#include <numeric>
#include <string>

#include "core/error.hpp"

namespace sfr::core {
namespace {

std::string rank_str(int r) { return "rank " + std::to_string(r); }

void require_same_nranks(const Graph& a, const Graph& b, const char* what) {
  if (a.nranks != b.nranks)
    throw GraphError(std::string(what) + ": inputs live on different numbers of ranks (" + std::to_string(a.nranks) + " and " +
                     std::to_string(b.nranks) + ")");
}

// Leaf indices j of one rank in ascending leaf-position order.
std::vector<Index> leaves_by_position(const RankGraph& rg) {
  std::vector<Index> order(static_cast<size_t>(rg.nleaves()));
  std::iota(order.begin(), order.end(), Index{0});
  if (rg.has_ilocal)
    std::sort(order.begin(), order.end(),
              [&](Index x, Index y) { return rg.ilocal[static_cast<size_t>(x)] < rg.ilocal[static_cast<size_t>(y)]; });
  return order;
}

struct Remote {
  int rank = -1;
  Index index = -1;
};

// For every rank r and leaf position p of `a`: the root that leaf connects to (rank -1 for holes).
// Positions at or beyond `limit[r]` are ignored (PetscSFCompose drops them too).
std::vector<std::vector<Remote>> leaf_targets(const Graph& a, const std::vector<Index>& limit) {
  std::vector<std::vector<Remote>> t(static_cast<size_t>(a.nranks));
  for (int r = 0; r < a.nranks; ++r) {
    const RankGraph& rg = a[r];
    auto& tr = t[static_cast<size_t>(r)];
    tr.assign(static_cast<size_t>(limit[static_cast<size_t>(r)]), Remote{});
    for (Index j = 0; j < rg.nleaves(); ++j) {
      const Index p = rg.leaf_position(j);
      if (p < static_cast<Index>(tr.size()))
        tr[static_cast<size_t>(p)] = {rg.remote_rank[static_cast<size_t>(j)], rg.remote_index[static_cast<size_t>(j)]};
    }
  }
  return t;
}

// Keeps the leaves of `b` whose root maps to a valid target; each then points at that target.
Graph pull_through(const Graph& b, const std::vector<std::vector<Remote>>& root_target, const std::vector<Index>& nroots) {
  Graph out(b.nranks);
  for (int r = 0; r < b.nranks; ++r) {
    const RankGraph& rb = b[r];
    RankGraph& ro = out[r];
    ro.nroots = nroots[static_cast<size_t>(r)];
    ro.has_ilocal = true;
    for (Index j = 0; j < rb.nleaves(); ++j) {
      const Remote& t = root_target[static_cast<size_t>(rb.remote_rank[static_cast<size_t>(j)])]
                                   [static_cast<size_t>(rb.remote_index[static_cast<size_t>(j)])];
      if (t.rank < 0) continue;
      ro.ilocal.push_back(rb.leaf_position(j));
      ro.remote_rank.push_back(t.rank);
      ro.remote_index.push_back(t.index);
    }
    ro.normalize_ilocal();
  }
  return out;
}

}  // namespace

Graph multi_sf(const Graph& g) {
  const auto deg = root_degrees(g);
  // next[s][i]: the next free multi-root of root i on rank s.
  std::vector<std::vector<Index>> next(deg.size());
  Graph m(g.nranks);
  for (int s = 0; s < g.nranks; ++s) {
    const auto& d = deg[static_cast<size_t>(s)];
    auto& n = next[static_cast<size_t>(s)];
    n.resize(d.size());
    Index off = 0;
    for (size_t i = 0; i < d.size(); ++i) {
      n[i] = off;
      off += d[i];
    }
    m[s].nroots = off;
  }
  // Visiting leaves by (leaf rank, leaf position) fills each root's slots in exactly that order.
  for (int r = 0; r < g.nranks; ++r) {
    const RankGraph& rg = g[r];
    RankGraph& mr = m[r];
    mr.has_ilocal = rg.has_ilocal;
    mr.ilocal = rg.ilocal;
    mr.remote_rank = rg.remote_rank;
    mr.remote_index.assign(rg.remote_index.size(), 0);
    for (Index j : leaves_by_position(rg)) {
      const auto s = static_cast<size_t>(rg.remote_rank[static_cast<size_t>(j)]);
      const auto i = static_cast<size_t>(rg.remote_index[static_cast<size_t>(j)]);
      mr.remote_index[static_cast<size_t>(j)] = next[s][i]++;
    }
  }
  return m;
}

Graph compose(const Graph& a, const Graph& b) {
  require_same_nranks(a, b, "compose");
  std::vector<Index> broots(static_cast<size_t>(b.nranks)), aroots(static_cast<size_t>(a.nranks));
  for (int r = 0; r < b.nranks; ++r) {
    broots[static_cast<size_t>(r)] = b[r].nroots;
    aroots[static_cast<size_t>(r)] = a[r].nroots;
  }
  return pull_through(b, leaf_targets(a, broots), aroots);
}

Graph compose_inverse(const Graph& a, const Graph& b) {
  // PetscSFComposeInverse: A and B share leaf positions. A B leaf at position p whose position is
  // also an A leaf offers that A leaf's root to its B root; each B root reached becomes a leaf (at
  // position = B root index) of the result, whose roots are A's. Several offers are combined with
  // MPI_MAXLOC on (rank, index): the largest rank wins, then the smallest index.
  require_same_nranks(a, b, "compose_inverse");
  std::vector<Index> limit(static_cast<size_t>(a.nranks));
  for (int r = 0; r < a.nranks; ++r) limit[static_cast<size_t>(r)] = b[r].leafspace();
  const auto a_at = leaf_targets(a, limit);
  std::vector<std::vector<Remote>> offer(static_cast<size_t>(b.nranks));
  for (int s = 0; s < b.nranks; ++s) offer[static_cast<size_t>(s)].assign(static_cast<size_t>(b[s].nroots), Remote{});
  for (int r = 0; r < b.nranks; ++r) {
    const RankGraph& rb = b[r];
    for (Index j = 0; j < rb.nleaves(); ++j) {
      const Remote& t = a_at[static_cast<size_t>(r)][static_cast<size_t>(rb.leaf_position(j))];
      if (t.rank < 0) continue;
      Remote& o =
          offer[static_cast<size_t>(rb.remote_rank[static_cast<size_t>(j)])][static_cast<size_t>(rb.remote_index[static_cast<size_t>(j)])];
      if (t.rank > o.rank || (t.rank == o.rank && t.index < o.index)) o = t;
    }
  }
  Graph out(b.nranks);
  for (int s = 0; s < b.nranks; ++s) {
    RankGraph& ro = out[s];
    ro.nroots = a[s].nroots;
    ro.has_ilocal = true;
    const auto& of = offer[static_cast<size_t>(s)];
    for (size_t i = 0; i < of.size(); ++i) {
      if (of[i].rank < 0) continue;
      ro.ilocal.push_back(static_cast<Index>(i));
      ro.remote_rank.push_back(of[i].rank);
      ro.remote_index.push_back(of[i].index);
    }
    ro.normalize_ilocal();
  }
  return out;
}

Graph embed_roots(const Graph& g, const std::vector<std::vector<Index>>& selected) {
  if (static_cast<int>(selected.size()) != g.nranks)
    throw GraphError("embed_roots: selected has " + std::to_string(selected.size()) + " rank entries, expected " +
                     std::to_string(g.nranks));
  std::vector<std::vector<char>> keep(static_cast<size_t>(g.nranks));
  for (int r = 0; r < g.nranks; ++r) {
    auto& k = keep[static_cast<size_t>(r)];
    k.assign(static_cast<size_t>(g[r].nroots), 0);
    for (Index i : selected[static_cast<size_t>(r)]) {
      if (i < 0 || i >= g[r].nroots)
        throw GraphError("embed_roots: selected root " + std::to_string(i) + " of " + rank_str(r) + " is out of range [0," +
                         std::to_string(g[r].nroots) + ")");
      k[static_cast<size_t>(i)] = 1;
    }
  }
  Graph out(g.nranks);
  for (int r = 0; r < g.nranks; ++r) {
    const RankGraph& rg = g[r];
    RankGraph& ro = out[r];
    ro.nroots = rg.nroots;
    ro.has_ilocal = true;
    for (Index j = 0; j < rg.nleaves(); ++j) {
      const auto s = static_cast<size_t>(rg.remote_rank[static_cast<size_t>(j)]);
      if (!keep[s][static_cast<size_t>(rg.remote_index[static_cast<size_t>(j)])]) continue;
      ro.ilocal.push_back(rg.leaf_position(j));
      ro.remote_rank.push_back(rg.remote_rank[static_cast<size_t>(j)]);
      ro.remote_index.push_back(rg.remote_index[static_cast<size_t>(j)]);
    }
    ro.normalize_ilocal();
  }
  return out;
}

Graph embed_leaves(const Graph& g, const std::vector<std::vector<Index>>& selected) {
  if (static_cast<int>(selected.size()) != g.nranks)
    throw GraphError("embed_leaves: selected has " + std::to_string(selected.size()) + " rank entries, expected " +
                     std::to_string(g.nranks));
  Graph out(g.nranks);
  for (int r = 0; r < g.nranks; ++r) {
    const RankGraph& rg = g[r];
    std::vector<Index> sel = selected[static_cast<size_t>(r)];
    std::sort(sel.begin(), sel.end());
    sel.erase(std::unique(sel.begin(), sel.end()), sel.end());
    if (!sel.empty() && (sel.front() < 0 || sel.back() >= rg.nleaves()))
      throw GraphError("embed_leaves: selected leaf " + std::to_string(sel.front() < 0 ? sel.front() : sel.back()) + " of " + rank_str(r) +
                       " is out of range [0," + std::to_string(rg.nleaves()) + ")");
    RankGraph& ro = out[r];
    ro.nroots = rg.nroots;
    ro.has_ilocal = true;
    // PetscSFSetGraph stores leaves sorted by position, and `selected` indexes that sorted list.
    const std::vector<Index> sorted = leaves_by_position(rg);
    for (Index k : sel) {
      const auto l = static_cast<size_t>(sorted[static_cast<size_t>(k)]);
      ro.ilocal.push_back(rg.leaf_position(static_cast<Index>(l)));
      ro.remote_rank.push_back(rg.remote_rank[l]);
      ro.remote_index.push_back(rg.remote_index[l]);
    }
    ro.normalize_ilocal();
  }
  return out;
}

Graph inverse(const Graph& g) {
  // PetscSFCreateInverseSF: root (s, i) becomes a leaf at position i of rank s, attached to the old
  // leaf's position. A root with several leaves keeps the one PETSc's MPI_REPLACE reduce writes
  // last: leaves are applied self first, then by ascending remote rank, each by ascending position.
  struct Writer {
    Remote src;
    int order_rank = -2;  // -1 for self, the rank otherwise
    Index position = -1;
  };
  std::vector<std::vector<Writer>> source(static_cast<size_t>(g.nranks));
  for (int s = 0; s < g.nranks; ++s) source[static_cast<size_t>(s)].assign(static_cast<size_t>(g[s].nroots), Writer{});
  for (int r = 0; r < g.nranks; ++r) {
    const RankGraph& rg = g[r];
    for (Index j = 0; j < rg.nleaves(); ++j) {
      const int s = rg.remote_rank[static_cast<size_t>(j)];
      Writer& w = source[static_cast<size_t>(s)][static_cast<size_t>(rg.remote_index[static_cast<size_t>(j)])];
      const int ord = r == s ? -1 : r;
      const Index pos = rg.leaf_position(j);
      if (ord > w.order_rank || (ord == w.order_rank && pos > w.position)) w = {{r, pos}, ord, pos};
    }
  }
  Graph out(g.nranks);
  for (int s = 0; s < g.nranks; ++s) {
    RankGraph& ro = out[s];
    ro.nroots = g[s].leafspace();
    ro.has_ilocal = true;
    const auto& src = source[static_cast<size_t>(s)];
    for (size_t i = 0; i < src.size(); ++i) {
      if (src[i].src.rank < 0) continue;
      ro.ilocal.push_back(static_cast<Index>(i));
      ro.remote_rank.push_back(src[i].src.rank);
      ro.remote_index.push_back(src[i].src.index);
    }
    ro.normalize_ilocal();
  }
  return out;
}

Graph concatenate(const std::vector<const Graph*>& inputs, bool shared_roots) {
  if (inputs.empty()) throw GraphError("concatenate: needs at least one input SF");
  const int n = inputs.front()->nranks;
  for (const Graph* in : inputs) require_same_nranks(*inputs.front(), *in, "concatenate");
  Graph out(n);
  for (int r = 0; r < n; ++r) {
    RankGraph& ro = out[r];
    ro.has_ilocal = true;
    if (shared_roots) {
      ro.nroots = (*inputs.front())[r].nroots;
      for (size_t s = 1; s < inputs.size(); ++s)
        if ((*inputs[s])[r].nroots != ro.nroots)
          throw GraphError("concatenate: with shared roots every input needs the same nroots, but input " + std::to_string(s) + " has " +
                           std::to_string((*inputs[s])[r].nroots) + " on " + rank_str(r) + " where input 0 has " +
                           std::to_string(ro.nroots));
    } else {
      ro.nroots = 0;
      for (const Graph* in : inputs) ro.nroots += (*in)[r].nroots;
    }
  }
  std::vector<Index> root_off(static_cast<size_t>(n), 0), leaf_off(static_cast<size_t>(n), 0);
  for (const Graph* in : inputs) {
    for (int r = 0; r < n; ++r) {
      const RankGraph& rg = (*in)[r];
      RankGraph& ro = out[r];
      for (Index j = 0; j < rg.nleaves(); ++j) {
        const int s = rg.remote_rank[static_cast<size_t>(j)];
        ro.ilocal.push_back(rg.leaf_position(j) + leaf_off[static_cast<size_t>(r)]);
        ro.remote_rank.push_back(s);
        ro.remote_index.push_back(rg.remote_index[static_cast<size_t>(j)] + (shared_roots ? 0 : root_off[static_cast<size_t>(s)]));
      }
    }
    for (int r = 0; r < n; ++r) {
      root_off[static_cast<size_t>(r)] += (*in)[r].nroots;
      leaf_off[static_cast<size_t>(r)] += (*in)[r].leafspace();
    }
  }
  for (auto& ro : out.ranks) ro.normalize_ilocal();
  return out;
}

namespace {
constexpr std::array<Named<Pattern>, 3> kPatternNames{
    {{Pattern::allgather, "allgather"}, {Pattern::gather, "gather"}, {Pattern::alltoall, "alltoall"}}};
}  // namespace

bool parse_pattern(std::string_view s, Pattern& out) { return parse_name(s, kPatternNames, out); }
const char* pattern_name(Pattern p) { return name_of(p, kPatternNames); }

Graph pattern_graph(Pattern p, const std::vector<Index>& nroots) {
  const int n = static_cast<int>(nroots.size());
  Graph g(n);
  for (int r = 0; r < n; ++r) {
    if (nroots[static_cast<size_t>(r)] < 0) throw GraphError("pattern: negative nroots on " + rank_str(r));
    g[r].nroots = nroots[static_cast<size_t>(r)];
  }
  if (p == Pattern::alltoall) {
    for (int r = 0; r < n; ++r) {
      if (nroots[static_cast<size_t>(r)] != n)
        throw GraphError("pattern alltoall: " + rank_str(r) + " has " + std::to_string(nroots[static_cast<size_t>(r)]) +
                         " roots, alltoall needs nranks = " + std::to_string(n));
      for (int j = 0; j < n; ++j) g[r].add_leaf(j, j, r);
    }
    return g;
  }
  for (int r = 0; r < n; ++r) {
    if (p == Pattern::gather && r != 0) continue;
    for (int s = 0; s < n; ++s)
      for (Index i = 0; i < nroots[static_cast<size_t>(s)]; ++i) g[r].add_leaf(g[r].nleaves(), s, i);
  }
  return g;
}

Graph layout_graph(const std::vector<Index>& layout, const std::vector<LayoutRank>& ranks) {
  const int n = static_cast<int>(ranks.size());
  if (static_cast<int>(layout.size()) != n + 1)
    throw GraphError("layout has " + std::to_string(layout.size()) + " entries, expected nranks+1 = " + std::to_string(n + 1));
  Graph g(n);
  for (int r = 0; r < n; ++r) g[r].nroots = layout[static_cast<size_t>(r) + 1] - layout[static_cast<size_t>(r)];
  for (int r = 0; r < n; ++r) {
    const LayoutRank& lr = ranks[static_cast<size_t>(r)];
    RankGraph& rg = g[r];
    rg.has_ilocal = lr.has_ilocal;
    rg.ilocal = lr.ilocal;
    rg.remote_rank.reserve(lr.global.size());
    rg.remote_index.reserve(lr.global.size());
    for (Index gi : lr.global) {
      // Owner: the last rank p with layout[p] <= gi (skips ranks that own nothing).
      const auto it = std::upper_bound(layout.begin(), layout.end(), gi);
      const int p = static_cast<int>(it - layout.begin()) - 1;
      rg.remote_rank.push_back(p);
      rg.remote_index.push_back(gi - layout[static_cast<size_t>(p)]);
    }
  }
  return g;
}

}  // namespace sfr::core
