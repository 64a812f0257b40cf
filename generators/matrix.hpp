// Sparse matrix structure (pattern only: the SFs depend on where the nonzeros are, not their values).
#pragma once

#include <string>
#include <vector>

#include "core/graph.hpp"

namespace sfr::gen {

using core::Index;

// Compressed sparse rows: columns of row i are cols[rowptr[i]..rowptr[i+1]), ascending, no duplicates.
struct CsrPattern {
  Index nrows = 0, ncols = 0;
  std::vector<Index> rowptr{0};
  std::vector<Index> cols;
  bool complex = false;  // the file held complex values (the trace then uses complex128 ops)
  Index nnz() const { return static_cast<Index>(cols.size()); }
};

// Reads a Matrix Market file through CHOLMOD (pattern, integer, real, complex; general, symmetric,
// skew-symmetric and Hermitian are expanded to the full pattern; rectangular allowed), or a
// Rutherford-Boeing file through RBio (any file not starting with "%%MatrixMarket").
// Throws InputError naming the file on a missing or malformed file.
CsrPattern read_matrix(const std::string& path);

// The 7-point Laplacian pattern of an nx*ny*nz grid (natural x-fastest order, Dirichlet: no wrap).
CsrPattern laplacian7(Index nx, Index ny, Index nz);

// Pattern of A with rows and columns renumbered: new row i is old row perm[i], old column j becomes
// column iperm[j] (square matrices only; perm is new -> old).
CsrPattern permute_symmetric(const CsrPattern& a, const std::vector<Index>& perm);

}  // namespace sfr::gen
