// Numbers and sizes as the text reports of every layer print them: one place for printf
// conventions ("%.3f us", "1.5 GiB"), so that a report, a refusal and a table agree.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <type_traits>

namespace sfr::core {

// `format` takes the given doubles in order (and may add text around them); the result is cut at
// 255 characters.
template <class... Doubles>
std::string format_number(const char* format, Doubles... v) {
  static_assert((std::is_same_v<Doubles, double> && ...), "format_number takes doubles");
  char buf[256];
  std::snprintf(buf, sizeof buf, format, v...);
  return buf;
}

// `s` widened with spaces to `width` characters (never cut): the columns of a fit table.
inline std::string padded(std::string s, std::size_t width) {
  if (s.size() < width) s.resize(width, ' ');
  return s;
}

// "1.5 GiB", "300 MiB", "12 KiB", "100 B" (powers of 1024, one decimal past bytes).
std::string format_bytes(long double bytes);

}  // namespace sfr::core
