// Derived star forests with PETSc 3.18 semantics (PetscSFGetMultiSF, PetscSFCompose,
// PetscSFComposeInverse, PetscSFCreateEmbeddedRootSF/LeafSF, PetscSFCreateInverseSF,
// PetscSFConcatenate, PetscSFSetGraphWithPattern, PetscSFSetGraphLayout).
// All functions take and return whole graphs (all ranks); they throw GraphError on graphs the
// operation is not defined for. src/trace/README.md ("Semantics") has the exact rules.
#pragma once

#include <string_view>
#include <vector>

#include "core/graph.hpp"

namespace sfr::core {

// Multi-SF: every leaf gets a root of its own. Rank r has sum(deg) multi-roots, numbered root by
// root; the leaves of one root are ordered by (leaf rank, leaf position). Leaves keep their
// positions.
Graph multi_sf(const Graph& g);

// sfBA = B o A ("B under A"): B's roots on rank r are A's leaf positions on r. A leaf of B whose
// root is an A-leaf position connects to that A-leaf's root; otherwise it is dropped.
Graph compose(const Graph& a, const Graph& b);

// A and B share leaf positions (bcast on the result = bcast on A, then reduce on B). Result: A's
// roots; a leaf at position i of rank s for every root (s, i) of B reached by a B leaf that sits at
// an A leaf position, attached to that A leaf's root. Several candidates: MPI_MAXLOC on
// (rank, index), i.e. largest rank, then smallest index (as PETSc).
Graph compose_inverse(const Graph& a, const Graph& b);

// Keeps only the leaves attached to the selected roots (per rank, any order, duplicates allowed).
Graph embed_roots(const Graph& g, const std::vector<std::vector<Index>>& selected);
// Keeps only the selected leaves: indices 0..nleaves-1 into each rank's leaf list sorted by leaf
// position (PETSc stores leaves sorted by ilocal); duplicates removed.
Graph embed_leaves(const Graph& g, const std::vector<std::vector<Index>>& selected);

// Roots become leaves and leaves roots; nroots = the leaf space. A root with several leaves keeps
// the leaf PETSc's REPLACE reduce writes last (self first, then ascending remote rank, each by
// ascending position).
Graph inverse(const Graph& g);

// Concatenation: leaves of input s on rank r are shifted by the running sum of the inputs' leaf
// spaces on r. With shared roots all inputs must have the same nroots per rank; otherwise each
// rank's roots are the concatenation of the inputs' roots (in input order).
Graph concatenate(const std::vector<const Graph*>& inputs, bool shared_roots);

enum class Pattern { allgather, gather, alltoall };
bool parse_pattern(std::string_view s, Pattern& out);
const char* pattern_name(Pattern p);
// nroots[r] roots on rank r (alltoall requires nroots[r] == nranks).
Graph pattern_graph(Pattern p, const std::vector<Index>& nroots);

// PetscSFSetGraphLayout: rank p owns global roots layout[p]..layout[p+1]-1.
struct LayoutRank {
  bool has_ilocal = false;
  std::vector<Index> ilocal;
  std::vector<Index> global;
};
Graph layout_graph(const std::vector<Index>& layout, const std::vector<LayoutRank>& ranks);

}  // namespace sfr::core
