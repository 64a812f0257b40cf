// Stencil ghost update: after a bcast through the SF, every ghost holds the global array value at
// its (wrapped) global coordinate; star stencils leave the corner points untouched. Geometry is
// recomputed here from DMDA's rules, not taken from the generator.
#include <gtest/gtest.h>

#include <array>

#include "core/error.hpp"
#include "exec/reference/reference.hpp"
#include "generators/stencil.hpp"

namespace {

using namespace sfr;
using core::Index;

long long value(const std::array<Index, 3>& c, int comp) { return 1 + c[0] + 1000 * c[1] + 1000000 * c[2] + 100000000LL * comp; }

// DMDA: first M % P ranks own one more point.
Index lo(Index m, int p, int i) { return i * (m / p) + std::min<Index>(i, m % p); }

void check(const gen::StencilOptions& o) {
  SCOPED_TRACE("dims " + std::to_string(o.dims) + " size " + std::to_string(o.size[0]) + "x" + std::to_string(o.size[1]) + "x" +
               std::to_string(o.size[2]) + " procs " + std::to_string(o.procs[0]) + "x" + std::to_string(o.procs[1]) + "x" +
               std::to_string(o.procs[2]) + (o.stencil == gen::StencilKind::star ? " star" : " box") + " w" + std::to_string(o.width) +
               (o.periodic[0] ? " periodic" : ""));
  const core::Graph g = gen::stencil_graph(o);
  core::check_graph(g);
  const int nranks = o.procs[0] * o.procs[1] * o.procs[2];
  ASSERT_EQ(g.nranks, nranks);
  const trace::Trace t = gen::stencil_trace(o);
  EXPECT_EQ(t.ops[0].bs, o.dof);
  std::vector<exec::Buffer> roots, leaves;
  std::vector<std::array<Index, 3>> s(static_cast<std::size_t>(nranks)), e(s), gs(s), ge(s);
  for (int r = 0; r < nranks; ++r) {
    const std::array<int, 3> p{r % o.procs[0], (r / o.procs[0]) % o.procs[1], r / (o.procs[0] * o.procs[1])};
    auto& S = s[static_cast<std::size_t>(r)];
    auto& E = e[static_cast<std::size_t>(r)];
    Index gsize = 1;
    for (std::size_t d = 0; d < 3; ++d) {
      S[d] = lo(o.size[d], o.procs[d], p[d]);
      E[d] = lo(o.size[d], o.procs[d], p[d] + 1);
      const Index w = static_cast<int>(d) < o.dims ? o.width : 0;
      gs[static_cast<std::size_t>(r)][d] = o.periodic[d] ? S[d] - w : std::max<Index>(0, S[d] - w);
      ge[static_cast<std::size_t>(r)][d] = o.periodic[d] ? E[d] + w : std::min(o.size[d], E[d] + w);
      gsize *= ge[static_cast<std::size_t>(r)][d] - gs[static_cast<std::size_t>(r)][d];
    }
    const Index owned = (E[0] - S[0]) * (E[1] - S[1]) * (E[2] - S[2]);
    ASSERT_EQ(g[r].nroots, owned);
    roots.emplace_back(core::Unit::int64, o.dof, owned);
    Index q = 0;
    for (Index k = S[2]; k < E[2]; ++k)
      for (Index j = S[1]; j < E[1]; ++j)
        for (Index i = S[0]; i < E[0]; ++i, ++q)
          for (int c = 0; c < o.dof; ++c) roots.back().as<long long>()[q * o.dof + c] = value({i, j, k}, c);
    ASSERT_LE(g[r].leafspace(), gsize);
    leaves.emplace_back(core::Unit::int64, o.dof, gsize);
    for (std::size_t x = 0; x < leaves.back().components(); ++x) leaves.back().as<long long>()[x] = -1;
  }
  exec::reference::bcast(g, core::MpiOp::replace, roots, leaves);
  for (int r = 0; r < nranks; ++r) {
    const auto ur = static_cast<std::size_t>(r);
    Index pos = 0, expected_leaves = 0;
    for (Index k = gs[ur][2]; k < ge[ur][2]; ++k)
      for (Index j = gs[ur][1]; j < ge[ur][1]; ++j)
        for (Index i = gs[ur][0]; i < ge[ur][0]; ++i, ++pos) {
          const std::array<Index, 3> c{i, j, k};
          int outside = 0;
          std::array<Index, 3> w{};
          for (std::size_t d = 0; d < 3; ++d) {
            outside += (c[d] < s[ur][d] || c[d] >= e[ur][d]) ? 1 : 0;
            w[d] = (c[d] + o.size[d]) % o.size[d];
          }
          const bool hole = o.stencil == gen::StencilKind::star && outside > 1;
          expected_leaves += hole ? 0 : 1;
          for (int comp = 0; comp < o.dof; ++comp)
            ASSERT_EQ(leaves[ur].as<long long>()[pos * o.dof + comp], hole ? -1 : value(w, comp))
                << "rank " << r << " local (" << i << "," << j << "," << k << ")";
        }
    EXPECT_EQ(g[r].nleaves(), expected_leaves);
  }
}

TEST(Stencil, GhostsHoldGlobalValues) {
  for (int dims = 1; dims <= 3; ++dims)
    for (auto kind : {gen::StencilKind::star, gen::StencilKind::box})
      for (int width = 1; width <= 2; ++width)
        for (bool periodic : {false, true}) {
          gen::StencilOptions o;
          o.dims = dims;
          o.stencil = kind;
          o.width = width;
          o.dof = dims == 2 ? 2 : 1;
          const std::array<Index, 3> sizes{13, 9, 7};
          const std::array<int, 3> procs{3, 2, 2};
          for (int d = 0; d < dims; ++d) {
            o.size[static_cast<std::size_t>(d)] = sizes[static_cast<std::size_t>(d)];
            o.procs[static_cast<std::size_t>(d)] = procs[static_cast<std::size_t>(d)];
            o.periodic[static_cast<std::size_t>(d)] = periodic;
          }
          check(o);
        }
}

TEST(Stencil, MixedPeriodicityAndSingleRankDimensions) {
  gen::StencilOptions o;
  o.dims = 3;
  o.size = {6, 5, 4};
  o.procs = {1, 2, 1};
  o.periodic = {true, false, true};
  o.stencil = gen::StencilKind::box;
  o.width = 2;
  check(o);
  o.stencil = gen::StencilKind::star;
  check(o);
}

TEST(Stencil, BoxCountsClosedForm) {
  // 2D box stencil, 4x4 ranks on a periodic 16x16 grid, width 1: each rank's local array is 6x6.
  gen::StencilOptions o;
  o.dims = 2;
  o.size = {16, 16, 1};
  o.procs = {4, 4, 1};
  o.periodic = {true, true, false};
  o.stencil = gen::StencilKind::box;
  for (int r = 0; r < 16; ++r) EXPECT_EQ(gen::stencil_graph(o)[r].nleaves(), 36);
  o.stencil = gen::StencilKind::star;  // corners dropped
  for (int r = 0; r < 16; ++r) EXPECT_EQ(gen::stencil_graph(o)[r].nleaves(), 32);
}

TEST(Stencil, BadGridsAreInputErrors) {
  gen::StencilOptions o;
  o.dims = 2;
  o.size = {4, 4, 1};
  o.procs = {5, 1, 1};  // more ranks than points
  EXPECT_THROW(gen::stencil_graph(o), InputError);
  o.procs = {4, 1, 1};
  o.width = 2;  // a rank owns 1 point < width 2
  EXPECT_THROW(gen::stencil_graph(o), InputError);
  EXPECT_THROW(gen::parse_extent("--size", "4x", 2), InputError);
  EXPECT_THROW(gen::parse_extent("--size", "4x4x4", 2), InputError);
  EXPECT_THROW(gen::parse_extent("--size", "4xa", 2), InputError);
  EXPECT_THROW(gen::parse_periodic("w", 2), InputError);
  EXPECT_THROW(gen::parse_periodic("z", 2), InputError);
}

}  // namespace
