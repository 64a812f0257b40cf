// Units (MPI datatypes of one vertex component) and the C++ types that hold them.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace sfr::core {

enum class Unit { int32, int64, float32, float64, complex128, int32_pair };

// MPI_2INT layout: value then index.
struct Int32Pair {
  std::int32_t value;
  std::int32_t index;
  bool operator==(const Int32Pair&) const = default;
};

inline constexpr Unit kAllUnits[] = {Unit::int32, Unit::int64, Unit::float32, Unit::float64, Unit::complex128, Unit::int32_pair};

bool parse_unit(std::string_view s, Unit& out);
const char* unit_name(Unit u);
std::size_t unit_size(Unit u);  // bytes of one component
int unit_numbers(Unit u);       // numbers one component prints as in a dump (2 for complex/pair)

// Calls f.template operator()<T>() with the C++ type of the unit; complex128 as `Complex`
// (std::complex<double>, or a device-friendly struct of the same layout).
template <class Complex = std::complex<double>, class F>
decltype(auto) visit_unit(Unit u, F&& f) {
  switch (u) {
    case Unit::int32: return f.template operator()<std::int32_t>();
    case Unit::int64: return f.template operator()<std::int64_t>();
    case Unit::float32: return f.template operator()<float>();
    case Unit::float64: return f.template operator()<double>();
    case Unit::complex128: return f.template operator()<Complex>();
    case Unit::int32_pair: break;
  }
  return f.template operator()<Int32Pair>();
}

}  // namespace sfr::core
