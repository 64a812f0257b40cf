// The kernel bodies (core/kernels.hpp) that the CUDA launcher runs on the GPU, run here by the
// host launcher: every unit, every legal MPI op, every index shape, bs 1 and 3, lists with and
// without repeats, against the host executor's own pack code (core/pack.cpp, written separately,
// on std::complex) and a plain loop.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <random>

#include "core/kernels.hpp"
#include "core/pack.hpp"

using namespace sfr::core;

namespace {

struct List {
  const char* what;
  std::vector<Index> idx;
  bool repeats;
};

std::vector<List> lists() {
  std::vector<List> v;
  v.push_back({"contiguous", {}, false});
  for (Index i = 4; i < 20; ++i) v.back().idx.push_back(i);
  v.push_back({"strided", {}, false});
  for (Index i = 0; i < 9; ++i) v.back().idx.push_back(3 + 5 * i);
  v.push_back({"block3d", {}, false});
  for (Index z = 0; z < 2; ++z)
    for (Index y = 0; y < 3; ++y)
      for (Index x = 0; x < 4; ++x) v.back().idx.push_back(2 + x + 7 * y + 25 * z);
  v.push_back({"general", {9, 1, 30, 4, 17, 0, 45}, false});
  v.push_back({"repeats", {5, 2, 5, 5, 40, 2, 9, 5, 0, 40}, true});
  // A hot root: 150 of 160 positions on index 7 (one thread's loop in the grouped bodies).
  v.push_back({"hot root", {}, true});
  for (Index k = 0; k < 160; ++k) v.back().idx.push_back(k % 16 == 3 ? 20 + k / 16 : 7);
  return v;
}
constexpr Index kSpace = 48;

// Deterministic values of a unit, kept small (products of a few stay exact in every type).
std::vector<std::byte> values(Unit u, int bs, Index n, MpiOp op, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::byte> out(static_cast<size_t>(n) * static_cast<size_t>(bs) * unit_size(u));
  const int hi = op == MpiOp::prod ? 2 : (op == MpiOp::land || op == MpiOp::lor || op == MpiOp::lxor) ? 1 : 9;
  const int lo = op == MpiOp::prod ? 1 : 0;
  std::uniform_int_distribution<int> d(lo, hi);
  visit_unit(u, [&]<class T>() {
    T* p = reinterpret_cast<T*>(out.data());
    for (size_t i = 0; i < static_cast<size_t>(n) * static_cast<size_t>(bs); ++i) {
      if constexpr (std::is_same_v<T, Int32Pair>)
        p[i] = {d(rng) % 3, static_cast<std::int32_t>(i)};
      else if constexpr (is_complex_v<T>)
        p[i] = T(d(rng), d(rng));
      else
        p[i] = static_cast<T>(d(rng));
    }
  });
  return out;
}

IndexView view(const List& l) { return index_view(classify_indices(l.idx), l.idx.data()); }

}  // namespace

TEST(Kernels, ComplexKernelTypeHasStdComplexLayout) {
  static_assert(sizeof(Complex128) == sizeof(std::complex<double>));
  const std::complex<double> a(3, -2), b(-1, 5);
  Complex128 x, y;
  std::memcpy(&x, &a, sizeof x);
  std::memcpy(&y, &b, sizeof y);
  const Complex128 p = x * y, s = x + y;
  EXPECT_EQ(std::complex<double>(p.re, p.im), a * b);
  EXPECT_EQ(std::complex<double>(s.re, s.im), a + b);
}

TEST(Kernels, IndexViewWalksEveryShapeAsTheListDoes) {
  for (const auto& l : lists()) {
    const IndexShape s = classify_indices(l.idx);
    const IndexView v = index_view(s, nullptr);
    if (s.kind == IndexShape::general) continue;  // read from the list itself
    for (size_t k = 0; k < l.idx.size(); ++k) EXPECT_EQ(v.at(static_cast<Index>(k)), l.idx[k]) << l.what << " k=" << k;
  }
  EXPECT_EQ(classify_indices(lists()[2].idx).kind, IndexShape::block3d);  // the shapes the cases claim
  EXPECT_EQ(classify_indices(lists()[1].idx).kind, IndexShape::strided);
}

TEST(Kernels, QuotientIsTheDivisionOnBothSidesOfThe32BitPath) {
  const Index big = Index{1} << 32;
  for (const Index a : {Index{0}, Index{1}, Index{7}, Index{4294967295}, big, big + 5, Index{3} * big + 1, Index{1} << 62})
    for (const Index b : {Index{1}, Index{2}, Index{3}, Index{4294967295}, big, big + 1})
      EXPECT_EQ(quotient(a, b), a / b) << a << " / " << b;
}

