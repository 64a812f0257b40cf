// One number as printf writes it, for the text reports of every layer ("%.3f", "%.1fx", ...).
#pragma once

#include <cstdio>
#include <string>

namespace sfr::core {

// `format` takes one double (and may add text around it); the result is cut at 63 characters.
inline std::string format_number(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace sfr::core
