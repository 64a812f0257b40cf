#include <iostream>

#include "core/derive.hpp"
#include "trace/reader.hpp"

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const auto t = sfr::trace::read_trace_file(argv[1]);
  const auto m = sfr::core::multi_sf(t.graph(t.trace().sfs.front().name));
  std::cout << "multi-SF roots: " << m.total_roots() << "\n";
  return 0;
}
