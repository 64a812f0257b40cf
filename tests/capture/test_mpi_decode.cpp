// The capture library's decoding of MPI datatypes and ops (src/capture/preload/mpi_decode.cpp)
// against types built here: named types, contiguous and duplicated types over them, nested (a
// block of blocks multiplies), and what the trace cannot express (a vector, a struct, MPI_CHAR, a
// user-defined op), which is refused with a description. One MPI process (singleton init).
#include <gtest/gtest.h>
#include <mpi.h>

#include "capture/preload/mpi_decode.hpp"

using sfr::capture::decode_op;
using sfr::capture::decode_unit;

namespace {

MPI_Datatype commit(MPI_Datatype t) {
  MPI_Type_commit(&t);
  return t;
}
MPI_Datatype contiguous(int n, MPI_Datatype of) {
  MPI_Datatype t;
  MPI_Type_contiguous(n, of, &t);
  return commit(t);
}
MPI_Datatype dup(MPI_Datatype of) {
  MPI_Datatype t;
  MPI_Type_dup(of, &t);
  return commit(t);
}

void user_op(void*, void*, int*, MPI_Datatype*) {}

}  // namespace

TEST(MpiDecode, NamedTypes) {
  const std::pair<MPI_Datatype, const char*> named[] = {{MPI_INT, "int32"},       {MPI_INT32_T, "int32"},   {MPI_LONG, "int64"},
                                                        {MPI_LONG_LONG, "int64"}, {MPI_INT64_T, "int64"},   {MPI_FLOAT, "float32"},
                                                        {MPI_DOUBLE, "float64"},  {MPI_2INT, "int32_pair"}, {MPI_C_DOUBLE_COMPLEX, "complex128"}};
  for (const auto& [t, unit] : named) {
    const auto d = decode_unit(t);
    EXPECT_EQ(d.unit, unit);
    EXPECT_EQ(d.bs, 1) << unit;
  }
}

TEST(MpiDecode, BlocksMultiplyThroughContiguousAndDuplicatedTypes) {
  MPI_Datatype c3 = contiguous(3, MPI_DOUBLE), c2c3 = contiguous(2, c3), d = dup(c2c3), c5 = contiguous(5, MPI_INT64_T);
  EXPECT_EQ(decode_unit(c3).unit, "float64");
  EXPECT_EQ(decode_unit(c3).bs, 3);
  EXPECT_EQ(decode_unit(c2c3).bs, 6);
  EXPECT_EQ(decode_unit(d).unit, "float64");
  EXPECT_EQ(decode_unit(d).bs, 6);
  EXPECT_EQ(decode_unit(c5).unit, "int64");
  EXPECT_EQ(decode_unit(c5).bs, 5);
  for (MPI_Datatype* t : {&c3, &c2c3, &d, &c5}) MPI_Type_free(t);
}

TEST(MpiDecode, WhatTheTraceCannotExpressIsRefusedWithItsName) {
  MPI_Datatype v;
  MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &v);
  v = commit(v);
  MPI_Type_set_name(v, "a strided pair");
  const auto dv = decode_unit(v);
  EXPECT_EQ(dv.unit, "");
  EXPECT_EQ(dv.what, "a strided pair");
  const auto dc = decode_unit(MPI_CHAR);
  EXPECT_EQ(dc.unit, "");
  EXPECT_EQ(dc.what, "MPI_CHAR");
  MPI_Datatype cv = contiguous(2, v);  // a block of what cannot be expressed cannot be either
  EXPECT_EQ(decode_unit(cv).unit, "");
  MPI_Type_free(&cv);
  MPI_Type_free(&v);
}

TEST(MpiDecode, Ops) {
  const std::pair<MPI_Op, const char*> ops[] = {{MPI_REPLACE, "replace"}, {MPI_SUM, "sum"},   {MPI_PROD, "prod"}, {MPI_MAX, "max"},
                                                {MPI_MIN, "min"},         {MPI_LAND, "land"}, {MPI_LOR, "lor"},   {MPI_LXOR, "lxor"},
                                                {MPI_BAND, "band"},       {MPI_BOR, "bor"},   {MPI_BXOR, "bxor"}, {MPI_MAXLOC, "maxloc"},
                                                {MPI_MINLOC, "minloc"}};
  for (const auto& [op, name] : ops) EXPECT_EQ(decode_op(op), name);
  MPI_Op mine;
  MPI_Op_create(user_op, 1, &mine);
  EXPECT_EQ(decode_op(mine), "");
  MPI_Op_free(&mine);
}

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (::testing::GTEST_FLAG(list_tests)) return RUN_ALL_TESTS();  // (the build lists them: no MPI there)
  MPI_Init(&argc, &argv);
  const int rc = RUN_ALL_TESTS();
  MPI_Finalize();
  return rc;
}
