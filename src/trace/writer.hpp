// sf-trace v1 writer: SFs in their original form, so that read(write(t)) == t.
#pragma once

#include <string>

#include "trace/trace.hpp"

namespace sfr::trace {

std::string write_trace(const Trace& t);
void write_trace_file(const Trace& t, const std::string& path);  // atomic

}  // namespace sfr::trace
