#include <iostream>

#include "analysis/report.hpp"
#include "analysis/load_results.hpp"
#include "cli/options.hpp"
#include "core/budget.hpp"
#include "core/error.hpp"
#include "exec/conformance.hpp"
#include "exec/dump.hpp"
#include "exec/reference/reference.hpp"
#include "io/output_file.hpp"
#include "trace/reader.hpp"

namespace sfr::cli {

int cmd_report(const Args& args) {
  po::options_description opts("report options");
  std::string file, out, dump, timing, simulation, what_if, model_check;
  bool reference = false;
  std::uint64_t max_memory = 0;
  int rpn = 0, rps = 0;
  opts.add_options()("trace", po::value(&file)->required(), "trace file")("output,o", po::value(&out)->required(),
                                                                          "Markdown report to write (atomically)")(
      "reference", po::bool_switch(&reference), "also run the trace with the reference executor and summarise the run")(
      "dump", po::value(&dump), "with --reference: also write the conformance dump here")(
      "timing", po::value(&timing), "include measured times from an sf-timing JSON (sf-replay run --timing)")(
      "simulation", po::value(&simulation),
      "include predicted times from sf-replay simulate --json (and, with --timing, measured vs predicted per op and backend); for a check, "
      "simulate on the machine calibrate wrote")(
      "what-if", po::value(&what_if), "include predictions on another machine (sf-replay simulate --json), labelled as a what-if")(
      "model-check", po::value(&model_check),
      "include measured vs predicted per op and backend from sf-replay validate-model --json (sf-model-check; its pairs of this trace)");
  opts.add_options()("ranks-per-node", po::value(&rpn),
                     "count the star forests' messages as on nodes of N consecutive ranks (default: the trace's placement, else every rank "
                     "its own node)")("ranks-per-socket", po::value(&rps), "with --ranks-per-node: N consecutive ranks share a socket");
  add_max_memory_option(opts, &max_memory);
  po::positional_options_description pos;
  pos.add("trace", 1);
  po::variables_map vm;
  if (parse_options("report",
                    "TRACE -o REPORT.md [--reference [--dump FILE]] [--timing TIMING.json] [--simulation SIM.json] [--what-if SIM.json] "
                    "[--model-check CHECK.json]",
                    args, opts, pos, vm))
    return 0;
  if (!dump.empty() && !reference) throw InputError("--dump", "only a run writes a dump: add --reference");
  io::check_output_path("--output", out);
  if (!dump.empty()) io::check_output_path("--dump", dump);
  if (vm.count("ranks-per-socket") && !vm.count("ranks-per-node")) throw InputError("--ranks-per-socket", "needs --ranks-per-node");
  auto t = trace::read_trace_file(file, {max_memory});
  if (vm.count("ranks-per-node"))
    t.set_machine(trace::checked_placement(t.trace().nranks, rpn, vm.count("ranks-per-socket") ? rps : rpn,
                                           t.trace().machine ? t.trace().machine->gpus_per_node : 0));
  if (reference) core::check_budget(exec::data_estimate(t, -1, true, !dump.empty()), t.max_memory());
  analysis::ReportInputs in;
  if (!timing.empty()) in.timing = analysis::load_timing_doc(timing, t.trace().name);
  if (!simulation.empty()) in.simulation = analysis::load_simulation_doc(simulation, t.trace().name);
  if (!what_if.empty()) in.what_if = analysis::load_simulation_doc(what_if, t.trace().name);
  if (!model_check.empty()) in.model_check = analysis::load_model_check_doc(model_check, t.trace().name);
  const auto stats = analysis::compute_stats(t);
  // The captured run's predicted communication: on the what-if machine if one is given, else the simulation's.
  const trace::SimulationDoc* prediction = in.what_if ? &*in.what_if : in.simulation ? &*in.simulation : nullptr;
  const auto capture = analysis::capture_summary(t, stats, in.timing ? &*in.timing : nullptr, prediction);
  if (capture) in.capture = &*capture;
  analysis::RunSummary run{"reference (serial, all ranks in one process)", dump, 0};
  if (reference) {
    std::vector<exec::DumpEntry> entries;
    for (size_t i = 0; i < t.trace().ops.size(); ++i)
      entries.push_back({i, &t.trace().ops[i], exec::reference::run_op(t, t.trace().ops[i])});
    run.ops_run = entries.size();
    if (!dump.empty()) io::write_file_atomic(dump, exec::write_dump(t.trace().name, entries));
    in.run = &run;
  }
  io::write_file_atomic(out, analysis::render_markdown(stats, in));
  std::cout << "report written to " << out << "\n";
  return 0;
}

}  // namespace sfr::cli
