// Strict sf-trace v1 reader. Every violation throws InputError whose message is one line:
// "SOURCE: /json/pointer: what is wrong" (or "SOURCE:LINE:COL: malformed JSON: ..."). The trace
// is validated completely (graphs built, ranges checked) before it is returned.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "trace/trace.hpp"

namespace sfr::trace {

struct ReadOptions {
  // Memory the SF graphs may take (bytes; 0: the memory available now). An SF whose estimated
  // size would pass it is refused (InputError naming /sfs/NAME, exit status 2) before it is built.
  std::uint64_t max_memory = 0;
};

// Pattern SFs are built when first used (BuiltTrace::graph), within the same limit.
BuiltTrace parse_trace(std::string_view text, const std::string& source, const ReadOptions& o = {});
BuiltTrace read_trace_file(const std::string& path, const ReadOptions& o = {});

}  // namespace sfr::trace
