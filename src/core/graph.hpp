// The star forest graph, as PetscSF holds it: per rank, nroots roots and nleaves leaves; leaf j sits
// at local position ilocal[j] (j when ilocal is absent) and connects to root remote_index[j] of rank
// remote_rank[j]. Holds the whole graph (all ranks) because traces describe all ranks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sfr::core {

using Index = std::int64_t;

struct RankGraph {
  Index nroots = 0;
  bool has_ilocal = false;          // false: leaves sit at positions 0..nleaves-1
  std::vector<Index> ilocal;        // used only when has_ilocal
  std::vector<int> remote_rank;     // size nleaves
  std::vector<Index> remote_index;  // size nleaves

  Index nleaves() const { return static_cast<Index>(remote_rank.size()); }
  Index leaf_position(Index j) const { return has_ilocal ? ilocal[static_cast<std::size_t>(j)] : j; }
  // max(ilocal)+1, nleaves when contiguous, 0 when there are no leaves.
  Index leafspace() const;
  // Adds a leaf at `position` (switches to explicit ilocal if the position breaks contiguity).
  void add_leaf(Index position, int rank, Index index);
  // Drops ilocal when it is the identity 0..nleaves-1 (as PetscSFSetGraph does).
  void normalize_ilocal();

  bool operator==(const RankGraph& o) const;
};

struct Graph {
  int nranks = 0;
  std::vector<RankGraph> ranks;

  Graph() = default;
  explicit Graph(int n) : nranks(n), ranks(static_cast<std::size_t>(n)) {}
  RankGraph& operator[](int r) { return ranks[static_cast<std::size_t>(r)]; }
  const RankGraph& operator[](int r) const { return ranks[static_cast<std::size_t>(r)]; }

  Index total_roots() const;
  Index total_leaves() const;
  bool operator==(const Graph& o) const { return nranks == o.nranks && ranks == o.ranks; }
};

// Checks ranges and uniqueness: remote ranks in [0,nranks), remote indices in [0,nroots of that
// rank), ilocal >= 0 and without duplicates, consistent array lengths. Throws GraphError.
void check_graph(const Graph& g);

// Root degrees: deg[r][i] = number of leaves (on all ranks) attached to root i of rank r.
std::vector<std::vector<Index>> root_degrees(const Graph& g);

}  // namespace sfr::core
