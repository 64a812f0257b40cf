#include <iostream>

#include "analysis/report.hpp"
#include "cli/options.hpp"
#include "exec/reference/reference.hpp"
#include "core/error.hpp"
#include "trace/dump.hpp"
#include "trace/json_strict.hpp"
#include "trace/output_file.hpp"
#include "trace/reader.hpp"

namespace sfr::cli {

int cmd_report(const Args& args) {
  po::options_description opts("report options");
  std::string file, out, dump, timing;
  bool reference = false;
  opts.add_options()("trace", po::value(&file)->required(), "trace file")("output,o", po::value(&out)->required(),
                                                                          "Markdown report to write (atomically)")(
      "reference", po::bool_switch(&reference), "also run the trace with the reference executor and summarise the run")(
      "dump", po::value(&dump), "with --reference: also write the conformance dump here")(
      "timing", po::value(&timing), "include measured times from an sf-timing JSON (sf-replay run --timing)");
  po::positional_options_description pos;
  pos.add("trace", 1);
  po::variables_map vm;
  if (parse_options("report", "TRACE -o REPORT.md [--reference [--dump FILE]] [--timing TIMING.json]", args, opts, pos, vm)) return 0;
  const auto t = trace::read_trace_file(file);
  std::string timing_text;
  if (!timing.empty()) {
    timing_text = trace::read_text_file(timing);
    const auto j = trace::parse_json_strict(timing_text, timing);
    if (!j.is_object() || j.value("format", "") != "sf-timing" || !j.contains("results") || !j["results"].is_array())
      throw InputError(timing, "(top level): not an sf-timing document");
  }
  const auto stats = analysis::compute_stats(t);
  analysis::RunSummary run{"reference (serial, all ranks in one process)", dump, 0};
  if (reference) {
    std::vector<trace::DumpEntry> entries;
    for (size_t i = 0; i < t.trace().ops.size(); ++i) entries.push_back({i, &t.trace().ops[i], exec::reference::run_op(t, t.trace().ops[i])});
    run.ops_run = entries.size();
    if (!dump.empty()) trace::write_file_atomic(dump, trace::write_dump(t.trace().name, entries));
  }
  trace::write_file_atomic(out, analysis::render_markdown(stats, reference ? &run : nullptr, timing_text));
  std::cout << "report written to " << out << "\n";
  return 0;
}

}  // namespace sfr::cli
