#include "core/kernels.hpp"

#include <vector>

namespace sfr::core {

bool has_repeats(std::span<const Index> idx, Index space) {
  std::vector<bool> seen(static_cast<std::size_t>(space > 0 ? space : 0), false);
  for (const Index i : idx) {
    if (i < 0 || i >= space)
      throw std::out_of_range("has_repeats: index " + std::to_string(i) + " outside [0, " + std::to_string(space) + ")");
    if (seen[static_cast<std::size_t>(i)]) return true;
    seen[static_cast<std::size_t>(i)] = true;
  }
  return false;
}

}  // namespace sfr::core
