// sf-replay check TRACE DUMP: does a dump (from any executor) conform to the reference semantics?
// Exit 0 it does, 3 it does not (the answer, not a failure), 2 bad input (a dump of another trace
// among it), 1 internal failure.
#include <iostream>

#include "cli/options.hpp"
#include "core/budget.hpp"
#include "exec/conformance.hpp"
#include "exec/dump_check.hpp"
#include "io/json_strict.hpp"
#include "trace/reader.hpp"

namespace sfr::cli {

namespace {
constexpr int kExitNotConforming = 3;
}

int cmd_check(const Args& args) {
  po::options_description opts("check options");
  std::string file, dump;
  std::uint64_t max_memory = 0;
  opts.add_options()("trace", po::value(&file)->required(), "trace file")("dump", po::value(&dump)->required(), "sf-dump v1 file to check");
  add_max_memory_option(opts, &max_memory);
  po::positional_options_description pos;
  pos.add("trace", 1).add("dump", 1);
  po::variables_map vm;
  if (parse_options("check", "TRACE DUMP", args, opts, pos, vm)) return 0;
  const auto t = trace::read_trace_file(file, {max_memory});
  // The reference results of one op at a time, beside the dump (read whole).
  core::check_budget(exec::data_estimate(t, -1, false, false), t.max_memory());
  const auto res = exec::check_dump(t, io::read_text_file(dump), dump);
  for (const auto& p : res.problems) std::cout << dump << ": " << p << "\n";
  for (const auto& s : res.skipped) std::cout << dump << ": skipped by the dump, " << s << "\n";
  std::cout << dump << ": " << res.ops_checked << " ops checked, " << (res.ok() ? "conforms" : "does NOT conform") << "\n";
  return res.ok() ? 0 : kExitNotConforming;
}

}  // namespace sfr::cli
