#include "dmda.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace sfr::gen {

namespace {

std::string sz(Index v) { return std::to_string(v); }

// DMSetUp_DA_2D with m = n = PETSC_DECIDE: the largest m <= round(sqrt(M size / N)) dividing size,
// then the larger count along the longer side.
std::array<int, 3> squarish_2d(Index M, Index N, int size) {
  int m = static_cast<int>(0.5 + std::sqrt(static_cast<double>(M) * size / static_cast<double>(N)));
  if (m == 0) m = 1;
  while (m > 0 && size % m != 0) --m;
  int n = size / m;
  if (M > N && m < n) std::swap(m, n);
  return {m, n, 1};
}

// DMSetUp_DA_3D with m = n = p = PETSC_DECIDE: n first (a divisor of size near cbrt(N^2 size /
// (P M))), then m (a divisor of size / n near sqrt(M size / (P n))), p the rest; then the larger
// of m and p along x when M > P. The search is PETSc's, step for step.
std::array<int, 3> squarish_3d(Index M, Index N, Index P, int size) {
  const double dM = static_cast<double>(M), dN = static_cast<double>(N), dP = static_cast<double>(P);
  int n = static_cast<int>(0.5 + std::pow(dN * dN * size / (dP * dM), 1.0 / 3.0));
  if (n == 0) n = 1;
  while (n > 0 && size % n != 0) --n;
  if (n == 0) n = 1;
  int m = static_cast<int>(0.5 + std::sqrt(dM * size / (dP * n)));
  if (m == 0) m = 1;
  int p = 0;
  while (m > 0) {
    p = size / (m * n);
    if (m * n * p == size) break;
    --m;
  }
  if (M > P && m < p) std::swap(m, p);
  return {m, n, p};
}

}  // namespace

std::array<int, 3> dmda_processes(const DmdaShape& s, int nranks, const char* option) {
  if (s.dim != 2 && s.dim != 3) throw InputError(option, "a " + sz(s.dim) + "-D DMDA is not regenerated (2-D and 3-D are)");
  if (nranks < 1) throw InputError(option, "must be at least 1");
  const auto procs = s.dim == 2 ? squarish_2d(s.sizes[0], s.sizes[1], nranks) : squarish_3d(s.sizes[0], s.sizes[1], s.sizes[2], nranks);
  if (procs[0] * procs[1] * procs[2] != nranks)
    throw InputError(option, "PETSc finds no process grid for " + sz(nranks) + " ranks (" + sz(procs[0]) + " x " + sz(procs[1]) + " x " +
                                 sz(procs[2]) + ")");
  for (std::size_t d = 0; d < static_cast<std::size_t>(s.dim); ++d) {
    const std::string grid = sz(procs[0]) + " x " + sz(procs[1]) + (s.dim == 3 ? " x " + sz(procs[2]) : "");
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

core::Graph dmda_matmult_graph(const StencilOptions& o) {
  check_stencil(o);
  std::array<std::vector<Index>, 3> lay;
  for (std::size_t d = 0; d < 3; ++d) lay[d] = split_ownership(o.size[d], o.procs[d]);
  const int nranks = o.procs[0] * o.procs[1] * o.procs[2];
  auto owner = [&](std::size_t d, Index i) {
    return static_cast<int>(std::upper_bound(lay[d].begin(), lay[d].end(), i) - lay[d].begin()) - 1;
  };
  auto extent = [&](std::size_t d, int p) { return lay[d][static_cast<std::size_t>(p) + 1] - lay[d][static_cast<std::size_t>(p)]; };
  const Index dof = o.dof, w = o.width;
  core::Graph g(nranks);
  for (int r = 0; r < nranks; ++r) {
    const std::array<int, 3> p{r % o.procs[0], (r / o.procs[0]) % o.procs[1], r / (o.procs[0] * o.procs[1])};
    std::array<Index, 3> s{}, e{};
    for (std::size_t d = 0; d < 3; ++d) s[d] = lay[d][static_cast<std::size_t>(p[d])], e[d] = lay[d][static_cast<std::size_t>(p[d]) + 1];
    // Off-rank columns as (rank, local point): sorting these sorts PETSc's global column numbers,
    // whose rank blocks increase with the rank and whose points increase inside a block.
    std::vector<std::pair<int, Index>> cols;
    const std::array<Index, 3> reach{w, o.dims > 1 ? w : 0, o.dims > 2 ? w : 0};
    for (Index k = s[2]; k < e[2]; ++k)
      for (Index j = s[1]; j < e[1]; ++j)
        for (Index i = s[0]; i < e[0]; ++i) {
          const std::array<Index, 3> c{i, j, k};
          // Only points within the stencil width of the box's faces touch another rank.
          bool near = false;
          for (std::size_t d = 0; d < 3; ++d) near = near || c[d] - s[d] < reach[d] || e[d] - 1 - c[d] < reach[d];
          if (!near) continue;
          for (Index dk = -reach[2]; dk <= reach[2]; ++dk)
            for (Index dj = -reach[1]; dj <= reach[1]; ++dj)
              for (Index di = -reach[0]; di <= reach[0]; ++di) {
                const std::array<Index, 3> off{di, dj, dk};
                // DMCreateMatrix's star: a column differs from its row in one dimension at most.
                if (o.stencil == StencilKind::star && (di != 0) + (dj != 0) + (dk != 0) > 1) continue;
                std::array<Index, 3> q{};
                bool inside = true;
                for (std::size_t d = 0; d < 3; ++d) {
                  q[d] = c[d] + off[d];
                  if (o.periodic[d]) q[d] = ((q[d] % o.size[d]) + o.size[d]) % o.size[d];
                  inside = inside && q[d] >= 0 && q[d] < o.size[d];
                }
                if (!inside) continue;
                const std::array<int, 3> op{owner(0, q[0]), owner(1, q[1]), owner(2, q[2])};
                const int orank = op[0] + o.procs[0] * (op[1] + o.procs[1] * op[2]);
                if (orank == r) continue;
                const Index local = (q[0] - lay[0][static_cast<std::size_t>(op[0])]) +
                                    extent(0, op[0]) * ((q[1] - lay[1][static_cast<std::size_t>(op[1])]) +
                                                        extent(1, op[1]) * (q[2] - lay[2][static_cast<std::size_t>(op[2])]));
                cols.emplace_back(orank, local);
              }
        }
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    core::RankGraph& rg = g[r];
    rg.nroots = (e[0] - s[0]) * (e[1] - s[1]) * (e[2] - s[2]) * dof;
    Index pos = 0;
    for (const auto& [q, local] : cols)
      for (Index c = 0; c < dof; ++c) rg.add_leaf(pos++, q, local * dof + c);
    rg.normalize_ilocal();
  }
  return g;
}

}  // namespace sfr::gen
