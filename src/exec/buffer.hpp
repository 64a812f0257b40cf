// A typed array of `count` vertices, each `bs` components of one unit, as raw bytes.
#pragma once

#include <cstddef>
#include <cstring>
#include <vector>

#include "core/graph.hpp"
#include "core/units.hpp"

namespace sfr::exec {

struct Buffer {
  core::Unit unit = core::Unit::float64;
  int bs = 1;
  core::Index count = 0;         // vertices
  std::vector<std::byte> bytes;  // count * bs * unit_size(unit)

  Buffer() = default;
  Buffer(core::Unit u, int b, core::Index n)
      : unit(u), bs(b), count(n), bytes(static_cast<size_t>(n) * static_cast<size_t>(b) * core::unit_size(u)) {}

  template <class T>
  T* as() {
    return reinterpret_cast<T*>(bytes.data());
  }
  template <class T>
  const T* as() const {
    return reinterpret_cast<const T*>(bytes.data());
  }
  std::size_t components() const { return static_cast<size_t>(count) * static_cast<size_t>(bs); }
  bool operator==(const Buffer& o) const { return unit == o.unit && bs == o.bs && count == o.count && bytes == o.bytes; }
};

}  // namespace sfr::exec
