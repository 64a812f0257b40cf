// Options shared by `simulate` and `compare` (both replay a trace under a machine model).
#pragma once

#include <string>
#include <vector>

#include "cli/options.hpp"
#include "core/error.hpp"
#include "sim/machine.hpp"
#include "sim/simulate.hpp"

namespace sfr::cli {

struct SimArgs {
  std::string file, machine = "lassen", model, json, timeline, simgrid, store;
  std::vector<std::string> backends;
  bool all = false;
  std::uint64_t max_memory = 0;
  int ranks_per_node = 0, ranks_per_socket = 0;  // 0: not given
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
      "backend,b", backend_value(&a.backends),
      "backends: a comma list, repeatable; each one of the simulated backends of `sf-replay run --backend list` (collective and "
      "cuda-* are run only), optionally :aware (GPU buffers handed to MPI; default: staged through the host); all: every "
      "simulated one (with its device-aware variant when the trace uses device memory)")(
      "all-backends", po::bool_switch(&a.all), "the same as --backend all")(
      "json", po::value(&a.json), "also write the results as JSON to this file")(
      "ranks-per-node", po::value(&a.ranks_per_node),
      "put N consecutive ranks on a node (default: the trace's placement, else the machine's nodes); the placement used is printed")(
      "ranks-per-socket", po::value(&a.ranks_per_socket), "N consecutive ranks share a socket (must divide the ranks per node)");
  add_max_memory_option(opts, &a.max_memory);
}

}  // namespace sfr::cli

namespace sfr::cli {
// The --backend list of simulate / compare (--all-backends is `all`; so is no --backend where
// `default_all`), checked before the trace is read; empty: basic.
inline BackendList sim_backend_list(const char* cmd, const SimArgs& a, bool default_all) {
  if (a.all && !a.backends.empty()) throw InputError("--backend", "give either --backend or --all-backends, not both");
  std::vector<std::string> values = a.backends;
  if (a.all || (values.empty() && default_all)) values = {"all"};
  return parse_backends(cmd, values, {.why_not = why_not_simulated, .gpu_paths = true});
}

// The simulator's backends of a parsed list (sim_backend_list): `all` adds the device-aware forms
// where the trace uses device memory (sim::select_backends).
inline std::vector<sim::BackendVariant> sim_backends(const BackendList& list, const trace::Trace& t) {
  std::vector<sim::BackendVariant> chosen;
  for (const auto& b : list.chosen) chosen.push_back({b.backend.id, b.aware});
  return sim::select_backends(chosen, list.all, t);
}

// --ranks-per-node / --ranks-per-socket onto the machine, checked against the trace's ranks.
inline void apply_sim_placement(const po::variables_map& vm, const SimArgs& a, sim::MachineModel& m, const trace::Trace& t) {
  for (const auto& [opt, v] : {std::pair{"ranks-per-node", a.ranks_per_node}, std::pair{"ranks-per-socket", a.ranks_per_socket}})
    if (vm.count(opt) && v < 1) throw InputError(std::string("--") + opt, "must be >= 1, got " + std::to_string(v));
  sim::set_placement(m, t, a.ranks_per_node, a.ranks_per_socket);
}

// The machine named by --machine, with --model applied.
inline sim::MachineModel load_sim_machine(const SimArgs& a) {
  auto m = sim::load_machine(a.machine);
  if (!a.model.empty()) m.model = sim::parse_model(a.model, "--model");
  return m;
}
}  // namespace sfr::cli
