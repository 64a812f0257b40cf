#include "exec/mpi/timing_output.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>

#include "core/ops.hpp"
#include "core/statistic.hpp"
#include "trace/result_docs.hpp"

namespace sfr::exec::mpi {

std::string timing_table(const trace::BuiltTrace& t, const std::vector<OpTiming>& res, int iters) {
  std::string o;
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "# sf-replay run: %s on %d ranks, %d timed iterations (max over ranks per iteration); an iteration runs the op repeat "
                "times: per call = iteration / repeat, iter_* are totals\n",
                t.trace().name.c_str(), t.trace().nranks, iters);
  o += buf;
  std::snprintf(buf, sizeof buf, "# %-4s %-12s %-12s %-15s %-11s %3s %12s %8s %6s %12s %12s %13s %15s %13s\n", "op#", "op", "sf", "backend",
                "unit", "bs", "bytes", "msgs", "repeat", "per_call(us)", "p20_call(us)", "iter_min(us)", "iter_median(us)", "iter_max(us)");
  o += buf;
  for (const auto& r : res) {
    const auto& op = t.trace().ops[r.index];
    const double calls = trace::calls_of(op.repeat);
    std::snprintf(buf, sizeof buf, "  %-4zu %-12s %-12s %-15s %-11s %3d %12lld %8lld %6lld %12.2f %12.2f %13.2f %15.2f %13.2f\n", r.index,
                  core::op_kind_name(op.op), op.sf.c_str(), r.backend.c_str(),
                  core::op_traits(op.op).has_unit ? core::unit_name(op.unit) : "-", op.bs, r.bytes, r.messages,
                  static_cast<long long>(op.repeat), r.median_us / calls, r.low_us / calls, r.min_us, r.median_us, r.max_us);
    o += buf;
  }
  if (std::any_of(res.begin(), res.end(), [](const OpTiming& r) { return !r.samples_exact; }))
    o += "# over " + std::to_string(core::kSampleCap) + " timed iterations: median and p20 from a uniform sample of " +
         std::to_string(core::kSampleCap) + " of them (min and max exact)\n";
  return o;
}

std::string timing_json(const trace::BuiltTrace& t, const std::vector<OpTiming>& res, int warmup, int iters, const io::Json& provenance,
                        std::int64_t split_cap) {
  // The document is trace::TimingDoc: its keys live in trace/result_docs.cpp, beside the reader.
  trace::TimingDoc doc;
  doc.provenance = provenance;
  doc.trace = t.trace().name;
  doc.nranks = t.trace().nranks;
  doc.warmup = warmup;
  doc.iters = iters;
  doc.split_cap = split_cap;
  if (!res.empty()) doc.ranks_per_node = res.front().ranks_per_node;
  for (const auto& r : res) {
    const auto& op = t.trace().ops[r.index];
    trace::TimingResult tr;
    tr.index = r.index;
    tr.op = core::op_kind_name(op.op);
    tr.sf = op.sf;
    tr.backend = r.backend;
    tr.unit = core::unit_name(core::op_wire_unit(op));
    tr.bs = core::op_wire_bs(op);
    tr.mpi_op = core::op_takes_mpi_op(op.op) ? core::mpi_op_name(op.mpi_op) : "";
    tr.repeat = op.repeat;
    tr.bytes = r.bytes;
    tr.messages = r.messages;
    tr.min_us = r.min_us;
    tr.median_us = r.median_us;
    tr.max_us = r.max_us;
    tr.samples_us = r.samples_us;
    tr.mean_us = r.mean_us;
    tr.samples_exact = r.samples_exact;
    tr.device = r.device;
    doc.results.push_back(std::move(tr));
  }
  return trace::to_json(doc).dump(1) + "\n";
}

}  // namespace sfr::exec::mpi
