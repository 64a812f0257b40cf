// sf-replay validate: checks every trace given and reports each (one line per file); exit status 2
// when any is invalid. Pattern SFs are checked without being built.
#include <iostream>

#include "cli/options.hpp"
#include "core/error.hpp"
#include "trace/reader.hpp"

namespace sfr::cli {

int cmd_validate(const Args& args) {
  po::options_description opts("validate options");
  std::vector<std::string> files;
  bool quiet = false;
  std::uint64_t max_memory = 0;
  opts.add_options()("trace", po::value(&files)->required()->multitoken(), "trace file(s) to check")("quiet,q", po::bool_switch(&quiet),
                                                                                                     "print nothing on success");
  add_max_memory_option(opts, &max_memory);
  po::positional_options_description pos;
  pos.add("trace", -1);
  po::variables_map vm;
  if (parse_options("validate", "TRACE [TRACE...] [--quiet] [--max-memory SIZE]", args, opts, pos, vm)) return 0;
  int bad = 0;
  for (const auto& f : files) {
    try {
      const auto t = trace::read_trace_file(f, {max_memory});
      if (!quiet)
        std::cout << f << ": valid sf-trace v1 (" << t.trace().nranks << " ranks, " << t.trace().sfs.size() << " SFs, "
                  << t.trace().ops.size() << " ops)\n";
    } catch (const InputError& e) {
      std::cerr << "sf-replay validate: error: " << e.what() << "\n";
      ++bad;
    }
  }
  if (bad > 0 && files.size() > 1) std::cerr << "sf-replay validate: " << bad << " of " << files.size() << " traces are invalid\n";
  return bad > 0 ? 2 : 0;
}

}  // namespace sfr::cli
