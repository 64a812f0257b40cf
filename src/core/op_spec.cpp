#include "core/op_spec.hpp"

#include "core/names.hpp"

namespace sfr::core {

namespace {

using D = Direction;
// clang-format off
constexpr std::array<OpTraits, 6> kOps{{
    // kind, name, motion, on_multi, takes_mpi_op, default_mpi_op, fixed_mpi_op, has_unit,
    // rounds, writes, reads
    {OpKind::bcast, "bcast", Motion::bcast, false, true, MpiOp::replace, MpiOp::replace, true,
     1, {D::root_to_leaf, D::root_to_leaf}, 1, {"leafdata", nullptr}, 2, {"rootdata", "leafdata"}},
    {OpKind::reduce, "reduce", Motion::reduce, false, true, MpiOp::replace, MpiOp::replace, true,
     1, {D::leaf_to_root, D::leaf_to_root}, 1, {"rootdata", nullptr}, 2, {"leafdata", "rootdata"}},
    {OpKind::fetch_and_op, "fetch_and_op", Motion::fetch_and_op, false, true, MpiOp::sum, MpiOp::sum, true,
     2, {D::leaf_to_root, D::root_to_leaf}, 2, {"rootdata", "leafupdate"}, 2, {"rootdata", "leafdata"}},
    {OpKind::gather, "gather", Motion::reduce, true, false, MpiOp::replace, MpiOp::replace, true,
     1, {D::leaf_to_root, D::leaf_to_root}, 1, {"multirootdata", nullptr}, 1, {"leafdata", nullptr}},
    {OpKind::scatter, "scatter", Motion::bcast, true, false, MpiOp::replace, MpiOp::replace, true,
     1, {D::root_to_leaf, D::root_to_leaf}, 1, {"leafdata", nullptr}, 2, {"multirootdata", "leafdata"}},
    {OpKind::degree, "degree", Motion::reduce, false, false, MpiOp::replace, MpiOp::sum, false,
     1, {D::leaf_to_root, D::leaf_to_root}, 1, {"degree", nullptr}, 0, {nullptr, nullptr}},
}};
// clang-format on

constexpr bool in_kind_order() {
  for (std::size_t i = 0; i < kOps.size(); ++i)
    if (static_cast<std::size_t>(kOps[i].kind) != i) return false;
  return true;
}
static_assert(in_kind_order(), "kOps must list the ops in OpKind order");

constexpr std::array<Named<OpKind>, 6> kOpNames{{{OpKind::bcast, kOps[0].name},
                                                 {OpKind::reduce, kOps[1].name},
                                                 {OpKind::fetch_and_op, kOps[2].name},
                                                 {OpKind::gather, kOps[3].name},
                                                 {OpKind::scatter, kOps[4].name},
                                                 {OpKind::degree, kOps[5].name}}};
constexpr std::array<Named<MemType>, 2> kMemTypeNames{{{MemType::host, "host"}, {MemType::device, "device"}}};

}  // namespace

const std::array<OpTraits, 6>& op_traits_table() { return kOps; }
const OpTraits& op_traits(OpKind k) { return kOps[static_cast<std::size_t>(k)]; }

bool parse_op_kind(std::string_view s, OpKind& out) { return parse_name(s, kOpNames, out); }
const char* op_kind_name(OpKind k) { return op_traits(k).name; }
std::string op_kind_list() { return name_list(kOpNames); }
bool op_takes_mpi_op(OpKind k) { return op_traits(k).takes_mpi_op; }
MpiOp default_mpi_op(OpKind k) { return op_traits(k).default_mpi_op; }

bool parse_memtype(std::string_view s, MemType& out) { return parse_name(s, kMemTypeNames, out); }
const char* memtype_name(MemType m) { return name_of(m, kMemTypeNames); }

Unit op_wire_unit(const OpSpec& op) { return op_traits(op.op).has_unit ? op.unit : Unit::int64; }
int op_wire_bs(const OpSpec& op) { return op_traits(op.op).has_unit ? op.bs : 1; }
std::int64_t op_vertex_bytes(const OpSpec& op) { return static_cast<std::int64_t>(unit_size(op_wire_unit(op))) * op_wire_bs(op); }

std::optional<MpiOp> op_named_mpi_op(const OpSpec& op) {
  if (op_takes_mpi_op(op.op)) return op.mpi_op;
  return std::nullopt;
}
MpiOp op_applied_mpi_op(const OpSpec& op) { return op_takes_mpi_op(op.op) ? op.mpi_op : op_traits(op.op).fixed_mpi_op; }

}  // namespace sfr::core
