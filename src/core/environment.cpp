#include "core/environment.hpp"

#include <cerrno>

#include "core/error.hpp"

namespace sfr::core {

static_assert([] {
  for (std::size_t i = 0; i < std::size(kEnvironment); ++i)
    if (static_cast<std::size_t>(kEnvironment[i].id) != i) return false;
  return true;
}(), "kEnvironment is in Env order");

std::optional<std::uint64_t> emulated_device_seed() {
  const char* seed = env_value(Env::emulate_device);
  if (!seed || !*seed) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(seed, &end, 10);
  if (*seed == '-' || *end != '\0' || errno != 0)
    throw InputError(env_name(Env::emulate_device), std::string("expected a seed (an unsigned integer), got \"") + seed + "\"");
  return v;
}

}  // namespace sfr::core
