// SpMV ghost-exchange SF of a distributed CSR matrix (PETSc MPIAIJ's Mvctx).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common.hpp"
#include "matrix.hpp"
#include "partition.hpp"

namespace sfr::gen {

struct SpmvSF {
  CsrPattern matrix;                          // the matrix in the distributed numbering (rows permuted)
  std::vector<Index> perm;                    // distributed row (and column, if square) -> original
  std::vector<Index> row_layout, col_layout;  // ownership of rows (y) and of columns (x)
  std::vector<std::vector<Index>> garray;     // per rank: off-rank global columns, ascending (= leaves)
  core::Graph graph;                          // roots: owned x entries; leaf j of rank r: x[garray[r][j]]
};

// Column layout: the row layout for square matrices, PetscSplitOwnership(ncols) otherwise.
SpmvSF build_spmv(const CsrPattern& a, int nranks, PartitionKind kind, std::uint64_t seed);

struct SpmvOptions {
  std::string matrix_path;  // empty: use `matrix` as given (e.g. built in memory)
  int nranks = 1;
  PartitionKind partition = PartitionKind::rows;
  std::uint64_t seed = 1;
  Placement place;
};
// Trace with SF "Mvctx" (a layout SF, as PetscSFSetGraphLayout builds it) and the ops of MatMult
// (bcast, replace) and MatMultTranspose (reduce, sum); complex128 for complex matrices.
trace::Trace spmv_trace(const SpmvOptions& o);
trace::Trace spmv_trace(const SpmvOptions& o, const CsrPattern& a, const std::string& matrix_name);

}  // namespace sfr::gen
