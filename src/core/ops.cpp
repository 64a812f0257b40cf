#include "core/ops.hpp"

namespace sfr::core {

bool parse_mpi_op(std::string_view s, MpiOp& out) {
  for (MpiOp op : kAllOps)
    if (s == mpi_op_name(op)) {
      out = op;
      return true;
    }
  return false;
}

const char* mpi_op_name(MpiOp op) {
  switch (op) {
    case MpiOp::replace: return "replace";
    case MpiOp::sum: return "sum";
    case MpiOp::prod: return "prod";
    case MpiOp::max: return "max";
    case MpiOp::min: return "min";
    case MpiOp::land: return "land";
    case MpiOp::lor: return "lor";
    case MpiOp::lxor: return "lxor";
    case MpiOp::band: return "band";
    case MpiOp::bor: return "bor";
    case MpiOp::bxor: return "bxor";
    case MpiOp::maxloc: return "maxloc";
    case MpiOp::minloc: return "minloc";
  }
  return "?";
}

bool op_legal(Unit unit, MpiOp op) {
  return visit_unit(unit, [&]<class T>() { return visit_op(op, []<class O>() { return O::template legal<T>; }); });
}

}  // namespace sfr::core
