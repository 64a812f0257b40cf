// Small helpers to emit JSON text quickly (large integer arrays dominate traces and dumps).
#pragma once

#include <charconv>
#include <cmath>
#include <cstdio>
#include <span>
#include <string>

namespace sfr::io {

inline void append_int(std::string& out, long long v) {
  char buf[24];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
  (void)ec;
  out.append(buf, p);
}

// Shortest round-trip text of a double; integral values print without a fraction.
inline void append_double(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  char buf[32];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
  (void)ec;
  out.append(buf, p);
}

template <class T>
void append_int_array(std::string& out, std::span<const T> v) {
  out += '[';
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ',';
    append_int(out, static_cast<long long>(v[i]));
  }
  out += ']';
}

}  // namespace sfr::io
