#include <iostream>

#include "analysis/inspect.hpp"
#include "cli/options.hpp"
#include "trace/output_file.hpp"
#include "trace/reader.hpp"

namespace sfr::cli {

int cmd_inspect(const Args& args) {
  po::options_description opts("inspect options");
  std::string file, out;
  bool json = false;
  opts.add_options()("trace", po::value(&file)->required(), "trace file")("json", po::bool_switch(&json),
                                                                          "print JSON instead of a table")(
      "output,o", po::value(&out), "write to this file instead of stdout (atomically)");
  po::positional_options_description pos;
  pos.add("trace", 1);
  po::variables_map vm;
  if (parse_options("inspect", "TRACE [--json] [-o FILE]", args, opts, pos, vm)) return 0;
  const auto t = trace::read_trace_file(file);
  const auto stats = analysis::compute_stats(t);
  const std::string text = json ? analysis::render_json(stats) : analysis::render_table(stats);
  if (out.empty()) std::cout << text;
  else trace::write_file_atomic(out, text);
  return 0;
}

}  // namespace sfr::cli
