// A DMDA at another rank count: the process grids are PETSc's own (DMDAGetInfo's answers in
// captures of PETSc 3.18's examples at 4 to 18 ranks, written down here), the MatMult leaves are
// checked against a brute-force search over every pair of grid points, and the split PETSc refuses
// is refused. (tests/capture/test_scale_petsc.cpp compares whole graphs with direct captures.)
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/error.hpp"
#include "generators/dmda.hpp"

namespace {

using namespace sfr;
using core::Index;

gen::DmdaShape shape(int dim, std::array<Index, 3> sizes, gen::StencilKind k = gen::StencilKind::star) {
  gen::DmdaShape s;
  s.dim = dim;
  s.sizes = sizes;
  s.stencil = k;
  return s;
}

TEST(Dmda, ProcessGridsAreThoseDMDAGetInfoReported) {
  struct Case {
    int dim;
    std::array<Index, 3> sizes;
    int ranks;
    std::array<int, 3> petsc;
  };
  // Each row: what PETSc 3.18 chose (SNES ex5/ex14/ex15/ex16/ex19, KSP ex45, DM ex2 with -da_grid_*).
  const Case cases[] = {
      {2, {17, 13, 1}, 4, {2, 2, 1}},  {2, {17, 13, 1}, 9, {3, 3, 1}},  {2, {17, 13, 1}, 16, {4, 4, 1}},
      {2, {30, 11, 1}, 6, {3, 2, 1}},  {2, {30, 11, 1}, 8, {4, 2, 1}},  {2, {30, 11, 1}, 12, {6, 2, 1}},
      {2, {9, 8, 1}, 16, {4, 4, 1}},   {3, {7, 7, 7}, 4, {1, 2, 2}},    {3, {7, 7, 7}, 9, {3, 1, 3}},
      {3, {7, 7, 7}, 16, {2, 2, 4}},   {3, {9, 8, 7}, 4, {2, 2, 1}},    {3, {9, 8, 7}, 8, {2, 2, 2}},
      {3, {9, 8, 7}, 12, {3, 2, 2}},   {3, {9, 8, 7}, 18, {3, 3, 2}},   {3, {5, 9, 12}, 4, {1, 2, 2}},
      {3, {5, 9, 12}, 6, {1, 2, 3}},   {3, {5, 9, 12}, 12, {1, 3, 4}},  {3, {7, 6, 5}, 9, {3, 1, 3}},
      {3, {7, 6, 5}, 16, {4, 2, 2}},   {3, {11, 2, 2}, 4, {4, 1, 1}},   {3, {9, 5, 5}, 4, {2, 1, 2}},
      {3, {9, 5, 5}, 16, {4, 2, 2}},   {3, {9, 5, 5}, 8, {2, 2, 2}},    {3, {9, 5, 5}, 6, {3, 1, 2}},
      // PETSc's last step puts the larger count along the longer side:
      {2, {14, 13, 1}, 2, {2, 1, 1}},  {2, {13, 14, 1}, 2, {1, 2, 1}},  {2, {17, 13, 1}, 8, {4, 2, 1}},
      {3, {5, 4, 4}, 6, {3, 2, 1}},    {3, {7, 4, 6}, 8, {4, 1, 2}},
  };
  for (const auto& c : cases)
    EXPECT_EQ(gen::dmda_processes(shape(c.dim, c.sizes), c.ranks, "--ranks"), c.petsc)
        << c.sizes[0] << "x" << c.sizes[1] << "x" << c.sizes[2] << " on " << c.ranks;
}

TEST(Dmda, RefusesTheSplitsPetscRefuses) {
  // SNES ex16's 11 x 2 x 2 grid at 9 ranks: PETSc stops with "Partition in z direction is too fine".
  try {
    gen::dmda_processes(shape(3, {11, 2, 2}, gen::StencilKind::box), 9, "--ranks");
    FAIL() << "no refusal";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--ranks: PETSc splits 9 ranks as 3 x 1 x 3, more than the 2 grid points in dimension z"),
              std::string::npos)
        << e.what();
  }
  auto wide = shape(2, {8, 8, 1});
  wide.width = 3;  // 4 ranks own 4 x 4 points each; 9 would own 2 or 3, fewer than the width
  EXPECT_EQ(gen::dmda_processes(wide, 4, "--ranks"), (std::array<int, 3>{2, 2, 1}));
  EXPECT_THROW(gen::dmda_processes(wide, 9, "--ranks"), InputError);
  EXPECT_THROW(gen::dmda_processes(shape(1, {8, 1, 1}), 2, "--ranks"), InputError);  // 1-D is not regenerated
}

