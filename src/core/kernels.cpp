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

GroupLists group_by_destination(std::span<const Index> idx, Index space) {
  GroupLists g;
  if (!has_repeats(idx, space)) return g;
  // A counting sort of the positions by destination: stable, so list order within a destination.
  std::vector<Index> count(static_cast<std::size_t>(space) + 1, 0);
  for (const Index i : idx) {
    if (i < 0 || i >= space)
      throw std::out_of_range("group_by_destination: index " + std::to_string(i) + " outside [0, " + std::to_string(space) + ")");
    ++count[static_cast<std::size_t>(i) + 1];
  }
  for (std::size_t i = 1; i < count.size(); ++i) count[i] += count[i - 1];
  g.order.resize(idx.size());
  std::vector<Index> next(count.begin(), count.end() - 1);
  for (std::size_t k = 0; k < idx.size(); ++k) g.order[static_cast<std::size_t>(next[static_cast<std::size_t>(idx[k])]++)] = static_cast<Index>(k);
  g.starts.push_back(0);
  for (std::size_t i = 0; i + 1 < count.size(); ++i)
    if (count[i + 1] > count[i]) g.starts.push_back(count[i + 1]);
  return g;
}

}  // namespace sfr::core
