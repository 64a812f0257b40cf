#include <iostream>

#include "cli/options.hpp"
#include "core/error.hpp"
#include "exec/reference/reference.hpp"
#include "trace/dump.hpp"
#include "trace/output_file.hpp"
#include "trace/reader.hpp"

namespace sfr::cli {

int cmd_run(const Args& args) {
  po::options_description opts("run options");
  std::string file, dump;
  bool reference = false;
  opts.add_options()("trace", po::value(&file)->required(), "trace file")(
      "reference", po::bool_switch(&reference), "use the serial reference executor (all ranks in this process, no MPI)")(
      "dump", po::value(&dump), "write the sf-dump v1 conformance dump to this file (atomically)");
  po::positional_options_description pos;
  pos.add("trace", 1);
  po::variables_map vm;
  if (parse_options("run", "TRACE --reference [--dump FILE]", args, opts, pos, vm)) return 0;
  if (!reference)
    throw InputError("--reference", "this build runs traces with the serial reference executor only; pass --reference");
  const auto t = trace::read_trace_file(file);
  std::vector<trace::DumpEntry> entries;
  for (size_t i = 0; i < t.trace().ops.size(); ++i) {
    const auto& op = t.trace().ops[i];
    entries.push_back({i, &op, exec::reference::run_op(t, op)});
  }
  if (!dump.empty()) trace::write_file_atomic(dump, trace::write_dump(t.trace().name, entries));
  std::cout << "ran " << entries.size() << " ops of " << t.trace().name << " on " << t.trace().nranks
            << " ranks with the reference executor" << (dump.empty() ? "" : "; dump written to " + dump) << "\n";
  return 0;
}

}  // namespace sfr::cli
