// Options shared by `simulate` and `compare` (both replay a trace under a machine model).
#pragma once

#include <string>
#include <vector>

#include "cli/options.hpp"

namespace sfr::cli {

struct SimArgs {
  std::string file, machine = "lassen", json, timeline, simgrid;
  std::vector<std::string> backends;
  bool all = false;
};

// `trace_required`: false for compare, whose --analytic mode needs no trace.
inline void add_sim_options(po::options_description& opts, SimArgs& a, bool trace_required = true) {
  auto* trace_value = po::value(&a.file);
  if (trace_required) trace_value->required();
  opts.add_options()("trace", trace_value, "trace file")(
      "machine,m", po::value(&a.machine), "machine preset (lassen, generic) or machine file (JSON); default lassen")(
      "backend,b", po::value(&a.backends)->composing(),
      "backend: basic, neighbor, window, alltoallv, 3step, 2step, split-md, split-dd, each optionally :staged (default) or "
      ":aware; repeatable")("all-backends", po::bool_switch(&a.all), "every backend (device-aware variants when the trace uses device memory)")(
      "json", po::value(&a.json), "also write the results as JSON to this file");
}

}  // namespace sfr::cli
