// A PETSc 3.18 DMDA at any rank count: the process grid DMSetUp_DA_2D/3D chooses for it, and the
// two SFs PETSc builds on that grid: the global-to-local scatter (stencil_graph) and the MatMult
// scatter of the AIJ matrix DMCreateMatrix makes from it. `scale` regenerates captured SFs with these.
#pragma once

#include <array>
#include <string>

#include "generators/stencil.hpp"

namespace sfr::gen {

// What DMDAGetInfo says of a DMDA, less its process grid (the capture's meta.sfs[i].built_by.dmda).
struct DmdaShape {
  int dim = 2;
  std::array<Index, 3> sizes{1, 1, 1};  // M, N, P (unused dimensions: 1)
  int dof = 1;
  StencilKind stencil = StencilKind::star;
  int width = 1;
  std::array<bool, 3> periodic{false, false, false};
};

// The process grid PETSc chooses for `nranks` when the application leaves every dimension to it
// (PETSC_DECIDE): DMSetUp_DA_1D/2D/3D's "squarish" search. InputError (where `option`) when PETSc
// would refuse the split: a dimension with fewer points than processes, or a rank owning fewer
// points than the stencil width.
std::array<int, 3> dmda_processes(const DmdaShape& s, int nranks, const char* option);

// A process grid in words: "3 x 3" (2-D), "3 x 1 x 3" (3-D).
std::string grid_text(const std::array<int, 3>& procs, int dim);

// The generator options of that DMDA on a given process grid (its ghost update: stencil_graph).
StencilOptions dmda_stencil(const DmdaShape& s, const std::array<int, 3>& procs);

// The MatMult scatter (MatSetUpMultiply_MPIAIJ's Mvctx) of the AIJ matrix DMCreateMatrix preallocates
// and fills with zeros on the stencil: per rank, roots = its owned values (points x dof, PETSc's
// order); leaves 0..n-1 = every off-rank column its rows touch (a point within the stencil of an
// owned point, all dof components of it), in increasing global column order (PETSc's garray).
core::Graph dmda_matmult_graph(const StencilOptions& o);

}  // namespace sfr::gen
