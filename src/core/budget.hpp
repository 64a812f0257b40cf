// Memory budget of a command: what it will build is estimated from its inputs before anything is
// allocated, and refused (InputError, exit status 2) when it would not fit under the limit.
#pragma once

#include <cstdint>
#include <string>

namespace sfr::core {

// Bytes of memory available to a new allocation now (MemAvailable of /proc/meminfo; 8 GiB when
// the system does not say).
std::uint64_t available_memory();

// `given` when it is not 0, else available_memory().
std::uint64_t memory_limit(std::uint64_t given);

// A byte count as given on the command line: an integer with an optional K, M, G or T suffix
// (powers of 1024; "KiB"-style and a trailing "B" accepted). InputError naming `option` otherwise,
// for 0, negatives and values over 2^62.
std::uint64_t parse_bytes(const std::string& option, const std::string& text);

// What a command will hold at its peak, from its options: `bytes` (long double: a product of
// options may exceed 2^64) and a short description of what the bytes are for ("3.2e+10 leaves").
struct SizeEstimate {
  std::string option;  // the option (or place) most responsible, named in the refusal
  long double bytes = 0;
  std::string what;
};

// InputError(option, "would build WHAT: about X, over the memory limit of Y (--max-memory)") when
// e.bytes > limit.
void check_budget(const SizeEstimate& e, std::uint64_t limit);

}  // namespace sfr::core
