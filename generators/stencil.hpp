// Structured-grid ghost update (PETSc DMDA's global-to-local scatter) on a 1-3D grid.
#pragma once

#include <array>
#include <string>

#include "common.hpp"

namespace sfr::gen {

enum class StencilKind { star, box };

struct StencilOptions {
  int dims = 2;
  std::array<Index, 3> size{1, 1, 1};  // grid points per dimension (unused dimensions: 1)
  std::array<int, 3> procs{1, 1, 1};   // ranks per dimension; nranks = product
  int dof = 1;                         // values per grid point (the ops' block size)
  StencilKind stencil = StencilKind::star;
  int width = 1;  // stencil width
  std::array<bool, 3> periodic{false, false, false};
  Placement place;
};

// Checks the options like DMSetUp_DA (InputError naming the option): sizes and procs >= 1, procs
// not larger than the grid, every rank's owned extent >= width in each used dimension.
void check_stencil(const StencilOptions& o);

// Roots of rank r: its owned grid points in PETSc's global order (rank blocks in rank order, rank
// (px,py,pz) = px + Px*(py + Py*pz), x fastest inside a block; per dimension the first M % P ranks
// own one more point). Leaves of rank r: its local (ghosted) array, the box [s-w, e+w) per dimension
// (clipped to the grid when not periodic, wrapped when periodic), x fastest, owned points included;
// with a star stencil the points outside the owned box in more than one dimension are holes.
core::Graph stencil_graph(const StencilOptions& o);

// SF "gtol" with ops bcast/replace (DMGlobalToLocal) and reduce/sum (DMLocalToGlobal ADD_VALUES),
// unit float64, bs = dof.
trace::Trace stencil_trace(const StencilOptions& o);

// Parsers for the CLI forms "NxMxK" (exactly `dims` numbers) and "x,y,z" / "all" / "none".
std::array<Index, 3> parse_extent(const std::string& option, const std::string& s, int dims);
std::array<bool, 3> parse_periodic(const std::string& s, int dims);

}  // namespace sfr::gen
