// core/kernel_traffic.hpp: the sectors a pattern touches, against closed formulas (and, for the
// 3-D block, a set of the bytes each value covers).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "core/kernel_traffic.hpp"

namespace {
using sfr::core::Index;
using sfr::core::IndexShape;
using sfr::core::IndexView;
using sfr::core::KernelKind;
using sfr::core::kernel_traffic;
using sfr::core::sectors_touched;

IndexView strided(Index start, Index stride) {
  IndexView v;
  v.kind = stride == 1 ? IndexShape::contiguous : IndexShape::strided;
  v.start = start, v.stride = stride;
  return v;
}
}  // namespace

TEST(KernelTraffic, ContiguousIsItsSpanInSectors) {
  EXPECT_EQ(sectors_touched(strided(0, 1), 100, 8), 25);       // 800 bytes
  EXPECT_EQ(sectors_touched(strided(3, 1), 100, 8), 26);       // bytes 24..823 straddle one more
  EXPECT_EQ(sectors_touched(strided(1, 1), 100, 24), 76);      // bytes 24..2423: sectors 0..75
  EXPECT_EQ(sectors_touched(strided(0, 1), 0, 8), 0);
  const auto t = kernel_traffic(KernelKind::pack, strided(0, 1), 100, 8);
  EXPECT_EQ(t.read, 800);
  EXPECT_EQ(t.written, 800);
}

TEST(KernelTraffic, AStrideMovesTheSectorsBetweenItsValues) {
  // float64, every 2nd value: each 32-byte sector holds 2 used values of 4: twice the bytes.
  EXPECT_EQ(sectors_touched(strided(0, 2), 100, 8) * 32, 1600);
  // Every 4th or 8th: a sector per value, 4x the bytes used, never more.
  EXPECT_EQ(sectors_touched(strided(0, 4), 100, 8) * 32, 3200);
  EXPECT_EQ(sectors_touched(strided(0, 8), 100, 8) * 32, 3200);
  // A 40-byte value (float64 x 5) every 2nd: 80 bytes apart, each value spans 2 sectors or 3.
  // Value k covers bytes [80k, 80k + 40): sectors floor(80k/32) .. floor((80k+39)/32).
  std::int64_t expect = 0;
  for (Index k = 0; k < 10; ++k) expect += (80 * k + 39) / 32 - (80 * k) / 32 + 1;
  EXPECT_EQ(sectors_touched(strided(0, 2), 10, 40), expect);
}

TEST(KernelTraffic, AListReadsItsEntriesAndItsDistinctSectors) {
  // A permutation of every value touches every sector once (compulsory traffic), plus its list.
  std::vector<Index> perm(4096);
  std::iota(perm.begin(), perm.end(), Index{0});
  std::shuffle(perm.begin(), perm.end(), std::mt19937_64(7));
  const auto v = sfr::core::index_view(perm.data());
  const auto pack = kernel_traffic(KernelKind::pack, v, 4096, 8);
  EXPECT_EQ(pack.read, 4096 * 8 + 4096 * 8);
  EXPECT_EQ(pack.written, 4096 * 8);
  // Every 5th value, backwards: 40 bytes apart, so each value has a sector of its own.
  std::vector<Index> sparse(100);
  for (Index k = 0; k < 100; ++k) sparse[static_cast<std::size_t>(k)] = 5 * (99 - k);
  EXPECT_EQ(sectors_touched(sfr::core::index_view(sparse.data()), 100, 8), 100);
  // A repeated position counts once.
  std::vector<Index> hot(50, 7);
  EXPECT_EQ(sectors_touched(sfr::core::index_view(hot.data()), 50, 8), 1);
  // An unpack that combines reads what it writes. The 400-byte list is 13 sectors (416 bytes).
  const auto sum = kernel_traffic(KernelKind::unpack_combine, sfr::core::index_view(sparse.data()), 100, 8, 4);
  EXPECT_EQ(sum.written, 100 * 32);
  EXPECT_EQ(sum.read, 800 + 416 + 100 * 32);
  EXPECT_EQ(kernel_traffic(KernelKind::unpack_replace, sfr::core::index_view(sparse.data()), 100, 8, 4).read, 800 + 416);
}

TEST(KernelTraffic, ABlockAgainstTheSetOfItsBytes) {
  IndexView b;
  b.kind = IndexShape::block3d;
  b.start = 5, b.nx = 3, b.ny = 2, b.y_stride = 10, b.z_stride = 100;
  const Index n = 3 * 2 * 2;
  for (const std::int64_t vb : {4, 8, 24}) {
    std::set<std::int64_t> sectors;
    for (Index z = 0; z < 2; ++z)
      for (Index y = 0; y < 2; ++y)
        for (Index x = 0; x < 3; ++x)
          for (std::int64_t byte = 0; byte < vb; ++byte) sectors.insert(((5 + x + 10 * y + 100 * z) * vb + byte) / 32);
    EXPECT_EQ(sectors_touched(b, n, vb), static_cast<std::int64_t>(sectors.size())) << vb;
  }
}

TEST(KernelTraffic, RooflineFraction) {
  EXPECT_DOUBLE_EQ(sfr::core::roofline_fraction(1000000000, 0.5, 4e9), 0.5);
  EXPECT_EQ(sfr::core::roofline_fraction(100, 0, 4e9), 0);
  EXPECT_EQ(sfr::core::roofline_fraction(100, 1, 0), 0);
}