TEST(Kernels, RepeatsAreFound) {
  for (const auto& l : lists()) EXPECT_EQ(has_repeats(l.idx, kSpace), l.repeats) << l.what;
  EXPECT_THROW(has_repeats(std::vector<Index>{0, 48}, kSpace), std::out_of_range);
}

TEST(Kernels, PackMatchesHostPack) {
  HostLauncher L;
  for (const Unit u : kAllUnits)
    for (const int bs : {1, 3})
      for (const auto& l : lists()) {
        const auto src = values(u, bs, kSpace, MpiOp::sum, 1);
        const auto n = static_cast<Index>(l.idx.size());
        std::vector<std::byte> got(static_cast<size_t>(n) * static_cast<size_t>(bs) * unit_size(u)), want(got.size());
        HostKernels::pack(L, u, bs, src.data(), view(l), n, got.data());
        pack(src.data(), l.idx, classify_indices(l.idx), unit_size(u) * static_cast<size_t>(bs), want.data());
        EXPECT_EQ(got, want) << unit_name(u) << " bs=" << bs << " " << l.what;
      }
}

TEST(Kernels, UnpackEveryUnitAndOpMatchesHostUnpack) {
  HostLauncher L;
  int cases = 0;
  for (const Unit u : kAllUnits)
    for (const MpiOp op : kAllOps) {
      if (!op_legal(u, op)) {
        std::vector<std::byte> b(unit_size(u) * kSpace);
        EXPECT_THROW(HostKernels::unpack(L, u, 1, op, b.data(), view(lists()[3]), 1, b.data(), Groups{}), std::invalid_argument);
        continue;
      }
      for (const int bs : {1, 3})
        for (const auto& l : lists()) {
          const auto n = static_cast<Index>(l.idx.size());
          const auto src = values(u, bs, n, op, 2);
          auto got = values(u, bs, kSpace, op, 3), want = got;
          const GroupLists g = group_by_destination(l.idx, kSpace);
          HostKernels::unpack(L, u, bs, op, src.data(), view(l), n, got.data(), g.view());
          unpack(u, bs, op, src.data(), l.idx, classify_indices(l.idx), want.data());
          EXPECT_EQ(got, want) << unit_name(u) << " " << mpi_op_name(op) << " bs=" << bs << " " << l.what;
          ++cases;
        }
    }
  EXPECT_EQ(cases, 12 * 38);  // 38 legal (unit, op) pairs, 2 block sizes, 6 lists
}

TEST(Kernels, FetchAndOpMatchesHostFetchAndOp) {
  HostLauncher L;
  for (const Unit u : kAllUnits)
    for (const MpiOp op : kAllOps) {
      if (!op_legal(u, op)) continue;
      for (const int bs : {1, 3})
        for (const auto& l : lists()) {
          const auto n = static_cast<Index>(l.idx.size());
          const auto src = values(u, bs, n, op, 4);
          auto root = values(u, bs, kSpace, op, 5), root2 = root;
          std::vector<std::byte> f1(src.size()), f2(src.size());
          const GroupLists g = group_by_destination(l.idx, kSpace);
          HostKernels::fetch_and_op(L, u, bs, op, src.data(), view(l), n, root.data(), f1.data(), g.view());
          fetch_and_op_unpack(u, bs, op, src.data(), l.idx, classify_indices(l.idx), root2.data(), f2.data());
          EXPECT_EQ(root, root2) << unit_name(u) << " " << mpi_op_name(op) << " bs=" << bs << " " << l.what;
          EXPECT_EQ(f1, f2) << unit_name(u) << " " << mpi_op_name(op) << " bs=" << bs << " " << l.what;
        }
    }
}

TEST(Kernels, SelfPartMatchesHostSelfPart) {
  HostLauncher L;
  const std::vector<Index> from = {3, 3, 11, 0, 7, 20}, to = {5, 9, 5, 40, 5, 1};  // roots repeat in `to`
  const GroupLists g = group_by_destination(to, kSpace);
  ASSERT_TRUE(g.any());
  for (const Unit u : kAllUnits)
    for (const MpiOp op : kAllOps) {
      if (!op_legal(u, op)) continue;
      for (const int bs : {1, 2}) {
        const auto src = values(u, bs, kSpace, op, 6);
        auto got = values(u, bs, kSpace, op, 7), want = got;
        HostKernels::local(L, u, bs, op, src.data(), index_view(from.data()), got.data(), index_view(to.data()), 6, g.view());
        scatter_local(u, bs, op, src.data(), from, want.data(), to);
        EXPECT_EQ(got, want) << unit_name(u) << " " << mpi_op_name(op) << " bs=" << bs;
        auto root = values(u, bs, kSpace, op, 8), root2 = root;
        std::vector<std::byte> up1(src.size()), up2(src.size());
        HostKernels::fetch_local(L, u, bs, op, root.data(), index_view(to.data()), src.data(), index_view(from.data()), 6, up1.data(),
                                 g.view());
        fetch_and_op_local(u, bs, op, root2.data(), to, src.data(), from, up2.data());
        EXPECT_EQ(root, root2) << unit_name(u) << " " << mpi_op_name(op) << " bs=" << bs;
        EXPECT_EQ(up1, up2) << unit_name(u) << " " << mpi_op_name(op) << " bs=" << bs;
      }
    }
}

