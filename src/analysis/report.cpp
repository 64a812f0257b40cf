#include "analysis/report.hpp"

#include <sstream>

#include <nlohmann/json.hpp>

namespace sfr::analysis {

std::string render_markdown(const TraceStats& ts, const RunSummary* run, const std::string& timing_json) {
  std::ostringstream o;
  o << "# sf-replay report: " << ts.name << "\n\n";
  o << "- ranks: " << ts.nranks << "\n- machine: " << ts.machine << "\n- SFs: " << ts.sfs.size() << ", ops: " << ts.ops.size()
    << "\n\n## Star forests\n\n";
  o << "| SF | form | roots | leaves | degree min/mean/max | messages | on-socket | on-node | off-node | self share | max out/in | leaf imbalance |\n";
  o << "|---|---|---:|---:|---|---:|---:|---:|---:|---:|---|---:|\n";
  for (const SFStats& s : ts.sfs) {
    const double tot = static_cast<double>(s.self_edges + s.remote_edges);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f%%", tot > 0 ? 100.0 * static_cast<double>(s.self_edges) / tot : 0.0);
    char deg[64];
    std::snprintf(deg, sizeof deg, "%lld / %.2f / %lld", (long long)s.degree_min, s.degree_mean, (long long)s.degree_max);
    char imb[32];
    std::snprintf(imb, sizeof imb, "%.2f", s.leaf_imbalance);
    o << "| " << s.name << " | " << s.form << " | " << s.roots << " | " << s.leaves << " | " << deg << " | " << s.messages << " | "
      << s.tier_messages.v[0] << " | " << s.tier_messages.v[1] << " | " << s.tier_messages.v[2] << " | " << buf << " | "
      << s.max_out_degree << "/" << s.max_in_degree << " | " << imb << " |\n";
  }
  o << "\n## Operations\n\n";
  for (const OpSummary& op : ts.ops) o << "- " << op.text << "\n";
  if (run) {
    o << "\n## Run\n\n- executor: " << run->executor << "\n- ops run: " << run->ops_run << "\n";
    if (!run->dump_path.empty()) o << "- conformance dump: `" << run->dump_path << "`\n";
  }
  if (!timing_json.empty()) {
    const auto j = nlohmann::json::parse(timing_json);
    o << "\n## Measured times (MPI executor)\n\n" << j.value("iters", 0) << " timed iterations per op; per iteration the maximum over "
      << j.value("nranks", 0) << " ranks.\n\n";
    o << "| op# | op | sf | backend | unit | bs | bytes | messages | min us | median us | max us |\n|---:|---|---|---|---|---:|---:|---:|---:|---:|---:|\n";
    for (const auto& r : j.at("results")) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "%.2f | %.2f | %.2f", r.value("min_us", 0.0), r.value("median_us", 0.0), r.value("max_us", 0.0));
      o << "| " << r.value("index", 0) << " | " << r.value("op", "") << " | " << r.value("sf", "") << " | " << r.value("backend", "") << " | "
        << r.value("unit", "") << " | " << r.value("bs", 1) << " | " << r.value("bytes", 0LL) << " | " << r.value("messages", 0LL) << " | " << buf
        << " |\n";
    }
  }
  return o.str();
}

}  // namespace sfr::analysis
