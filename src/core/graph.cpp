#include "core/graph.hpp"

#include <algorithm>
#include <string>

#include "core/error.hpp"

namespace sfr::core {

Index RankGraph::leafspace() const {
  if (remote_rank.empty()) return 0;
  if (!has_ilocal) return nleaves();
  return *std::max_element(ilocal.begin(), ilocal.end()) + 1;
}

void RankGraph::add_leaf(Index position, int rank, Index index) {
  if (!has_ilocal && position != nleaves()) {
    has_ilocal = true;
    ilocal.resize(remote_rank.size());
    for (size_t j = 0; j < ilocal.size(); ++j) ilocal[j] = static_cast<Index>(j);
  }
  if (has_ilocal) ilocal.push_back(position);
  remote_rank.push_back(rank);
  remote_index.push_back(index);
}

void RankGraph::normalize_ilocal() {
  if (!has_ilocal) return;
  for (size_t j = 0; j < ilocal.size(); ++j)
    if (ilocal[j] != static_cast<Index>(j)) return;
  has_ilocal = false;
  ilocal.clear();
}

bool RankGraph::operator==(const RankGraph& o) const {
  if (nroots != o.nroots || remote_rank != o.remote_rank || remote_index != o.remote_index) return false;
  for (Index j = 0; j < nleaves(); ++j)
    if (leaf_position(j) != o.leaf_position(j)) return false;
  return true;
}

Index Graph::total_roots() const {
  Index n = 0;
  for (const auto& r : ranks) n += r.nroots;
  return n;
}

Index Graph::total_leaves() const {
  Index n = 0;
  for (const auto& r : ranks) n += r.nleaves();
  return n;
}

void check_graph(const Graph& g) {
  if (g.nranks != static_cast<int>(g.ranks.size()))
    throw GraphError("graph has " + std::to_string(g.ranks.size()) + " rank entries, expected " + std::to_string(g.nranks));
  for (int r = 0; r < g.nranks; ++r) {
    const RankGraph& rg = g[r];
    const std::string at = "rank " + std::to_string(r);
    if (rg.nroots < 0) throw GraphError(at + ": negative nroots");
    if (rg.remote_index.size() != rg.remote_rank.size()) throw GraphError(at + ": remote_rank and remote_index lengths differ");
    if (rg.has_ilocal && rg.ilocal.size() != rg.remote_rank.size()) throw GraphError(at + ": ilocal and remote_rank lengths differ");
    for (Index j = 0; j < rg.nleaves(); ++j) {
      const int s = rg.remote_rank[static_cast<size_t>(j)];
      const Index i = rg.remote_index[static_cast<size_t>(j)];
      if (s < 0 || s >= g.nranks)
        throw GraphError(at + " leaf " + std::to_string(j) + ": remote rank " + std::to_string(s) + " out of range");
      if (i < 0 || i >= g[s].nroots)
        throw GraphError(at + " leaf " + std::to_string(j) + ": remote index " + std::to_string(i) + " out of range [0," +
                         std::to_string(g[s].nroots) + ") of rank " + std::to_string(s));
    }
    if (rg.has_ilocal) {
      std::vector<Index> pos(rg.ilocal);
      std::sort(pos.begin(), pos.end());
      if (!pos.empty() && pos.front() < 0) throw GraphError(at + ": negative leaf position");
      if (std::adjacent_find(pos.begin(), pos.end()) != pos.end()) throw GraphError(at + ": duplicate leaf position");
    }
  }
}

std::vector<std::vector<Index>> root_degrees(const Graph& g) {
  std::vector<std::vector<Index>> deg(static_cast<size_t>(g.nranks));
  for (int r = 0; r < g.nranks; ++r) deg[static_cast<size_t>(r)].assign(static_cast<size_t>(g[r].nroots), 0);
  for (const auto& rg : g.ranks)
    for (size_t j = 0; j < rg.remote_rank.size(); ++j)
      ++deg[static_cast<size_t>(rg.remote_rank[j])][static_cast<size_t>(rg.remote_index[j])];
  return deg;
}

}  // namespace sfr::core
