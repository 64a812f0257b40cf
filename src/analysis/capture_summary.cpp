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
  // The backend with the least total median time over every op record it ran.
  std::map<std::string, std::map<std::size_t, double>> med;  // backend -> op index -> median us
  if (timing)
    for (const auto& r : timing->results)
      if (r.index < ops.size()) med[r.backend][r.index] = r.median_us;
  double best = -1;
  for (const auto& [b, m] : med) {
    if (m.size() != ops.size()) continue;
    double sum = 0;
    for (const auto& [i, us] : m) sum += us;
    if (best < 0 || sum < best) best = sum, c.backend = b;
  }
  for (const auto& e : meta["op_counts"]) {
    CaptureRow row{e.value("sf", ""), e.value("op", ""), e.value("count", std::int64_t{0}), e.value("vecscatter", std::int64_t{0})};
    double bytes = 0, us = 0;
    int n = 0;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].sf != row.sf || kind_of(i) != row.op) continue;
      bytes += static_cast<double>(s.ops.at(i).remote_bytes);
      if (!c.backend.empty()) us += med[c.backend].at(i);
      ++n;
    }
    if (n > 0) {
      row.remote_bytes = bytes / n;
      if (!c.backend.empty()) row.us = us / n;
    }
    c.rows.push_back(std::move(row));
  }
  auto weight = [&](const CaptureRow& r) {
    return static_cast<double>(r.count) * (c.backend.empty() ? r.remote_bytes : std::max(r.us, 0.0));
  };
  std::stable_sort(c.rows.begin(), c.rows.end(), [&](const CaptureRow& a, const CaptureRow& b) { return weight(a) > weight(b); });
  return c;
}

}  // namespace sfr::analysis
