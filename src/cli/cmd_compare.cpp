// sf-replay compare: ranks backends by predicted time under a machine model (sim/README.md).
#include <iostream>

#include "cli/sim_options.hpp"
#include "sim/simulate.hpp"
#include "trace/output_file.hpp"
#include "trace/reader.hpp"

namespace sfr::cli {

int cmd_compare(const Args& args) {
  po::options_description opts("compare options");
  SimArgs a;
  add_sim_options(opts, a);
  po::positional_options_description pos;
  pos.add("trace", 1);
  po::variables_map vm;
  if (parse_options("compare", "TRACE --machine M [--backend B ...|--all-backends] [--json OUT]", args, opts, pos, vm)) return 0;
  const auto machine = sim::load_machine(a.machine);
  const auto bt = trace::read_trace_file(a.file);
  const auto res = sim::simulate(bt, machine, sim::select_backends(a.backends, a.all, bt.trace(), true));
  std::cout << sim::render_ranking(res);
  if (!a.json.empty()) trace::write_file_atomic(a.json, sim::render_json(res));
  return 0;
}

}  // namespace sfr::cli
