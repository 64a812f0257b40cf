// Seeded mutations of JSON text for the readers' fuzz tests: byte flips, deleted, duplicated and
// truncated spans, inserted JSON tokens and numbers replaced by edge values. Deterministic for a
// given seed, so a failure names its reproducer.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace sfr_test {

inline std::string mutate(std::string s, std::uint64_t seed) {
  static const std::vector<std::string> tokens = {"[",
                                                  "]",
                                                  "{",
                                                  "}",
                                                  ",",
                                                  ":",
                                                  "\"",
                                                  "-",
                                                  "1e308",
                                                  "-1",
                                                  "0",
                                                  "2.5",
                                                  "18446744073709551616",
                                                  "9223372036854775807",
                                                  "1099511627776",
                                                  "4294967296",
                                                  "null",
                                                  "true",
                                                  "\"x\"",
                                                  "[]",
                                                  "{}",
                                                  "\"\\u0000\"",
                                                  "\"nroots\"",
                                                  "\"derive\"",
                                                  "\"of\"",
                                                  "\"pattern\"",
                                                  "\"ranks\"",
                                                  "\"ilocal\"",
                                                  "\"multi\"",
                                                  "\"inverse\"",
                                                  "\"allgather\"",
                                                  "\"alltoall\"",
                                                  "\"\xff\""};
  std::mt19937_64 rng(seed);
  auto pick = [&](std::size_t n) { return n == 0 ? std::size_t{0} : static_cast<std::size_t>(rng() % n); };
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits; ++e) {
    const std::size_t at = pick(s.size() + 1);
    switch (rng() % 6) {
      case 0:
        if (!s.empty()) s[pick(s.size())] = static_cast<char>(rng() & 0xff);
        break;
      case 1: s.erase(at, 1 + pick(16)); break;
      case 2: s.insert(at, s.substr(at, 1 + pick(32))); break;
      case 3: s.insert(at, tokens[pick(tokens.size())]); break;
      case 4: {  // a number replaced by an edge value
        const auto d = s.find_first_of("0123456789", at);
        if (d == std::string::npos) break;
        const auto end = s.find_first_not_of("0123456789", d);
        s.replace(d, (end == std::string::npos ? s.size() : end) - d, tokens[8 + pick(7)]);
        break;
      }
      case 5: s.resize(at); break;
    }
  }
  return s;
}

}  // namespace sfr_test
