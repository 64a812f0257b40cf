// Names of closed sets (enums): one table per enum, {value, name} pairs, and the lookups every
// enum <-> name conversion goes through (traces, dumps, the CLI, generators, the simulator).
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace sfr::core {

template <class E>
struct Named {
  E value;
  const char* name;
};

// The name of `v` in `table` ("?" for a value the table lacks).
template <class E, std::size_t N>
constexpr const char* name_of(E v, const std::array<Named<E>, N>& table) {
  for (const auto& e : table)
    if (e.value == v) return e.name;
  return "?";
}

// The value named `s`; false when no entry has that name.
template <class E, std::size_t N>
constexpr bool parse_name(std::string_view s, const std::array<Named<E>, N>& table, E& out) {
  for (const auto& e : table)
    if (s == e.name) {
      out = e.value;
      return true;
    }
  return false;
}

// "a, b or c": the names of a table, for error messages.
template <class E, std::size_t N>
std::string name_list(const std::array<Named<E>, N>& table) {
  std::string list;
  for (std::size_t i = 0; i < N; ++i) list += std::string(i == 0 ? "" : i + 1 == N ? " or " : ", ") + table[i].name;
  return list;
}

}  // namespace sfr::core
