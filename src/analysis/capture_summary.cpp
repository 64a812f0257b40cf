#include "analysis/capture_summary.hpp"

#include <algorithm>
#include <array>
#include <map>

#include "core/statistic.hpp"

namespace sfr::analysis {

namespace {

// One op record's time per call on one backend: its iterations' 25th percentile, median and 75th
// percentile (core::quantile, as the dashboard's whiskers), each over the record's `repeat`;
// documents without samples give their median three times.
std::array<double, 3> quartiles_per_call(const trace::TimingResult& measured) {
  const trace::TimingResult r = trace::per_call(measured);
  if (r.samples_us.empty()) return {r.median_us, r.median_us, r.median_us};
  return {core::quantile(r.samples_us, 0.25), r.median_us, core::quantile(r.samples_us, 0.75)};
}

}  // namespace

std::optional<CaptureSummary> capture_summary(const trace::BuiltTrace& t, const TraceStats& s, const trace::TimingDoc* timing,
                                              const trace::SimulationDoc* prediction) {
  if (t.trace().meta_json.empty()) return std::nullopt;
  io::Json meta = io::Json::parse(t.trace().meta_json, nullptr, false);
  if (meta.is_discarded() || !meta.is_object() || meta.value("generator", "") != "capture" || !meta.contains("op_counts")) return std::nullopt;
  CaptureSummary c;
  c.meta = meta;
  const auto& ops = t.trace().ops;
  auto kind_of = [&](std::size_t i) { return std::string(core::op_kind_name(ops[i].op)); };
  // Per backend, each op record's time per call (its measured iteration is all of its `repeat`
  // calls; op_counts count calls).
  std::map<std::string, std::map<std::size_t, std::array<double, 3>>> per_call;  // backend -> op index -> quartiles
  if (timing)
    for (const auto& r : timing->results)
      if (r.index < ops.size()) per_call[r.backend][r.index] = quartiles_per_call(r);
  for (const auto& e : meta["op_counts"])
    c.rows.push_back({e.value("sf", ""), e.value("op", ""), e.value("count", std::int64_t{0}), e.value("vecscatter", std::int64_t{0})});
  // A row's records: the trace's ops of its (SF, op kind); its bytes and time per call are their
  // mean weighted by calls (a record stands for its `repeat` calls: two block sizes called 1,000
  // and 10 times weigh 1,000 : 10, not 1 : 1).
  std::vector<std::vector<std::size_t>> records(c.rows.size());
  for (std::size_t k = 0; k < c.rows.size(); ++k)
    for (std::size_t i = 0; i < ops.size(); ++i)
      if (ops[i].sf == c.rows[k].sf && kind_of(i) == c.rows[k].op) records[k].push_back(i);
  auto calls_mean = [&](const std::vector<std::size_t>& rec, auto&& value_of) {
    double sum = 0, calls = 0;
    for (const std::size_t i : rec) {
      const double n = trace::calls_of(ops[i].repeat);
      sum += n * value_of(i), calls += n;
    }
    return sum / calls;
  };
  auto mean = [&](const std::map<std::size_t, std::array<double, 3>>& m, const std::vector<std::size_t>& rec, int q) {
    return calls_mean(rec, [&](std::size_t i) { return m.at(i)[static_cast<std::size_t>(q)]; });
  };
  // Per backend that ran every record: the application's communication, count x per call over
  // the rows (at the quartiles too: the noise), least first.
  auto totals = [&](const std::map<std::string, std::map<std::size_t, std::array<double, 3>>>& per_backend) {
    std::vector<BackendTotal> out;
    for (const auto& [b, m] : per_backend) {
      if (m.size() != ops.size()) continue;
      BackendTotal tot{b, 0, 0, 0};
      for (std::size_t k = 0; k < c.rows.size(); ++k) {
        if (records[k].empty()) continue;
        const double n = static_cast<double>(c.rows[k].count);
        tot.p25_us += n * mean(m, records[k], 0), tot.median_us += n * mean(m, records[k], 1), tot.p75_us += n * mean(m, records[k], 2);
      }
      out.push_back(tot);
    }
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.median_us < b.median_us; });
    return out;
  };
  c.totals = totals(per_call);
  if (prediction) {
    std::map<std::string, std::map<std::size_t, std::array<double, 3>>> predicted;
    for (const auto& b : prediction->backends)
      for (const auto& op : b.ops)
        if (op.index < ops.size()) predicted[b.backend][op.index].fill(op.per_call_us());
    c.predicted = totals(predicted);
    c.predicted_machine = prediction->machine;
    c.predicted_placement = prediction->placement.is_object() ? prediction->placement.value("text", "") : "";
  }
  if (!c.totals.empty()) c.backend = c.totals.front().backend;
  for (std::size_t k = 0; k < c.rows.size(); ++k) {
    CaptureRow& row = c.rows[k];
    row.records = records[k].size();
    if (records[k].empty()) continue;
    row.remote_bytes = calls_mean(records[k], [&](std::size_t i) { return static_cast<double>(s.ops.at(i).remote_bytes); });
    if (!c.backend.empty()) row.us = mean(per_call.at(c.backend), records[k], 1);
  }
  auto weight = [&](const CaptureRow& r) {
    return static_cast<double>(r.count) * (c.backend.empty() ? r.remote_bytes : std::max(r.us, 0.0));
  };
  std::stable_sort(c.rows.begin(), c.rows.end(), [&](const CaptureRow& a, const CaptureRow& b) { return weight(a) > weight(b); });
  return c;
}

}  // namespace sfr::analysis
