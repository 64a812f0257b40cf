// Pack / unpack kernels: the shape fast paths (contiguous, strided, 3-D block) against a plain
// element-by-element loop written here.
#include <gtest/gtest.h>

#include <numeric>

#include "core/pack.hpp"

using namespace sfr::core;

namespace {
std::vector<Index> block_indices() {
  std::vector<Index> v;
  for (Index z = 0; z < 2; ++z)
    for (Index y = 0; y < 3; ++y)
      for (Index x = 0; x < 4; ++x) v.push_back(5 + x + 9 * y + 40 * z);
  return v;
}
}  // namespace

TEST(Pack, EveryShapeGathersTheIndexedBlocks) {
  const int bs = 3;
  std::vector<double> src(200 * bs);
  std::iota(src.begin(), src.end(), 0.5);
  for (const std::vector<Index>& idx :
       {std::vector<Index>{7, 8, 9, 10}, std::vector<Index>{3, 10, 17, 24}, block_indices(), std::vector<Index>{9, 2, 2, 40}}) {
    const IndexShape shape = classify_indices(idx);
    std::vector<double> got(idx.size() * bs), want(idx.size() * bs);
    pack(reinterpret_cast<const std::byte*>(src.data()), idx, shape, bs * sizeof(double), reinterpret_cast<std::byte*>(got.data()));
    for (size_t k = 0; k < idx.size(); ++k)
      for (int c = 0; c < bs; ++c) want[k * bs + static_cast<size_t>(c)] = src[static_cast<size_t>(idx[k]) * bs + static_cast<size_t>(c)];
    EXPECT_EQ(got, want) << shape_name(shape.kind);
  }
}

TEST(Pack, UnpackAppliesOpInListOrderWithDuplicates) {
  std::vector<std::int64_t> dst = {10, 20, 30, 40};
  const std::vector<std::int64_t> src = {1, 2, 3, 4};
  const std::vector<Index> idx = {2, 0, 2, 3};
  unpack(Unit::int64, 1, MpiOp::sum, reinterpret_cast<const std::byte*>(src.data()), idx, classify_indices(idx),
         reinterpret_cast<std::byte*>(dst.data()));
  EXPECT_EQ(dst, (std::vector<std::int64_t>{12, 20, 34, 44}));
  std::vector<std::int64_t> rep = {0, 0, 0, 0};
  unpack(Unit::int64, 1, MpiOp::replace, reinterpret_cast<const std::byte*>(src.data()), idx, classify_indices(idx),
         reinterpret_cast<std::byte*>(rep.data()));
  EXPECT_EQ(rep, (std::vector<std::int64_t>{2, 0, 3, 4}));  // the later duplicate wins
}

TEST(Pack, ContiguousAndBlockUnpackMatchGeneralLoop) {
  const auto idx = block_indices();
  std::vector<float> src(idx.size());
  std::iota(src.begin(), src.end(), 1.0f);
  std::vector<float> a(200, 1.0f), b(200, 1.0f);
  unpack(Unit::float32, 1, MpiOp::max, reinterpret_cast<const std::byte*>(src.data()), idx, classify_indices(idx),
         reinterpret_cast<std::byte*>(a.data()));
  for (size_t k = 0; k < idx.size(); ++k) b[static_cast<size_t>(idx[k])] = std::max(b[static_cast<size_t>(idx[k])], src[k]);
  EXPECT_EQ(a, b);
}

TEST(Pack, FetchAndOpUnpackReturnsValuesBeforeEachUpdate) {
  std::vector<std::int32_t> root = {5, 7};
  const std::vector<std::int32_t> src = {1, 2, 3};
  std::vector<std::int32_t> fetched(3);
  const std::vector<Index> idx = {1, 1, 0};
  fetch_and_op_unpack(Unit::int32, 1, MpiOp::sum, reinterpret_cast<const std::byte*>(src.data()), idx, classify_indices(idx),
                      reinterpret_cast<std::byte*>(root.data()), reinterpret_cast<std::byte*>(fetched.data()));
  EXPECT_EQ(fetched, (std::vector<std::int32_t>{7, 8, 5}));
  EXPECT_EQ(root, (std::vector<std::int32_t>{8, 10}));
}