// Destination groups: every position once, grouped by destination in increasing order, list
// order within a destination; none where no destination repeats.
TEST(Kernels, GroupsAreStableByDestination) {
  const GroupLists g = group_by_destination(std::vector<Index>{5, 2, 5, 5, 40, 2, 9, 5, 0, 40}, kSpace);
  EXPECT_EQ(g.order, (std::vector<Index>{8, 1, 5, 0, 2, 3, 7, 6, 4, 9}));
  EXPECT_EQ(g.starts, (std::vector<Index>{0, 1, 3, 7, 8, 10}));
  EXPECT_EQ(g.view().ngroups, 5);
  for (const auto& l : lists()) EXPECT_EQ(group_by_destination(l.idx, kSpace).any(), l.repeats) << l.what;
  EXPECT_FALSE(Groups{}.any());
  EXPECT_THROW(group_by_destination(std::vector<Index>{0, 0, 48}, kSpace), std::out_of_range);
}

// The kernels' complex product is the one std::complex (and the MPI library) computes, also where
// it overflows or meets infinities and NaNs (C Annex G): a long product of leaves that overflows
// must end in the same value on the GPU as in the reference (the evidence's hot-root sweep).
TEST(Kernels, ComplexProductFollowsAnnexG) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> parts = {0.0, -0.0, 1.0, -2.5, 3e200, -7e307, inf, -inf, nan};
  auto same = [](double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; };
  int checked = 0;
  for (double a : parts)
    for (double b : parts)
      for (double c : parts)
        for (double d : parts) {
          const std::complex<double> want = std::complex<double>(a, b) * std::complex<double>(c, d);
          const Complex128 got = Complex128{a, b} * Complex128{c, d};
          ASSERT_TRUE(same(got.re, want.real()) && same(got.im, want.imag()))
              << "(" << a << ", " << b << ") * (" << c << ", " << d << "): kernel (" << got.re << ", " << got.im << "), std::complex ("
              << want.real() << ", " << want.imag() << ")";
          ++checked;
        }
  EXPECT_EQ(checked, 6561);
}

// Why the product rounds each partial product on its own (mul_rn / sub_rn / add_rn, which nvcc
// never contracts): the hot root's reduce with prod (component 1 of root 0 in the 4-rank hot-root
// sweep, spec 3's data, leaves in reference order) ends in (inf, NaN) computed step by step, as
// std::complex computes it, and in (inf, -inf) when a * c - b * d is one fused multiply-add, as
// nvcc compiles it by default: an H100 failed the hot-root test on exactly this op.
TEST(Kernels, HotRootProductNeedsUncontractedRounding) {
  auto data = [](int r, int i, int c) {
    const int g = ((r * 131 + i * 31 + c * 7) % 97) + 1, h = ((r * 17 + i * 13 + c * 5) % 89) + 1;
    return std::pair{1.0 + g % 2, 1.0 + h % 2};
  };
  auto fused = [](Complex128 z, Complex128 w) {  // the textbook formula contracted, without Annex G's recovery
    return Complex128{std::fma(z.re, w.re, -(z.im * w.im)), std::fma(z.re, w.im, z.im * w.re)};
  };
  const int c = 1;
  const auto [g0, h0] = data(0, 0, c);
  Complex128 kernel{g0, h0}, contracted = kernel;
  std::complex<double> want(g0, h0);
  for (int r = 0; r < 4; ++r)
    for (int i = 0; i < 3000; ++i) {
      const auto [g, h] = data(r, i, c);
      const Complex128 leaf{h, g};  // complex128 leaves are (h, g)
      kernel = kernel * leaf;
      contracted = fused(contracted, leaf);
      want *= std::complex<double>(h, g);
    }
  for (int i = 3000; i < 3040; i += 3) {  // rank 3's leaves on root 0 of rank 0
    const auto [g, h] = data(3, i, c);
    kernel = kernel * Complex128{h, g};
    contracted = fused(contracted, Complex128{h, g});
    want *= std::complex<double>(h, g);
  }
  EXPECT_TRUE(std::isinf(want.real()) && std::isnan(want.imag())) << want;
  EXPECT_TRUE(kernel.re == want.real() && std::isnan(kernel.im)) << kernel.re << ", " << kernel.im;
  EXPECT_FALSE(std::isnan(contracted.im) && contracted.re == want.real()) << "a contracted product ends where the reference does";
}
