#include "dmda.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace sfr::gen {

namespace {

std::string sz(Index v) { return std::to_string(v); }

// PETSc's first guess, round(x), as a count in [1, size]: a guess above size steps down through
// counts that cannot divide size (PETSc's loops would), so starting at size gives the same answer
// without a cast of a huge double to int.
int first_guess(double x, int size) { return static_cast<int>(std::clamp(0.5 + x, 1.0, static_cast<double>(size))); }

// DMSetUp_DA_2D with m = n = PETSC_DECIDE: the largest m <= round(sqrt(M size / N)) dividing size,
// then the larger count along the longer side.
std::array<int, 3> squarish_2d(Index M, Index N, int size) {
  int m = first_guess(std::sqrt(static_cast<double>(M) * size / static_cast<double>(N)), size);
  while (m > 1 && size % m != 0) --m;
  int n = size / m;
  if (M > N && m < n) std::swap(m, n);
  return {m, n, 1};
}

// DMSetUp_DA_3D with m = n = p = PETSC_DECIDE: n first (a divisor of size near cbrt(N^2 size /
// (P M))), then m (near sqrt(M size / (P n)), stepping down until m n divides size), p the rest;
// then the larger of m and p along x when M > P. The search is PETSc's, step for step.
std::array<int, 3> squarish_3d(Index M, Index N, Index P, int size) {
  const double dM = static_cast<double>(M), dN = static_cast<double>(N), dP = static_cast<double>(P);
  int n = first_guess(std::pow(dN * dN * size / (dP * dM), 1.0 / 3.0), size);  // pow, as PETSc: not cbrt, which rounds otherwise
  while (n > 1 && size % n != 0) --n;
  int m = first_guess(std::sqrt(dM * size / (dP * n)), size);
  int p = 0;
  for (; m > 0; --m) {
    p = static_cast<int>(size / (static_cast<long long>(m) * n));
    if (static_cast<long long>(m) * n * p == size) break;
  }
  if (M > P && m < p) std::swap(m, p);
  return {m, n, p};
}

}  // namespace

std::string grid_text(const std::array<int, 3>& procs, int dim) {
  return sz(procs[0]) + " x " + sz(procs[1]) + (dim == 3 ? " x " + sz(procs[2]) : "");
}

std::array<int, 3> dmda_processes(const DmdaShape& s, int nranks, const char* option) {
  if (s.dim != 2 && s.dim != 3) throw InputError(option, "a " + sz(s.dim) + "-D DMDA is not regenerated (2-D and 3-D are)");
  if (nranks < 1) throw InputError(option, "must be at least 1");
  const auto procs = s.dim == 2 ? squarish_2d(s.sizes[0], s.sizes[1], nranks) : squarish_3d(s.sizes[0], s.sizes[1], s.sizes[2], nranks);
  if (procs[0] * procs[1] * procs[2] != nranks)
    throw InputError(option, "PETSc finds no process grid for " + sz(nranks) + " ranks (" + sz(procs[0]) + " x " + sz(procs[1]) + " x " +
                                 sz(procs[2]) + ")");
  const std::string grid = grid_text(procs, s.dim);
  for (std::size_t d = 0; d < static_cast<std::size_t>(s.dim); ++d) {
    if (s.sizes[d] < procs[d])
      throw InputError(option, "PETSc splits " + sz(nranks) + " ranks as " + grid + ", more than the " + sz(s.sizes[d]) +
                                   " grid points in dimension " + "xyz"[d] + " (PETSc: partition too fine)");
    if (s.sizes[d] / procs[d] < s.width && (procs[d] > 1 || s.periodic[d]))
      throw InputError(option, "PETSc splits " + sz(nranks) + " ranks as " + grid + ": a rank owns " + sz(s.sizes[d] / procs[d]) +
                                   " points in dimension " + "xyz"[d] + ", fewer than the stencil width " + sz(s.width) +
                                   " (PETSc refuses)");
  }
  return procs;
}

StencilOptions dmda_stencil(const DmdaShape& s, const std::array<int, 3>& procs) {
  StencilOptions o;
  o.dims = s.dim;
  o.size = s.sizes;
  o.procs = procs;
  o.dof = s.dof;
  o.stencil = s.stencil;
  o.width = s.width;
  o.periodic = s.periodic;
  return o;
}

namespace {

// The stencil's offsets from a point: in the used dimensions, every one within the width (box) or
// those along one axis (DMCreateMatrix's star: a column differs from its row in one dimension).
std::vector<std::array<Index, 3>> stencil_offsets(const StencilOptions& o) {
  const Index w = o.width;
  const std::array<Index, 3> reach{w, o.dims > 1 ? w : 0, o.dims > 2 ? w : 0};
  std::vector<std::array<Index, 3>> out;
  for (Index dk = -reach[2]; dk <= reach[2]; ++dk)
    for (Index dj = -reach[1]; dj <= reach[1]; ++dj)
      for (Index di = -reach[0]; di <= reach[0]; ++di)
        if (o.stencil == StencilKind::box || (di != 0) + (dj != 0) + (dk != 0) <= 1) out.push_back({di, dj, dk});
  return out;
}

// Rank r's off-rank columns as (rank, point in its block), sorted and unique: sorting these sorts
// PETSc's global column numbers, whose rank blocks increase with the rank and whose points
// increase inside a block.
std::vector<std::pair<int, Index>> off_rank_points(const StencilOptions& o, const GridLayout& layout, int r,
                                                   const std::vector<std::array<Index, 3>>& offsets) {
  const auto p = layout.coords(r);
  std::array<Index, 3> s{}, e{};
  for (std::size_t d = 0; d < 3; ++d) s[d] = layout.lo(d, p[d]), e[d] = layout.hi(d, p[d]);
  std::vector<std::pair<int, Index>> cols;
  for (Index k = s[2]; k < e[2]; ++k)
    for (Index j = s[1]; j < e[1]; ++j)
      for (Index i = s[0]; i < e[0]; ++i) {
        // Only points within the stencil width of the block's faces reach another rank.
        const std::array<Index, 3> c{i, j, k};
        bool near = false;
        for (std::size_t d = 0; d < static_cast<std::size_t>(o.dims); ++d) near = near || c[d] - s[d] < o.width || e[d] - 1 - c[d] < o.width;
        if (!near) continue;
        for (const auto& off : offsets) {
          std::array<Index, 3> to{};
          bool inside = true;
          for (std::size_t d = 0; d < 3; ++d) {
            to[d] = c[d] + off[d];
            if (o.periodic[d]) to[d] = ((to[d] % o.size[d]) + o.size[d]) % o.size[d];
            inside = inside && to[d] >= 0 && to[d] < o.size[d];
          }
          if (!inside) continue;
          const auto col = layout.locate(to);
          if (col.first != r) cols.push_back(col);
        }
      }
  std::sort(cols.begin(), cols.end());
  cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
  return cols;
}

}  // namespace

core::Graph dmda_matmult_graph(const StencilOptions& o) {
  check_stencil(o);
  const GridLayout layout(o);
  const auto offsets = stencil_offsets(o);
  const Index dof = o.dof;
  core::Graph g(layout.nranks());
  for (int r = 0; r < layout.nranks(); ++r) {
    core::RankGraph& rg = g[r];
    rg.nroots = layout.owned(r) * dof;
    Index pos = 0;
    for (const auto& [q, local] : off_rank_points(o, layout, r, offsets))
      for (Index c = 0; c < dof; ++c) rg.add_leaf(pos++, q, local * dof + c);
    rg.normalize_ilocal();
  }
  return g;
}

}  // namespace sfr::gen
