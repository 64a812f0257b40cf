#include <gtest/gtest.h>

#include "core/ops.hpp"

using namespace sfr::core;

TEST(Ops, LegalityFollowsMpi) {
  for (MpiOp op : kAllOps) {
    EXPECT_TRUE(op_legal(Unit::int32, op) == (op != MpiOp::maxloc && op != MpiOp::minloc)) << mpi_op_name(op);
    EXPECT_TRUE(op_legal(Unit::int64, op) == op_legal(Unit::int32, op));
    const bool fl = op == MpiOp::replace || op == MpiOp::sum || op == MpiOp::prod || op == MpiOp::max || op == MpiOp::min;
    EXPECT_EQ(op_legal(Unit::float32, op), fl) << mpi_op_name(op);
    EXPECT_EQ(op_legal(Unit::float64, op), fl) << mpi_op_name(op);
    EXPECT_EQ(op_legal(Unit::complex128, op), op == MpiOp::replace || op == MpiOp::sum || op == MpiOp::prod);
    EXPECT_EQ(op_legal(Unit::int32_pair, op), op == MpiOp::replace || op == MpiOp::maxloc || op == MpiOp::minloc);
  }
}

TEST(Ops, NamesRoundTrip) {
  for (MpiOp op : kAllOps) {
    MpiOp back{};
    ASSERT_TRUE(parse_mpi_op(mpi_op_name(op), back));
    EXPECT_EQ(back, op);
  }
  for (Unit u : kAllUnits) {
    Unit back{};
    ASSERT_TRUE(parse_unit(unit_name(u), back));
    EXPECT_EQ(back, u);
  }
  MpiOp o{};
  EXPECT_FALSE(parse_mpi_op("MPI_SUM", o));
}

TEST(Ops, MaxlocMinlocTiesTakeSmallerIndex) {
  Int32Pair d{3, 7};
  OpMaxloc::apply(d, Int32Pair{3, 2});
  EXPECT_EQ(d, (Int32Pair{3, 2}));
  OpMaxloc::apply(d, Int32Pair{2, 0});
  EXPECT_EQ(d, (Int32Pair{3, 2}));
  OpMaxloc::apply(d, Int32Pair{4, 9});
  EXPECT_EQ(d, (Int32Pair{4, 9}));
  Int32Pair m{3, 7};
  OpMinloc::apply(m, Int32Pair{3, 8});
  EXPECT_EQ(m, (Int32Pair{3, 7}));
  OpMinloc::apply(m, Int32Pair{1, 8});
  EXPECT_EQ(m, (Int32Pair{1, 8}));
}

TEST(Ops, LogicalOpsNormaliseToZeroOne) {
  int x = 5;
  OpLand::apply(x, 3);
  EXPECT_EQ(x, 1);
  OpLxor::apply(x, 7);
  EXPECT_EQ(x, 0);
  OpLor::apply(x, 0);
  EXPECT_EQ(x, 0);
  OpLor::apply(x, 9);
  EXPECT_EQ(x, 1);
  std::int64_t b = 12;
  OpBxor::apply(b, std::int64_t{10});
  EXPECT_EQ(b, 6);
}
