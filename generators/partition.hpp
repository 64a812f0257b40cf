// Row partitions of a sparse matrix: which rows each rank owns, as a renumbering that makes every
// rank's rows contiguous (like the global numbering of a distributed PETSc matrix).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "matrix.hpp"

namespace sfr::gen {

enum class PartitionKind { rows, nnz, metis, rcm };
PartitionKind parse_partition(const std::string& s);  // InputError("--partition", ...) on unknown names
const char* partition_name(PartitionKind k);

struct RowPartition {
  std::vector<Index> perm;    // new row number -> original row number (identity for rows/nnz)
  std::vector<Index> layout;  // rank p owns new rows layout[p]..layout[p+1]-1
  bool identity() const;
};

// rows: PetscSplitOwnership of the rows. nnz: contiguous blocks with about nnz/P stored entries each.
// metis: METIS k-way on the graph of A + A^T (no self loops), seeded; rows sorted by (part, row).
// rcm: Boost.Graph reverse Cuthill-McKee ordering of A + A^T, then contiguous blocks as `rows`.
// metis and rcm need a square matrix. Every rank gets at least one row when P <= nrows (rows, rcm,
// nnz); METIS may leave a part empty.
RowPartition partition_rows(const CsrPattern& a, int nranks, PartitionKind kind, std::uint64_t seed);

}  // namespace sfr::gen
