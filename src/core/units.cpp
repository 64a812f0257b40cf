#include "core/units.hpp"

#include "core/names.hpp"

namespace sfr::core {

namespace {
constexpr std::array<Named<Unit>, 6> kUnitNames{{{Unit::int32, "int32"},
                                                 {Unit::int64, "int64"},
                                                 {Unit::float32, "float32"},
                                                 {Unit::float64, "float64"},
                                                 {Unit::complex128, "complex128"},
                                                 {Unit::int32_pair, "int32_pair"}}};
}  // namespace

bool parse_unit(std::string_view s, Unit& out) { return parse_name(s, kUnitNames, out); }
const char* unit_name(Unit u) { return name_of(u, kUnitNames); }

std::size_t unit_size(Unit u) {
  return visit_unit(u, []<class T>() { return sizeof(T); });
}

int unit_numbers(Unit u) { return (u == Unit::complex128 || u == Unit::int32_pair) ? 2 : 1; }

}  // namespace sfr::core
