// sf-dump v1 writer (spec section 4): per op, per rank, the arrays the op wrote, as flat numbers.
#pragma once

#include <string>
#include <vector>

#include "exec/conformance.hpp"
#include "trace/trace.hpp"

namespace sfr::exec {

struct DumpEntry {
  std::size_t index;  // position of the op in the trace
  const core::OpSpec* op;
  OpArrays result;
};

// An op of the trace the dump leaves out, and why (an extension of sf-dump v1, src/trace/README.md).
struct SkippedOp {
  std::size_t index;
  std::string reason;
};

std::string write_dump(const std::string& trace_name, const std::vector<DumpEntry>& entries, const std::vector<SkippedOp>& skipped = {});
// Appends the flat numbers of one buffer (complex and pairs as two numbers).
void append_buffer_numbers(std::string& out, const Buffer& b);

}  // namespace sfr::exec
