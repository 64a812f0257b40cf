// Options shared by `simulate` and `compare` (both replay a trace under a machine model).
#pragma once

#include <string>
#include <vector>

#include "cli/options.hpp"
#include "sim/machine.hpp"

namespace sfr::cli {

struct SimArgs {
  std::string file, machine = "lassen", model, json, timeline, simgrid, store;
  std::vector<std::string> backends;
  bool all = false;
  std::uint64_t max_memory = 0;
};

// `trace_required`: false for compare, whose --analytic mode needs no trace.
inline void add_sim_options(po::options_description& opts, SimArgs& a, bool trace_required = true) {
  auto* trace_value = po::value(&a.file);
  if (trace_required) trace_value->required();
  opts.add_options()("trace", trace_value, "trace file")(
      "machine,m", po::value(&a.machine),
      "machine preset (lassen, generic), uniform:latency=SECONDS,bandwidth=BYTES_PER_SECOND, or a machine file (JSON); default lassen")(
      "model", po::value(&a.model),
      "override the machine's model: postal, max-rate, loggp (overlapping latency, shared bandwidth), study-postal, study-max-rate (the "
      "node-aware study's serial forms)")(
      "backend,b", po::value(&a.backends)->composing(),
      "backend: basic, neighbor, window, alltoallv, 3step, 2step, split-md, split-dd, each optionally :aware (GPU buffers "
      "handed to MPI; default: staged through the host); repeatable")(
      "all-backends", po::bool_switch(&a.all), "every backend (device-aware variants when the trace uses device memory)")(
      "json", po::value(&a.json), "also write the results as JSON to this file");
  add_max_memory_option(opts, &a.max_memory);
}

}  // namespace sfr::cli

namespace sfr::cli {
// The machine named by --machine, with --model applied.
inline sim::MachineModel load_sim_machine(const SimArgs& a) {
  auto m = sim::load_machine(a.machine);
  if (!a.model.empty()) m.model = sim::parse_model(a.model, "--model");
  return m;
}
}  // namespace sfr::cli
