#include "core/format.hpp"

namespace sfr::core {

std::string format_bytes(long double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024 && u < 6) bytes /= 1024, ++u;
  char buf[64];
  if (u == 6 && bytes >= 1024)
    std::snprintf(buf, sizeof buf, "%.3Lg EiB", bytes);
  else
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0Lf %s" : "%.1Lf %s", bytes, units[u]);
  return buf;
}

}  // namespace sfr::core
