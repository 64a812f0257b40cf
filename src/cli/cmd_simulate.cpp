// sf-replay simulate: predicted time per op per backend under a machine model (sim/README.md).
#include <iostream>

#include "cli/sim_options.hpp"
#include "core/budget.hpp"
#include "core/error.hpp"
#include "io/output_file.hpp"
#include "sim/render.hpp"
#include "sim/simgrid_export.hpp"
#include "sim/simulate.hpp"
#include "trace/provenance.hpp"
#include "trace/reader.hpp"

namespace sfr::cli {

int cmd_simulate(const Args& args) {
  po::options_description opts("simulate options");
  SimArgs a;
  add_sim_options(opts, a);
  opts.add_options()("timeline", po::value(&a.timeline),
                     "write a Chrome trace / Perfetto JSON timeline (one track per rank) of the first backend")(
      "export-simgrid", po::value(&a.simgrid),
      "write a SimGrid time-independent trace (one file per rank, basic backend) and a platform file into this directory")(
      "store", po::value(&a.store), "also file the JSON results under this folder (a new file per run, never rewritten)");
  po::positional_options_description pos;
  pos.add("trace", 1);
  po::variables_map vm;
  if (parse_options("simulate",
                    "TRACE --machine M [--backend B,... ...|--all-backends] [--json OUT] [--store DIR] [--timeline OUT] [--export-simgrid DIR]",
                    args, opts, pos, vm))
    return 0;
  auto machine = load_sim_machine(a);
  const auto list = sim_backend_list("simulate", a, false);
  if (!a.json.empty()) io::check_output_path("--json", a.json);
  if (!a.timeline.empty()) io::check_output_path("--timeline", a.timeline);
  if (!a.store.empty()) trace::check_store_dir("--store", a.store);
  const auto bt = trace::read_trace_file(a.file, {a.max_memory});
  core::check_budget(sim::memory_estimate(bt), bt.max_memory());
  apply_sim_placement(vm, a, machine, bt.trace());
  const auto backends = sim_backends(list, bt.trace());
  say_skipped_backends("simulate", list);
  sim::Timeline tl;
  const auto res = sim::simulate(bt, machine, backends, a.timeline.empty() ? nullptr : &tl);
  std::cout << res.placement << "\n" << sim::render_table(res);
  io::OutputBatch out;  // all or none
  if (!a.json.empty() || !a.store.empty()) {
    const std::string doc = sim::render_json(res, trace::provenance({"simulate", bt.trace().nranks, bt.trace().name, a.file, ""}));
    if (!a.json.empty()) out.replace(a.json, doc);
    if (!a.store.empty()) trace::stage_store_document(out, a.store, "simulation", bt.trace().name, doc);
  }
  if (!a.timeline.empty()) out.replace(a.timeline, sim::render_timeline(tl));
  const auto written = out.commit();
  if (!a.store.empty()) std::cout << "stored " << written.at(a.json.empty() ? 0 : 1) << "\n";
  if (!a.simgrid.empty()) {
    const auto ex = sim::export_simgrid(bt, machine, a.simgrid);
    std::cout << "\nSimGrid export: " << ex.trace_list << ", " << ex.platform << "\n  replay with: " << ex.command << "\n";
  }
  return 0;
}

}  // namespace sfr::cli
