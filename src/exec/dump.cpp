#include "exec/dump.hpp"

#include <cmath>

#include "io/json_out.hpp"
#include "io/json_strict.hpp"

namespace sfr::exec {

using core::op_kind_name;
using io::append_double;
using io::append_int;
using io::json_quote;

namespace {
// A dump's floating-point value: non-finite ones as the strings "inf", "-inf", "nan" (spec 4).
void append_value(std::string& out, double v) {
  if (std::isnan(v))
    out += "\"nan\"";
  else if (std::isinf(v))
    out += v > 0 ? "\"inf\"" : "\"-inf\"";
  else
    append_double(out, v);
}
}  // namespace

void append_buffer_numbers(std::string& out, const Buffer& b) {
  out += '[';
  core::visit_unit(b.unit, [&]<class T>() {
    const T* d = b.as<T>();
    for (size_t k = 0; k < b.components(); ++k) {
      if (k) out += ',';
      if constexpr (core::is_pair_v<T>) {
        append_int(out, d[k].value);
        out += ',';
        append_int(out, d[k].index);
      } else if constexpr (core::is_complex_v<T>) {
        append_value(out, d[k].real());
        out += ',';
        append_value(out, d[k].imag());
      } else if constexpr (std::is_floating_point_v<T>) {
        append_value(out, static_cast<double>(d[k]));
      } else {
        append_int(out, static_cast<long long>(d[k]));
      }
    }
  });
  out += ']';
}

std::string write_dump(const std::string& trace_name, const std::vector<DumpEntry>& entries, const std::vector<SkippedOp>& skipped) {
  std::string o = "{\"format\": \"sf-dump\", \"version\": 1, \"trace\": " + json_quote(trace_name) + ",\n";
  if (!skipped.empty()) {
    o += " \"skipped\": [";
    for (std::size_t k = 0; k < skipped.size(); ++k) {
      o += k ? ", {\"index\": " : "{\"index\": ";
      append_int(o, static_cast<long long>(skipped[k].index));
      o += ", \"reason\": " + json_quote(skipped[k].reason) + "}";
    }
    o += "],\n";
  }
  o += " \"ops\": [\n";
  for (size_t e = 0; e < entries.size(); ++e) {
    const DumpEntry& de = entries[e];
    o += "  {\"index\": ";
    append_int(o, static_cast<long long>(de.index));
    o += ", \"op\": " + json_quote(op_kind_name(de.op->op)) + ", \"sf\": " + json_quote(de.op->sf) + ",\n   \"ranks\": [\n";
    for (size_t r = 0; r < de.result.ranks.size(); ++r) {
      o += "    {";
      const auto& arrays = de.result.ranks[r];
      for (size_t a = 0; a < arrays.size(); ++a) {
        if (a) o += ", ";
        o += json_quote(arrays[a].name) + ": ";
        append_buffer_numbers(o, arrays[a].buffer);
      }
      o += r + 1 < de.result.ranks.size() ? "},\n" : "}\n";
    }
    o += e + 1 < entries.size() ? "   ]},\n" : "   ]}\n";
  }
  o += " ]}\n";
  return o;
}

}  // namespace sfr::exec
