#include <iostream>

#include "analysis/inspect.hpp"
#include "cli/options.hpp"
#include "io/output_file.hpp"
#include "trace/reader.hpp"

namespace sfr::cli {

int cmd_inspect(const Args& args) {
  po::options_description opts("inspect options");
  std::string file, out;
  bool json = false;
  std::uint64_t max_memory = 0;
  opts.add_options()("trace", po::value(&file)->required(), "trace file")("json", po::bool_switch(&json), "print JSON instead of a table")(
      "output,o", po::value(&out), "write to this file instead of stdout (atomically)");
  add_max_memory_option(opts, &max_memory);
  po::positional_options_description pos;
  pos.add("trace", 1);
  po::variables_map vm;
  if (parse_options("inspect", "TRACE [--json] [-o FILE]", args, opts, pos, vm)) return 0;
  if (!out.empty()) io::check_output_path("--output", out);
  const auto t = trace::read_trace_file(file, {max_memory});
  const auto stats = analysis::compute_stats(t);
  const std::string text = json ? analysis::render_json(stats) : analysis::render_table(stats);
  if (out.empty())
    std::cout << text;
  else
    io::write_file_atomic(out, text);
  return 0;
}

}  // namespace sfr::cli
