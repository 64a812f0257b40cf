#include "analysis/capture_summary.hpp"

#include <algorithm>
#include <map>

namespace sfr::analysis {

std::optional<CaptureSummary> capture_summary(const trace::BuiltTrace& t, const TraceStats& s, const trace::TimingDoc* timing) {
  if (t.trace().meta_json.empty()) return std::nullopt;
  io::Json meta = io::Json::parse(t.trace().meta_json, nullptr, false);
  if (meta.is_discarded() || !meta.is_object() || meta.value("generator", "") != "capture" || !meta.contains("op_counts")) return std::nullopt;
  CaptureSummary c;
  c.meta = meta;
  const auto& ops = t.trace().ops;
  auto kind_of = [&](std::size_t i) { return std::string(core::op_kind_name(ops[i].op)); };
  // Per backend, each op record's median per call (its measured iteration is all of its
  // `repeat` calls; op_counts count calls).
  std::map<std::string, std::map<std::size_t, double>> med;  // backend -> op index -> median us per call
  if (timing)
    for (const auto& r : timing->results)
      if (r.index < ops.size()) med[r.backend][r.index] = r.per_call_us();
  for (const auto& e : meta["op_counts"])
    c.rows.push_back({e.value("sf", ""), e.value("op", ""), e.value("count", std::int64_t{0}), e.value("vecscatter", std::int64_t{0})});
  // A row's records: the trace's ops of its (SF, op kind); its bytes and time are their mean.
  auto records = [&](const CaptureRow& row) {
    std::vector<std::size_t> v;
    for (std::size_t i = 0; i < ops.size(); ++i)
      if (ops[i].sf == row.sf && kind_of(i) == row.op) v.push_back(i);
    return v;
  };
  auto mean_us = [&](const std::map<std::size_t, double>& m, const std::vector<std::size_t>& rec) {
    double us = 0;
    for (const std::size_t i : rec) us += m.at(i);
    return us / static_cast<double>(rec.size());
  };
  // The backend that ran every record and whose application total (count x per call) is least.
  double best = -1;
  for (const auto& [b, m] : med) {
    if (m.size() != ops.size()) continue;
    double total = 0;
    for (const auto& row : c.rows)
      if (const auto rec = records(row); !rec.empty()) total += static_cast<double>(row.count) * mean_us(m, rec);
    if (best < 0 || total < best) best = total, c.backend = b;
  }
  for (auto& row : c.rows) {
    const auto rec = records(row);
    row.records = rec.size();
    if (rec.empty()) continue;
    double bytes = 0;
    for (const std::size_t i : rec) bytes += static_cast<double>(s.ops.at(i).remote_bytes);
    row.remote_bytes = bytes / static_cast<double>(rec.size());
    if (!c.backend.empty()) row.us = mean_us(med[c.backend], rec);
  }
  auto weight = [&](const CaptureRow& r) {
    return static_cast<double>(r.count) * (c.backend.empty() ? r.remote_bytes : std::max(r.us, 0.0));
  };
  std::stable_sort(c.rows.begin(), c.rows.end(), [&](const CaptureRow& a, const CaptureRow& b) { return weight(a) > weight(b); });
  return c;
}

}  // namespace sfr::analysis
