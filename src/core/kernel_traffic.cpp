#include "core/kernel_traffic.hpp"

#include <algorithm>
#include <vector>

namespace sfr::core {

namespace {
std::int64_t sectors_of_span(std::int64_t bytes) { return (bytes + kSectorBytes - 1) / kSectorBytes; }
}  // namespace

std::int64_t sectors_touched(const IndexView& idx, Index n, std::int64_t value_bytes) {
  if (n <= 0 || value_bytes <= 0 || idx.kind == IndexShape::empty) return 0;
  if (idx.kind == IndexShape::contiguous) {
    const std::int64_t first = idx.start * value_bytes / kSectorBytes, last = ((idx.start + n) * value_bytes - 1) / kSectorBytes;
    return last - first + 1;
  }
  // Every other shape: mark each value's sectors in a bitmap over the span they lie in.
  Index lo = idx.at(0), hi = lo;
  for (Index k = 1; k < n; ++k) lo = std::min(lo, idx.at(k)), hi = std::max(hi, idx.at(k));
  const std::int64_t base = lo * value_bytes / kSectorBytes;
  std::vector<bool> touched(static_cast<std::size_t>((hi + 1) * value_bytes / kSectorBytes - base + 1), false);
  for (Index k = 0; k < n; ++k) {
    const std::int64_t a = idx.at(k) * value_bytes;
    for (std::int64_t s = a / kSectorBytes; s <= (a + value_bytes - 1) / kSectorBytes; ++s) touched[static_cast<std::size_t>(s - base)] = true;
  }
  return static_cast<std::int64_t>(std::count(touched.begin(), touched.end(), true));
}

KernelTraffic kernel_traffic(KernelKind k, const IndexView& idx, Index n, std::int64_t value_bytes, std::int64_t index_bytes) {
  const std::int64_t indexed = sectors_touched(idx, n, value_bytes) * kSectorBytes;
  const std::int64_t packed = sectors_of_span(n * value_bytes) * kSectorBytes;
  const std::int64_t list = idx.kind == IndexShape::general ? sectors_of_span(n * index_bytes) * kSectorBytes : 0;
  switch (k) {
    case KernelKind::pack: return {indexed + list, packed};
    case KernelKind::unpack_replace: return {packed + list, indexed};
    case KernelKind::unpack_combine: return {packed + list + indexed, indexed};
  }
  return {};
}

double roofline_fraction(std::int64_t bytes, double seconds, double bytes_per_second) {
  return seconds > 0 && bytes_per_second > 0 ? static_cast<double>(bytes) / seconds / bytes_per_second : 0;
}

}  // namespace sfr::core
