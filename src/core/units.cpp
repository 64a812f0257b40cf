#include "core/units.hpp"

namespace sfr::core {

bool parse_unit(std::string_view s, Unit& out) {
  for (Unit u : kAllUnits)
    if (s == unit_name(u)) {
      out = u;
      return true;
    }
  return false;
}

const char* unit_name(Unit u) {
  switch (u) {
    case Unit::int32: return "int32";
    case Unit::int64: return "int64";
    case Unit::float32: return "float32";
    case Unit::float64: return "float64";
    case Unit::complex128: return "complex128";
    case Unit::int32_pair: return "int32_pair";
  }
  return "?";
}

std::size_t unit_size(Unit u) {
  return visit_unit(u, []<class T>() { return sizeof(T); });
}

int unit_numbers(Unit u) { return (u == Unit::complex128 || u == Unit::int32_pair) ? 2 : 1; }

}  // namespace sfr::core
