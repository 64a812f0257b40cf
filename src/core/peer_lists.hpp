// The per-rank peer lists (core::RankLists) every executor backend and the simulator share: for one rank,
// the remote peers on the root side and on the leaf side with CSR-style index lists, the self part
// split off, and the shape of each index list (contiguous, strided, 3-D sub-block) detected once.
//
// Matching rule: element k of rank r's leaf-side list for peer s pairs with element k of rank s's
// root-side list for peer r. Lists (and the self part) follow the leaf rank's leaves in ascending
// leaf position, PETSc's stored order, so applying them in peer order reproduces PETSc's
// application order (self first, then ascending rank, each by position).
#pragma once

#include <span>
#include <vector>

#include "core/graph.hpp"

namespace sfr::core {

// Shape of an index list, so that packing can skip the index loop.
struct IndexShape {
  enum Kind { empty, contiguous, strided, block3d, general };
  Kind kind = empty;
  Index start = 0;
  Index count = 0;
  // strided: start + k*stride. block3d: start + x + dx_stride*y + dxy_stride*z, x<nx, y<ny, z<nz.
  Index stride = 0;
  Index nx = 0, ny = 0, nz = 0;
  Index y_stride = 0, z_stride = 0;

  Index at(Index k) const;  // the k-th index (not for general)
};
IndexShape classify_indices(std::span<const Index> idx);
const char* shape_name(IndexShape::Kind k);

struct PeerLists {
  std::vector<int> peers;          // remote ranks, ascending
  std::vector<Index> offsets;      // size peers+1
  std::vector<Index> indices;      // concatenated per-peer index lists
  std::vector<IndexShape> shapes;  // one per peer

  std::size_t npeers() const { return peers.size(); }
  std::span<const Index> list(std::size_t p) const {
    return {indices.data() + offsets[p], static_cast<std::size_t>(offsets[p + 1] - offsets[p])};
  }
  Index count(std::size_t p) const { return offsets[p + 1] - offsets[p]; }
};

struct RankLists {
  int rank = 0;
  Index nroots = 0;
  Index leafspace = 0;
  PeerLists root_side;             // peers holding leaves of my roots; indices are my root indices
  PeerLists leaf_side;             // peers owning roots of my leaves; indices are my leaf positions
  std::vector<Index> leaf_remote;  // parallel to leaf_side.indices: the root index on that peer
  std::vector<Index> self_roots;   // self part: self_leaves[k] <- self_roots[k]
  std::vector<Index> self_leaves;
};

// Plans of all ranks at once (O(edges)).
std::vector<RankLists> build_rank_lists(const Graph& g);
// Plan of one rank, from the whole graph (no communication needed: traces hold every rank).
RankLists build_rank_lists(const Graph& g, int rank);

}  // namespace sfr::core
