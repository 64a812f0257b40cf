#include "core/budget.hpp"

#include <cctype>
#include <cstdio>
#include <fstream>

#include "core/error.hpp"
#include "core/format.hpp"

namespace sfr::core {

std::uint64_t available_memory() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (in >> key >> kib) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return kib * 1024;
  }
  return std::uint64_t{8} << 30;
}

std::uint64_t memory_limit(std::uint64_t given) { return given ? given : available_memory(); }

std::uint64_t parse_bytes(const std::string& option, const std::string& text) {
  auto bad = [&](const std::string& why) { return InputError(option, why + " (got '" + text + "'; e.g. 4G, 512M, 1000000)"); };
  std::size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i == 0) throw bad("expected a byte count");
  if (i > 19) throw bad("too large");
  std::uint64_t v = std::stoull(text.substr(0, i));
  std::string suffix = text.substr(i);
  for (auto& c : suffix) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (suffix.size() >= 2 && suffix.substr(suffix.size() - 2) == "IB")
    suffix.erase(suffix.size() - 2);
  else if (!suffix.empty() && suffix.back() == 'B')
    suffix.pop_back();
  int shift = 0;
  if (suffix == "K")
    shift = 10;
  else if (suffix == "M")
    shift = 20;
  else if (suffix == "G")
    shift = 30;
  else if (suffix == "T")
    shift = 40;
  else if (!suffix.empty())
    throw bad("unknown unit '" + text.substr(i) + "'");
  if (v == 0) throw bad("must be more than 0");
  if (v > (std::uint64_t{1} << (62 - shift))) throw bad("too large");
  return v << shift;
}

void check_budget(const SizeEstimate& e, std::uint64_t limit) {
  if (e.bytes <= static_cast<long double>(limit)) return;
  throw InputError(e.option, "would build " + e.what + ": about " + format_bytes(e.bytes) + ", over the memory limit of " +
                                 format_bytes(static_cast<long double>(limit)) + " (--max-memory)");
}

}  // namespace sfr::core
