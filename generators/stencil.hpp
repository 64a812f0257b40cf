// Structured-grid ghost update (PETSc DMDA's global-to-local scatter) on a 1-3D grid.
#pragma once

#include <array>
#include <string>
#include <utility>
#include <vector>

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

// A DMDA's ownership of its grid (DMSetUp_DA's default split): per dimension the first M % P ranks
// own one more point; rank (px,py,pz) = px + Px*(py + Py*pz); a rank's points are numbered x
// fastest inside its block. Shared by the ghost update and the MatMult scatter.
class GridLayout {
public:
  explicit GridLayout(const StencilOptions& o);
  int nranks() const { return procs_[0] * procs_[1] * procs_[2]; }
  std::array<int, 3> coords(int rank) const { return {rank % procs_[0], (rank / procs_[0]) % procs_[1], rank / (procs_[0] * procs_[1])}; }
  int rank(const std::array<int, 3>& p) const { return p[0] + procs_[0] * (p[1] + procs_[1] * p[2]); }
  Index lo(std::size_t d, int p) const { return lay_[d][static_cast<std::size_t>(p)]; }
  Index hi(std::size_t d, int p) const { return lay_[d][static_cast<std::size_t>(p) + 1]; }
  Index owned(int rank) const;  // points of its block
  // The rank owning a grid point (inside the grid) and the point's index in that rank's block.
  std::pair<int, Index> locate(const std::array<Index, 3>& point) const;

private:
  std::array<int, 3> procs_;
  std::array<std::vector<Index>, 3> lay_;    // per dimension: split_ownership
  std::array<std::vector<int>, 3> owner_;    // per dimension and grid index: the process coordinate
};

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
