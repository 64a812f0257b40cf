#include <iostream>

#include "analysis/inspect.hpp"
#include "cli/options.hpp"
#include "core/backends.hpp"
#include "core/error.hpp"
#include "io/output_file.hpp"
#include "plan/rounds.hpp"
#include "trace/reader.hpp"
#ifdef HAVE_SFREPLAY_SIM
#include "sim/auto_backend.hpp"
#endif

namespace sfr::cli {

int cmd_inspect(const Args& args) {
  po::options_description opts("inspect options");
  std::string file, out, machine;
  core::BackendId backend = core::kDefaultBackend;
  std::vector<std::string> backend_values;
  bool json = false;
  int ranks_per_node = 0;
  std::uint64_t max_memory = 0;
  opts.add_options()("trace", po::value(&file)->required(), "trace file")("json", po::bool_switch(&json), "print JSON instead of a table")(
      "output,o", po::value(&out), "write to this file instead of stdout (atomically)")(
      "backend", backend_value(&backend_values),
      "count each op's messages as this backend sends them (the plan run and simulate use: shm's on-node copies, a node-aware "
      "strategy's three steps); default: basic's one message per pair of ranks")(
      "ranks-per-node", po::value(&ranks_per_node), "the nodes the plan is for (default: the trace's machine.ranks_per_node, else 1)")(
      "machine", po::value(&machine),
      "with --backend split-md / split-dd: the machine whose split.message_cap cuts the chunks (default: the file calibrate saved, else "
      "generic)");
  add_max_memory_option(opts, &max_memory);
  po::positional_options_description pos;
  pos.add("trace", 1);
  po::variables_map vm;
  if (parse_options("inspect", "TRACE [--json] [-o FILE] [--backend B [--ranks-per-node N] [--machine M]]", args, opts, pos, vm)) return 0;
  // One backend's plan at a time, one that plan:: knows (not the CUDA executor's transports).
  if (vm.count("backend"))
    backend = parse_backends("inspect", backend_values,
                             {.why_not = [](const core::BackendInfo& b) {
                                return b.transport != core::Transport::none ? std::string() : std::string("inspect has no plan for the CUDA executor");
                              },
                              .one = true})
                  .chosen.at(0)
                  .backend.id;
  const bool split = plan::transport_of(backend) == plan::Transport::split;
  if (vm.count("ranks-per-node") && ranks_per_node < 1) throw InputError("--ranks-per-node", "must be >= 1");
  if (vm.count("ranks-per-node") && !vm.count("backend"))
    throw InputError("--ranks-per-node", "places ranks for a --backend's plan; give --backend (basic's messages do not depend on nodes)");
  if (vm.count("machine") && !split) throw InputError("--machine", "only the split strategies' plans use a machine (their chunk size)");
  if (!out.empty()) io::check_output_path("--output", out);
  const auto t = trace::read_trace_file(file, {max_memory});
  analysis::InspectPlan ip;
  ip.place = analysis::trace_placement(t.trace());
  if (ranks_per_node > 0) {
    if (ranks_per_node > t.trace().nranks)
      throw InputError("--ranks-per-node", std::to_string(ranks_per_node) + " exceeds the trace's " + std::to_string(t.trace().nranks) + " ranks");
    ip.place.ranks_per_node = ranks_per_node;
  }
  if (vm.count("backend")) ip.backend = backend;
#ifdef HAVE_SFREPLAY_SIM
  if (split) ip.params.split_cap = sim::auto_machine(machine, nullptr).message_cap;
#endif
  const auto stats = analysis::compute_stats(t, &ip);
  const std::string text = json ? analysis::render_json(stats) : analysis::render_table(stats);
  if (out.empty())
    std::cout << text;
  else
    io::write_file_atomic(out, text);
  return 0;
}

}  // namespace sfr::cli
