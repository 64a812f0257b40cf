#include "core/ops.hpp"

#include "core/names.hpp"

namespace sfr::core {

namespace {
constexpr std::array<Named<MpiOp>, 13> kMpiOpNames{{{MpiOp::replace, "replace"},
                                                    {MpiOp::sum, "sum"},
                                                    {MpiOp::prod, "prod"},
                                                    {MpiOp::max, "max"},
                                                    {MpiOp::min, "min"},
                                                    {MpiOp::land, "land"},
                                                    {MpiOp::lor, "lor"},
                                                    {MpiOp::lxor, "lxor"},
                                                    {MpiOp::band, "band"},
                                                    {MpiOp::bor, "bor"},
                                                    {MpiOp::bxor, "bxor"},
                                                    {MpiOp::maxloc, "maxloc"},
                                                    {MpiOp::minloc, "minloc"}}};
}  // namespace

bool parse_mpi_op(std::string_view s, MpiOp& out) { return parse_name(s, kMpiOpNames, out); }
const char* mpi_op_name(MpiOp op) { return name_of(op, kMpiOpNames); }

bool op_legal(Unit unit, MpiOp op) {
  return visit_unit(unit, [&]<class T>() { return visit_op(op, []<class O>() { return O::template legal<T>; }); });
}

}  // namespace sfr::core
