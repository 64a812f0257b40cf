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

// Written straight into the string's buffer (sized for the longest numbers first): about twice
// as fast as one append per number (sfr_bench_writer measures it against nlohmann's dump).
template <class T>
void append_int_array(std::string& out, std::span<const T> v) {
  const std::size_t old = out.size();
  out.resize(old + 2 + v.size() * 21);  // '[', then up to 20 characters and a ',' per number, ']'
  char* p = out.data() + old;
  char* const end = out.data() + out.size();
  *p++ = '[';
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) *p++ = ',';
    p = std::to_chars(p, end, static_cast<long long>(v[i])).ptr;
  }
  *p++ = ']';
  out.resize(static_cast<std::size_t>(p - out.data()));
}

}  // namespace sfr::io
