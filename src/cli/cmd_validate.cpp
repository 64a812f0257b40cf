#include <iostream>

#include "cli/options.hpp"
#include "trace/reader.hpp"

namespace sfr::cli {

int cmd_validate(const Args& args) {
  po::options_description opts("validate options");
  std::vector<std::string> files;
  bool quiet = false;
  opts.add_options()("trace", po::value(&files)->required()->multitoken(), "trace file(s) to check")(
      "quiet,q", po::bool_switch(&quiet), "print nothing on success");
  po::positional_options_description pos;
  pos.add("trace", -1);
  po::variables_map vm;
  if (parse_options("validate", "TRACE [TRACE...] [--quiet]", args, opts, pos, vm)) return 0;
  for (const auto& f : files) {
    const auto t = trace::read_trace_file(f);
    if (!quiet)
      std::cout << f << ": valid sf-trace v1 (" << t.trace().nranks << " ranks, " << t.trace().sfs.size() << " SFs, "
                << t.trace().ops.size() << " ops)\n";
  }
  return 0;
}

}  // namespace sfr::cli
