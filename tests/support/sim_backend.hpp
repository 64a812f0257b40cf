// A simulated backend by its catalogue name, for tests that name one ("basic", "window"): the
// command line parses names (cli::parse_backends); every layer below takes the typed variant.
#pragma once

#include <stdexcept>
#include <string>

#include "core/backends.hpp"
#include "sim/strategies.hpp"

namespace sfr_test {

inline sfr::sim::BackendVariant sim_backend(const std::string& name) {
  const sfr::core::BackendInfo* b = sfr::core::find_backend(name);
  if (!b) throw std::invalid_argument("no backend " + name);
  return {b->id, false};
}

}  // namespace sfr_test
