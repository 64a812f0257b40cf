#include "core/peer_lists.hpp"

#include <algorithm>

#include "core/kernels.hpp"
#include "core/names.hpp"

namespace sfr::core {

// (One k-th index computation for host and device: IndexView's.)
Index IndexShape::at(Index k) const { return kind == general || kind == empty ? -1 : index_view(*this, nullptr).at(k); }

namespace {
constexpr std::array<Named<IndexShape::Kind>, 5> kShapeNames{{{IndexShape::empty, "empty"},
                                                              {IndexShape::contiguous, "contiguous"},
                                                              {IndexShape::strided, "strided"},
                                                              {IndexShape::block3d, "block3d"},
                                                              {IndexShape::general, "general"}}};
}  // namespace

const char* shape_name(IndexShape::Kind k) { return name_of(k, kShapeNames); }

IndexShape classify_indices(std::span<const Index> idx) {
  IndexShape s;
  const Index n = static_cast<Index>(idx.size());
  s.count = n;
  if (n == 0) return s;
  s.start = idx[0];
  // Length of the leading contiguous run.
  Index nx = 1;
  while (nx < n && idx[static_cast<size_t>(nx)] == idx[0] + nx) ++nx;
  if (nx == n) {
    s.kind = IndexShape::contiguous;
    return s;
  }
  auto verify = [&](const IndexShape& c) {
    for (Index k = 0; k < n; ++k)
      if (c.at(k) != idx[static_cast<size_t>(k)]) return false;
    return true;
  };
  if (nx == 1) {
    const Index stride = idx[1] - idx[0];
    if (stride > 1) {
      IndexShape c = s;
      c.kind = IndexShape::strided;
      c.stride = stride;
      if (verify(c)) return c;
    }
  } else if (n % nx == 0) {
    const Index rows = n / nx;
    const Index ys = idx[static_cast<size_t>(nx)] - idx[0];
    if (ys >= nx) {
      Index ny = 1;
      while (ny < rows && idx[static_cast<size_t>(ny * nx)] == idx[0] + ny * ys) ++ny;
      if (rows % ny == 0) {
        IndexShape c = s;
        c.kind = IndexShape::block3d;
        c.nx = nx;
        c.ny = ny;
        c.nz = rows / ny;
        c.y_stride = ys;
        c.z_stride = c.nz > 1 ? idx[static_cast<size_t>(ny * nx)] - idx[0] : ys * ny;
        if (c.z_stride >= ys * ny && verify(c)) return c;
      }
    }
  }
  s.kind = IndexShape::general;
  return s;
}

namespace {

// Leaf indices in ascending position order (PETSc's stored leaf order).
std::vector<Index> position_order(const RankGraph& rg) {
  std::vector<Index> order(static_cast<size_t>(rg.nleaves()));
  for (size_t j = 0; j < order.size(); ++j) order[j] = static_cast<Index>(j);
  if (rg.has_ilocal && !std::is_sorted(rg.ilocal.begin(), rg.ilocal.end()))
    std::sort(order.begin(), order.end(),
              [&](Index a, Index b) { return rg.ilocal[static_cast<size_t>(a)] < rg.ilocal[static_cast<size_t>(b)]; });
  return order;
}

void finish_shapes(PeerLists& p) {
  p.shapes.clear();
  for (size_t k = 0; k < p.npeers(); ++k) p.shapes.push_back(classify_indices(p.list(k)));
}

}  // namespace

std::vector<RankLists> build_rank_lists(const Graph& g) {
  const int n = g.nranks;
  std::vector<RankLists> rank_lists(static_cast<size_t>(n));
  // Edge counts per (leaf rank r, root rank s), remote only, gathered per root rank.
  // root_cnt[s] : map leaf rank -> count (dense per root rank would be O(n^2); use sorted vectors).
  std::vector<std::vector<std::pair<int, Index>>> root_peers(static_cast<size_t>(n));  // (leaf rank, count)
  for (int r = 0; r < n; ++r) {
    const RankGraph& rg = g[r];
    RankLists& pl = rank_lists[static_cast<size_t>(r)];
    pl.rank = r;
    pl.nroots = rg.nroots;
    pl.leafspace = rg.leafspace();
    // Leaf side: count per remote rank.
    std::vector<std::pair<int, Index>> cnt;  // (rank, count), built via sort of ranks
    std::vector<int> rks;
    rks.reserve(rg.remote_rank.size());
    for (int s : rg.remote_rank)
      if (s != r) rks.push_back(s);
    std::sort(rks.begin(), rks.end());
    PeerLists& ls = pl.leaf_side;
    ls.offsets.push_back(0);
    for (size_t k = 0; k < rks.size();) {
      size_t e = k;
      while (e < rks.size() && rks[e] == rks[k]) ++e;
      ls.peers.push_back(rks[k]);
      ls.offsets.push_back(ls.offsets.back() + static_cast<Index>(e - k));
      root_peers[static_cast<size_t>(rks[k])].push_back({r, static_cast<Index>(e - k)});
      k = e;
    }
    ls.indices.resize(static_cast<size_t>(ls.offsets.back()));
    pl.leaf_remote.resize(ls.indices.size());
    std::vector<Index> fill(ls.offsets.begin(), ls.offsets.end() - 1);
    for (Index j : position_order(rg)) {
      const int s = rg.remote_rank[static_cast<size_t>(j)];
      if (s == r) {
        pl.self_leaves.push_back(rg.leaf_position(j));
        pl.self_roots.push_back(rg.remote_index[static_cast<size_t>(j)]);
        continue;
      }
      const size_t p = static_cast<size_t>(std::lower_bound(ls.peers.begin(), ls.peers.end(), s) - ls.peers.begin());
      pl.leaf_remote[static_cast<size_t>(fill[p])] = rg.remote_index[static_cast<size_t>(j)];
      ls.indices[static_cast<size_t>(fill[p]++)] = rg.leaf_position(j);
    }
  }
  // Root side: leaf ranks in ascending order (r loop above was ascending, so lists are sorted).
  for (int s = 0; s < n; ++s) {
    PeerLists& rs = rank_lists[static_cast<size_t>(s)].root_side;
    rs.offsets.push_back(0);
    for (auto [r, c] : root_peers[static_cast<size_t>(s)]) {
      rs.peers.push_back(r);
      rs.offsets.push_back(rs.offsets.back() + c);
    }
    rs.indices.resize(static_cast<size_t>(rs.offsets.back()));
  }
  std::vector<std::vector<Index>> rfill(static_cast<size_t>(n));
  for (int s = 0; s < n; ++s) {
    const PeerLists& rs = rank_lists[static_cast<size_t>(s)].root_side;
    rfill[static_cast<size_t>(s)].assign(rs.offsets.begin(), rs.offsets.end() - 1);
  }
  for (int r = 0; r < n; ++r) {
    const RankGraph& rg = g[r];
    for (Index j : position_order(rg)) {
      const int s = rg.remote_rank[static_cast<size_t>(j)];
      if (s == r) continue;
      RankLists& ps = rank_lists[static_cast<size_t>(s)];
      const size_t p =
          static_cast<size_t>(std::lower_bound(ps.root_side.peers.begin(), ps.root_side.peers.end(), r) - ps.root_side.peers.begin());
      ps.root_side.indices[static_cast<size_t>(rfill[static_cast<size_t>(s)][p]++)] = rg.remote_index[static_cast<size_t>(j)];
    }
  }
  for (auto& pl : rank_lists) {
    finish_shapes(pl.leaf_side);
    finish_shapes(pl.root_side);
  }
  return rank_lists;
}

RankLists build_rank_lists(const Graph& g, int rank) {
  // Leaf side only needs this rank's leaves; root side needs every rank's leaves pointing here.
  RankLists pl;
  const RankGraph& rg = g[rank];
  pl.rank = rank;
  pl.nroots = rg.nroots;
  pl.leafspace = rg.leafspace();
  Graph sub(g.nranks);
  // Build from a reduced graph: only edges touching `rank` matter.
  for (int r = 0; r < g.nranks; ++r) {
    sub[r].nroots = g[r].nroots;
    const RankGraph& gr = g[r];
    for (Index j = 0; j < gr.nleaves(); ++j) {
      const int s = gr.remote_rank[static_cast<size_t>(j)];
      if (r == rank || s == rank) {
        sub[r].has_ilocal = true;
        sub[r].ilocal.push_back(gr.leaf_position(j));
        sub[r].remote_rank.push_back(s);
        sub[r].remote_index.push_back(gr.remote_index[static_cast<size_t>(j)]);
      }
    }
  }
  auto rank_lists = build_rank_lists(sub);
  pl.root_side = std::move(rank_lists[static_cast<size_t>(rank)].root_side);
  pl.leaf_side = std::move(rank_lists[static_cast<size_t>(rank)].leaf_side);
  pl.leaf_remote = std::move(rank_lists[static_cast<size_t>(rank)].leaf_remote);
  pl.self_roots = std::move(rank_lists[static_cast<size_t>(rank)].self_roots);
  pl.self_leaves = std::move(rank_lists[static_cast<size_t>(rank)].self_leaves);
  return pl;
}

}  // namespace sfr::core
