// Strict sf-trace v1 reader. Every violation throws InputError whose message is one line:
// "SOURCE: /json/pointer: what is wrong" (or "SOURCE:LINE:COL: malformed JSON: ..."). The trace
// is validated completely (graphs built, ranges checked) before it is returned.
#pragma once

#include <string>
#include <string_view>

#include "trace/trace.hpp"

namespace sfr::trace {

BuiltTrace parse_trace(std::string_view text, const std::string& source);
BuiltTrace read_trace_file(const std::string& path);

}  // namespace sfr::trace
