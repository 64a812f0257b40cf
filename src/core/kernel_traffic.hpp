// What a pack or unpack kernel must move through device memory, for a roofline: its time against
// the bytes it cannot avoid moving at the device's bandwidth. Device memory is read and written in
// sectors (32 bytes on NVIDIA GPUs, the unit of an L2 miss), so a kernel moves at least every
// distinct sector its accesses touch, once: the indexed side's sectors (a stride or a scattered
// list touches more bytes than it uses), the packed buffer's, and an index list's own. A sector
// read twice when the cache lost it between the two reads is not counted: the floor is the
// compulsory traffic, and a pattern with no locality shows as a low fraction of it.
#pragma once

#include <cstdint>

#include "core/kernels.hpp"

namespace sfr::core {

inline constexpr std::int64_t kSectorBytes = 32;

// Distinct sectors that n values of value_bytes each at idx's positions touch (positions are in
// values; the array starts on a sector, as cudaMalloc's 256-byte alignment ensures). A list is
// read on the host.
std::int64_t sectors_touched(const IndexView& idx, Index n, std::int64_t value_bytes);

enum class KernelKind {
  pack,            // read the indexed side, write the packed buffer
  unpack_replace,  // read the packed buffer, write the indexed side
  unpack_combine,  // the same, reading the indexed side as well (sum, max, ...)
};
struct KernelTraffic {
  std::int64_t read = 0, written = 0;  // bytes
  std::int64_t total() const { return read + written; }
};
// value_bytes = unit size x block size; index_bytes: each list entry's size (general lists only).
KernelTraffic kernel_traffic(KernelKind k, const IndexView& idx, Index n, std::int64_t value_bytes,
                             std::int64_t index_bytes = sizeof(Index));

// The share of `bytes_per_second` that moving `bytes` in `seconds` reached (0 for a zero time).
double roofline_fraction(std::int64_t bytes, double seconds, double bytes_per_second);

}  // namespace sfr::core
