// The model-driven `--backend auto`: per SF, the executor backend the simulator predicts fastest
// for the ops on that SF, on the machine `calibrate` wrote (or a given one, or `generic`).
#pragma once

#include <string>
#include <vector>

#include "sim/machine.hpp"
#include "trace/trace.hpp"

namespace sfr::sim {

struct SfChoice {
  std::string sf, backend, runner_up;
  double predicted_s = 0, runner_up_s = 0;  // the SF's ops, summed over the trace
  std::size_t ops = 0;
  double margin() const { return predicted_s > 0 && !runner_up.empty() ? runner_up_s / predicted_s - 1 : 0; }
};

// One choice per SF used by an op, in order of first use, among core::kModelledBackends.
std::vector<SfChoice> choose_backends(const trace::BuiltTrace& bt, const MachineModel& m);

// Where `calibrate` saves the machine `--backend auto` uses by default: $SFR_MACHINE_FILE, else
// $XDG_CONFIG_HOME/sf-replay/machine.json, else ~/.config/sf-replay/machine.json ("" when none
// of the variables is set).
std::string default_machine_path();
// `given` when not empty (a preset, uniform:..., or a file); else the default machine file when
// it exists; else the generic preset. `source` receives which, in words.
MachineModel auto_machine(const std::string& given, std::string* source);

}  // namespace sfr::sim
