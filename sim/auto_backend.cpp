#include "sim/auto_backend.hpp"

#include <cstdlib>
#include <filesystem>
#include <map>

#include "core/backends.hpp"
#include "sim/simulate.hpp"

namespace sfr::sim {

std::vector<SfChoice> choose_backends(const trace::BuiltTrace& bt, const MachineModel& m) {
  std::vector<Backend> backends;
  for (const char* name : core::kModelledBackends) backends.push_back(parse_backend(name, "--backend"));
  const auto res = simulate(bt, m, backends);
  const auto& ops = bt.trace().ops;
  std::vector<SfChoice> out;
  std::map<std::string, std::size_t> at;
  for (std::size_t i = 0; i < ops.size(); ++i)
    if (at.emplace(ops[i].sf, out.size()).second) out.push_back({ops[i].sf, "", "", 0, 0, 0});
  for (auto& c : out) {
    std::vector<double> sum(backends.size(), 0);
    for (std::size_t k = 0; k < backends.size(); ++k)
      for (std::size_t i = 0; i < ops.size(); ++i)
        if (ops[i].sf == c.sf) sum[k] += res.backends[k].ops[i].total_s;
    for (std::size_t i = 0; i < ops.size(); ++i) c.ops += ops[i].sf == c.sf ? 1 : 0;
    std::size_t best = 0, second = backends.size();
    for (std::size_t k = 1; k < backends.size(); ++k)
      if (sum[k] < sum[best]) best = k;
    for (std::size_t k = 0; k < backends.size(); ++k)
      if (k != best && (second == backends.size() || sum[k] < sum[second])) second = k;
    c.backend = core::kModelledBackends[best];
    c.predicted_s = sum[best];
    if (second < backends.size()) c.runner_up = core::kModelledBackends[second], c.runner_up_s = sum[second];
  }
  return out;
}

std::string default_machine_path() {
  if (const char* f = std::getenv("SFR_MACHINE_FILE"); f && *f) return f;
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x) return std::string(x) + "/sf-replay/machine.json";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.config/sf-replay/machine.json";
  return "";
}

MachineModel auto_machine(const std::string& given, std::string* source) {
  if (!given.empty()) {
    if (source) *source = given;
    return load_machine(given);
  }
  const std::string path = default_machine_path();
  std::error_code ec;
  if (!path.empty() && std::filesystem::is_regular_file(path, ec)) {
    if (source) *source = path + " (written by calibrate)";
    return load_machine(path);
  }
  if (source)
    *source = "the generic preset (no calibrated machine at " + (path.empty() ? std::string("$HOME/.config/sf-replay") : path) + ")";
  return *preset("generic");
}

}  // namespace sfr::sim
