// The op traits table against the spec (sf-trace-v1.md sections 3 and 4, transcribed here by
// hand) and PetscSF's data flow: a wrong entry in the table shows up here by name.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "core/op_spec.hpp"

using namespace sfr::core;

namespace {

std::vector<std::string> strings(std::span<const char* const> v) { return {v.begin(), v.end()}; }

}  // namespace

TEST(OpSpec, DumpArraysAreTheSpecs) {
  // Spec section 4: what each op dumps per rank, in this order.
  const std::map<std::string, std::vector<std::string>> spec{
      {"bcast", {"leafdata"}},       {"reduce", {"rootdata"}},  {"fetch_and_op", {"rootdata", "leafupdate"}},
      {"gather", {"multirootdata"}}, {"scatter", {"leafdata"}}, {"degree", {"degree"}}};
  ASSERT_EQ(op_traits_table().size(), spec.size());
  for (const OpTraits& t : op_traits_table()) EXPECT_EQ(strings(t.written()), spec.at(t.name)) << t.name;
}

TEST(OpSpec, ArraysThatStartZeroAreTheOnesOnlyWritten) {
  // Spec section 3: leafupdate and gather's multirootdata start zero; every other array an op
  // touches holds its conformance input (leaf holes keep their values, so scatter reads leafdata).
  for (const OpTraits& t : op_traits_table())
    for (const char* a : t.written()) {
      const std::string name = a;
      const bool zero = name == "leafupdate" || (name == "multirootdata" && t.kind == OpKind::gather) || t.kind == OpKind::degree;
      EXPECT_EQ(t.reads_array(name), !zero) << t.name << " " << name;
    }
  EXPECT_TRUE(op_traits(OpKind::scatter).reads_array("multirootdata"));
  EXPECT_FALSE(op_traits(OpKind::gather).reads_array("multirootdata"));
}

TEST(OpSpec, DirectionsFollowPetscSF) {
  using D = Direction;
  const std::map<OpKind, std::vector<D>> flow{
      {OpKind::bcast, {D::root_to_leaf}},  {OpKind::scatter, {D::root_to_leaf}},
      {OpKind::reduce, {D::leaf_to_root}}, {OpKind::gather, {D::leaf_to_root}},
      {OpKind::degree, {D::leaf_to_root}}, {OpKind::fetch_and_op, {D::leaf_to_root, D::root_to_leaf}}};
  for (const OpTraits& t : op_traits_table()) {
    const auto d = t.directions();
    EXPECT_EQ(std::vector<D>(d.begin(), d.end()), flow.at(t.kind)) << t.name;
  }
  EXPECT_TRUE(op_traits(OpKind::gather).on_multi);
  EXPECT_TRUE(op_traits(OpKind::scatter).on_multi);
  EXPECT_FALSE(op_traits(OpKind::bcast).on_multi);
}

TEST(OpSpec, WireBytesAndMpiOps) {
  OpSpec op;
  op.unit = Unit::complex128;
  op.bs = 3;
  op.op = OpKind::bcast;
  EXPECT_EQ(op_vertex_bytes(op), 48);
  // Degree moves one int64 count per leaf whatever the op's unit (PetscSFComputeDegree's SUM of ones).
  op.op = OpKind::degree;
  EXPECT_EQ(op_wire_unit(op), Unit::int64);
  EXPECT_EQ(op_wire_bs(op), 1);
  EXPECT_EQ(op_vertex_bytes(op), 8);
  EXPECT_EQ(op_applied_mpi_op(op), MpiOp::sum);
  EXPECT_FALSE(op_named_mpi_op(op).has_value());
  op.op = OpKind::fetch_and_op;
  op.mpi_op = MpiOp::max;
  EXPECT_EQ(op_named_mpi_op(op), MpiOp::max);
  EXPECT_EQ(default_mpi_op(OpKind::fetch_and_op), MpiOp::sum);
  op.op = OpKind::gather;
  EXPECT_EQ(op_applied_mpi_op(op), MpiOp::replace);
  for (const OpTraits& t : op_traits_table()) {
    OpKind k{};
    ASSERT_TRUE(parse_op_kind(t.name, k)) << t.name;
    EXPECT_EQ(k, t.kind);
  }
  EXPECT_EQ(op_kind_list(), "bcast, reduce, fetch_and_op, gather, scatter or degree");
}