// Brute force: every pair (owned point, any grid point) within the stencil, then PETSc's global
// column number of each off-rank one (rank blocks in rank order, x fastest inside a block).
void check_matmult(const gen::StencilOptions& o) {
  SCOPED_TRACE(std::to_string(o.size[0]) + "x" + std::to_string(o.size[1]) + "x" + std::to_string(o.size[2]) + " on " +
               std::to_string(o.procs[0]) + "x" + std::to_string(o.procs[1]) + "x" + std::to_string(o.procs[2]) +
               (o.stencil == gen::StencilKind::star ? " star" : " box") + " w" + std::to_string(o.width) + " dof " + std::to_string(o.dof) +
               (o.periodic[0] ? " periodic" : ""));
  const core::Graph g = gen::dmda_matmult_graph(o);
  core::check_graph(g);
  const int nranks = o.procs[0] * o.procs[1] * o.procs[2];
  auto lo = [&](std::size_t d, int i) { return i * (o.size[d] / o.procs[d]) + std::min<Index>(i, o.size[d] % o.procs[d]); };
  auto owner = [&](std::size_t d, Index c) {
    int i = 0;
    while (lo(d, i + 1) <= c) ++i;
    return i;
  };
  std::vector<Index> base(static_cast<std::size_t>(nranks) + 1, 0);
  auto coords = [&](int r) { return std::array<int, 3>{r % o.procs[0], (r / o.procs[0]) % o.procs[1], r / (o.procs[0] * o.procs[1])}; };
  for (int r = 0; r < nranks; ++r) {
    const auto p = coords(r);
    Index n = 1;
    for (std::size_t d = 0; d < 3; ++d) n *= lo(d, p[d] + 1) - lo(d, p[d]);
    base[static_cast<std::size_t>(r) + 1] = base[static_cast<std::size_t>(r)] + n;
  }
  auto rank_and_local = [&](const std::array<Index, 3>& c) {
    std::array<int, 3> p{};
    for (std::size_t d = 0; d < 3; ++d) p[d] = owner(d, c[d]);
    const int r = p[0] + o.procs[0] * (p[1] + o.procs[1] * p[2]);
    const Index local = (c[0] - lo(0, p[0])) + (lo(0, p[0] + 1) - lo(0, p[0])) * ((c[1] - lo(1, p[1])) + (lo(1, p[1] + 1) - lo(1, p[1])) * (c[2] - lo(2, p[2])));
    return std::pair{r, local};
  };
  auto distance = [&](std::size_t d, Index a, Index b) {
    const Index x = std::abs(a - b);
    return o.periodic[d] ? std::min(x, o.size[d] - x) : x;
  };
  for (int r = 0; r < nranks; ++r) {
    std::set<Index> expected;  // global column numbers
    for (Index k = 0; k < o.size[2]; ++k)
      for (Index j = 0; j < o.size[1]; ++j)
        for (Index i = 0; i < o.size[0]; ++i) {
          const auto [cr, clocal] = rank_and_local({i, j, k});
          if (cr == r) continue;
          // Is (i, j, k) in the stencil of a point rank r owns?
          bool touched = false;
          for (Index z = 0; z < o.size[2] && !touched; ++z)
            for (Index y = 0; y < o.size[1] && !touched; ++y)
              for (Index x = 0; x < o.size[0] && !touched; ++x) {
                if (rank_and_local({x, y, z}).first != r) continue;
                const std::array<Index, 3> dist{distance(0, x, i), distance(1, y, j), distance(2, z, k)};
                const Index far = std::max({dist[0], dist[1], dist[2]});
                const int moved = (dist[0] > 0) + (dist[1] > 0) + (dist[2] > 0);
                touched = far <= o.width && (o.stencil == gen::StencilKind::box || moved <= 1);
              }
          if (touched)
            for (Index c = 0; c < o.dof; ++c) expected.insert((base[static_cast<std::size_t>(cr)] + clocal) * o.dof + c);
        }
    const auto& rg = g[r];
    ASSERT_EQ(rg.nleaves(), static_cast<Index>(expected.size())) << "rank " << r;
    auto it = expected.begin();
    for (Index l = 0; l < rg.nleaves(); ++l, ++it) {
      EXPECT_EQ(rg.leaf_position(l), l);
      const int q = rg.remote_rank[static_cast<std::size_t>(l)];
      EXPECT_EQ(base[static_cast<std::size_t>(q)] * o.dof + rg.remote_index[static_cast<std::size_t>(l)], *it) << "rank " << r << " leaf " << l;
    }
  }
}

TEST(Dmda, MatMultLeavesAreEveryOffRankColumnInGlobalOrder) {
  using K = gen::StencilKind;
  auto opts = [](int dims, std::array<Index, 3> size, std::array<int, 3> procs, K k, int width, int dof, bool periodic) {
    gen::StencilOptions o;
    o.dims = dims;
    o.size = size;
    o.procs = procs;
    o.stencil = k;
    o.width = width;
    o.dof = dof;
    for (int d = 0; d < dims; ++d) o.periodic[static_cast<std::size_t>(d)] = periodic;
    return o;
  };
  check_matmult(opts(2, {7, 5, 1}, {2, 2, 1}, K::star, 1, 1, false));
  check_matmult(opts(2, {7, 5, 1}, {3, 2, 1}, K::box, 1, 2, false));
  check_matmult(opts(2, {9, 8, 1}, {3, 2, 1}, K::star, 2, 1, false));
  check_matmult(opts(2, {8, 6, 1}, {2, 3, 1}, K::box, 1, 1, true));
  check_matmult(opts(3, {5, 4, 4}, {2, 1, 2}, K::star, 1, 1, false));
  check_matmult(opts(3, {5, 4, 4}, {2, 2, 2}, K::box, 1, 3, false));
  check_matmult(opts(3, {6, 4, 4}, {3, 2, 1}, K::star, 1, 1, true));
}

}  // namespace
