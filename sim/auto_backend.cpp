#include "sim/auto_backend.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "core/backends.hpp"
#include "core/environment.hpp"
#include "io/json_strict.hpp"
#include "sim/simulate.hpp"

namespace sfr::sim {

std::vector<SfChoice> choose_backends(const trace::BuiltTrace& bt, const MachineModel& machine, int ranks_per_node) {
  MachineModel m = machine;
  if (ranks_per_node > 0) {
    // The run's placement: the trace's topology (or the machine's) with the run's nodes.
    m.topology = bt.trace().machine ? *bt.trace().machine : machine.topology;
    m.topology.ranks_per_node = ranks_per_node;
    m.topology.ranks_per_socket = std::min(m.topology.ranks_per_socket, ranks_per_node);
    m.override_topology = true;
  }
  // The candidates, in catalogue order (ties go to the first): the node-aware strategies only
  // where there is more than one node to route through (on one node they are shm with extra steps).
  const bool several_nodes = layout_for(bt.trace(), m).nnodes() > 1;
  std::vector<BackendVariant> backends;
  for (const auto& b : core::kBackends)
    if (b.auto_candidate && (!b.node_aware || several_nodes)) backends.push_back({b.id, false});
  // Each op alone (everyone waits for all before it, as the executor times ops and validate-model
  // predicts them): in a sequence, an op's time would carry what the one before it left undone on
  // some ranks, which a choice per motion must not credit to the other motion.
  const auto res = simulate(bt, m, backends, nullptr, true);
  const auto& ops = bt.trace().ops;
  // The index of the backend with the least of `sum`, ties to `first` where it is among them,
  // then to the first in catalogue order.
  auto least = [&](const std::vector<double>& sum, std::size_t first) {
    std::size_t best = first;
    for (std::size_t k = 0; k < sum.size(); ++k)
      if (sum[k] < sum[best]) best = k;
    return best;
  };
  auto summed = [&](auto&& counts) {
    std::vector<double> sum(backends.size(), 0);
    for (std::size_t k = 0; k < backends.size(); ++k)
      for (std::size_t i = 0; i < ops.size(); ++i)
        if (counts(ops[i])) sum[k] += res.backends[k].ops[i].total_s;
    return sum;
  };
  std::vector<SfChoice> out;
  std::map<std::pair<std::string, core::Motion>, std::size_t> at;
  for (const auto& op : ops) {
    const core::Motion motion = core::op_traits(op.op).motion;
    const auto [it, added] = at.emplace(std::pair{op.sf, motion}, out.size());
    if (added) out.push_back({.sf = op.sf, .motion = motion, .kinds = ""});
    SfChoice& c = out[it->second];
    ++c.ops;
    const std::string kind = core::op_kind_name(op.op);
    if ((", " + c.kinds + ", ").find(", " + kind + ", ") == std::string::npos) c.kinds += (c.kinds.empty() ? "" : ", ") + kind;
  }
  std::map<std::string, std::size_t> whole;  // per SF: the backend fastest for all of its ops
  for (auto& c : out) {
    auto w = whole.find(c.sf);
    if (w == whole.end()) w = whole.emplace(c.sf, least(summed([&](const core::OpSpec& op) { return op.sf == c.sf; }), 0)).first;
    const auto sum = summed([&](const core::OpSpec& op) { return op.sf == c.sf && core::op_traits(op.op).motion == c.motion; });
    const std::size_t best = least(sum, w->second);
    std::size_t second = backends.size();
    for (std::size_t k = 0; k < backends.size(); ++k)
      if (k != best && (second == backends.size() || sum[k] < sum[second])) second = k;
    c.backend = backends[best].kind;
    c.predicted_s = sum[best];
    if (second < backends.size()) c.runner_up = backends[second].kind, c.runner_up_s = sum[second];
  }
  return out;
}

std::string default_machine_path(bool emulated) {
  using core::Env, core::env_nonempty;
  if (const char* f = env_nonempty(Env::machine_file)) return f;
  const std::string name = emulated ? "/sf-replay/machine-emulated.json" : "/sf-replay/machine.json";
  if (const char* x = env_nonempty(Env::xdg_config_home)) return std::string(x) + name;
  if (const char* h = env_nonempty(Env::home)) return std::string(h) + "/.config" + name;
  return "";
}

MachineModel auto_machine(const std::string& given, std::string* source, std::string* file, bool emulated) {
  if (file) file->clear();
  if (!given.empty()) {
    if (source) *source = given;
    auto m = load_machine(given);
    if (file && !preset(given) && given.rfind("uniform:", 0) != 0) *file = given;
    return m;
  }
  std::string path = default_machine_path(emulated);
  std::error_code ec;
  if (emulated && !std::filesystem::is_regular_file(path, ec)) path = default_machine_path(false);
  if (!path.empty() && std::filesystem::is_regular_file(path, ec)) {
    if (source) *source = path + " (written by calibrate)";
    auto m = load_machine(path);
    if (file) *file = path;
    return m;
  }
  if (source)
    *source = "the generic preset (no calibrated machine at " + (path.empty() ? std::string("$HOME/.config/sf-replay") : path) + ")";
  return *preset("generic");
}

std::optional<CalibratedOn> calibrated_on(const std::string& file) {
  if (file.empty() || preset(file) || file.rfind("uniform:", 0) == 0) return std::nullopt;
  const io::Json j = io::parse_json_strict(io::read_text_file(file), file);
  if (!j.is_object() || !j.contains("calibration") || !j["calibration"].is_object()) return std::nullopt;
  const io::Json& c = j["calibration"];
  const auto str = [&](const char* k) { return c.contains(k) && c[k].is_string() ? c[k].get<std::string>() : std::string(); };
  const auto num = [&](const char* k) { return c.contains(k) && c[k].is_number_integer() ? c[k].get<int>() : 0; };
  CalibratedOn o;
  o.host = str("host"), o.date = str("date");
  o.ranks = num("ranks"), o.nodes = num("nodes"), o.ranks_per_node = num("ranks_per_node");
  o.emulated_nodes = c.contains("emulated_nodes") && c["emulated_nodes"].is_boolean() && c["emulated_nodes"].get<bool>();
  return o;
}

namespace {
// Seconds since the epoch of "YYYY-MM-DDTHH:MM:SSZ"; -1 when it is not that.
std::time_t parse_utc(const std::string& s) {
  std::tm tm{};
  char z = 0;
  if (std::sscanf(s.c_str(), "%d-%d-%dT%d:%d:%d%c", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &z) != 7 ||
      z != 'Z')
    return -1;
  tm.tm_year -= 1900, tm.tm_mon -= 1;
  return timegm(&tm);
}

std::string age_text(double s) {
  char b[64];
  if (s < 3600)
    std::snprintf(b, sizeof b, "%.0f min ago", s / 60);
  else if (s < 48 * 3600)
    std::snprintf(b, sizeof b, "%.0f h ago", s / 3600);
  else
    std::snprintf(b, sizeof b, "%.0f days ago", s / 86400);
  return b;
}

std::string nodes_text(int ranks, int rpn) {
  if (ranks <= 0 || rpn <= 0) return "";
  const int nodes = (ranks + rpn - 1) / rpn;
  return " as " + std::to_string(nodes) + (nodes == 1 ? " node of " : " nodes of ") + std::to_string(rpn);
}
}  // namespace

std::string machine_mismatch(const std::string& file, const CalibratedOn& c, const RunPlacement& run, std::time_t now) {
  std::vector<std::string> differ;
  if (!c.host.empty() && !run.host.empty() && c.host != run.host) differ.push_back("host");
  if (c.ranks > 0 && run.ranks > 0 && c.ranks != run.ranks) differ.push_back("ranks");
  if (c.ranks_per_node > 0 && run.ranks_per_node > 0 && c.ranks_per_node != run.ranks_per_node) differ.push_back("ranks per node");
  const std::time_t at = parse_utc(c.date);
  const double age = at >= 0 ? std::max(0.0, std::difftime(now, at)) : -1;  // a clock set back: just now
  const bool stale = age > kStaleMachineHours * 3600;
  if (differ.empty() && !stale) return "";
  std::string what;
  for (const auto& d : differ) what += (what.empty() ? "" : ", ") + d;
  char hours[64];
  std::snprintf(hours, sizeof hours, "older than %.0f h", kStaleMachineHours);
  if (stale) what += (what.empty() ? "" : ", ") + std::string(hours);
  std::string line = "machine file " + file + (differ.empty() ? " is stale (" : " does not match this run (") + what +
                     "): calibrated on host " + (c.host.empty() ? std::string("?") : c.host);
  if (c.ranks > 0) line += " with " + std::to_string(c.ranks) + " ranks" + nodes_text(c.ranks, c.ranks_per_node);
  if (c.emulated_nodes) line += " (emulated)";
  line += ", " + (age >= 0 ? age_text(age) : std::string("at an unknown date")) + "; this run has " + std::to_string(run.ranks) + " ranks" +
          nodes_text(run.ranks, run.ranks_per_node) + " on host " + run.host;
  return line;
}

std::string machine_mismatch(const std::string& name_or_path, const RunPlacement& run) {
  const auto c = calibrated_on(name_or_path);
  return c ? machine_mismatch(name_or_path, *c, run, std::time(nullptr)) : std::string();
}

}  // namespace sfr::sim
