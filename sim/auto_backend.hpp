// The model-driven `--backend auto`: per SF, the executor backend the simulator predicts fastest
// for the ops on that SF, on the machine `calibrate` wrote (or a given one, or `generic`).
#pragma once

#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include "sim/machine.hpp"
#include "trace/trace.hpp"

namespace sfr::sim {

struct SfChoice {
  std::string sf;
  core::Motion motion = core::Motion::bcast;  // how its ops move data (core::OpTraits::motion)
  std::string kinds;                          // the kinds of those ops, in order of first use: "reduce, gather"
  core::BackendId backend = core::kDefaultBackend;
  std::optional<core::BackendId> runner_up{};  // none: a single candidate
  double predicted_s = 0, runner_up_s = 0;     // those ops, summed over the trace
  std::size_t ops = 0;
  double margin() const { return predicted_s > 0 && runner_up ? runner_up_s / predicted_s - 1 : 0; }
};

// One choice per SF and motion used by an op (an SF's bcasts may run best on one backend and its
// reduces on another: each runs on its own, the SF set up on both), in order of first use, among
// the catalogue's auto candidates (core::kBackends: basic, neighbor, window, alltoallv, shm, and
// 3step, 2step, split-md where the placement has more than one node). A tie goes to the backend
// predicted fastest for all of the SF's ops (one set-up where nothing is gained by two), then to
// the first in catalogue order. Each op is predicted alone (simulate's ops_apart), its motion's
// ops summed. The placement: `ranks_per_node` when > 0 (the run's nodes), else the trace's
// machine, else m's topology.
std::vector<SfChoice> choose_backends(const trace::BuiltTrace& bt, const MachineModel& m, int ranks_per_node = 0);

// Where `calibrate` saves the machine `--backend auto` uses by default: $SFR_MACHINE_FILE, else
// $XDG_CONFIG_HOME/sf-replay/machine.json, else ~/.config/sf-replay/machine.json ("" when none
// of the variables is set). A calibration on emulated nodes (nodes inside the launch's, which
// share memory and no wire) is kept apart from one on the launch's own nodes: machine-emulated.json
// in the same folder (not with $SFR_MACHINE_FILE, which names one file for both).
std::string default_machine_path(bool emulated = false);
// `given` when not empty (a preset, uniform:..., or a file); else the default machine file of a
// run on emulated nodes or not (`emulated`; an emulated run takes the other where its own is
// missing) when it exists; else the generic preset. `source` receives which, in words; `file` the
// machine file read ("" for a preset or uniform:...).
MachineModel auto_machine(const std::string& given, std::string* source, std::string* file = nullptr, bool emulated = false);

// What a machine file written by calibrate records of the run that measured it (its
// "calibration" block); unknown fields (older files) are empty or 0 and not compared.
struct CalibratedOn {
  std::string host, date;  // date: ISO 8601 UTC, e.g. 2026-11-24T09:30:05Z
  int ranks = 0, nodes = 0, ranks_per_node = 0;
  bool emulated_nodes = false;
};
// The calibration block of machine file `file`; nullopt for a preset, uniform:... or a file
// without one.
std::optional<CalibratedOn> calibrated_on(const std::string& file);

// The run predictions are made for: its host, ranks and ranks per node as it uses them (emulated
// nodes when it emulates them, else the ranks sharing memory).
struct RunPlacement {
  std::string host;
  int ranks = 0, ranks_per_node = 0;
};
// Older than this, a calibrated machine file is said to be stale even where it matches the run.
inline constexpr double kStaleMachineHours = 24;
// "" when the calibration matches the run (host, ranks, ranks per node) and is younger than
// kStaleMachineHours at `now`; else one line naming `file`, what differs and the file's age:
// "machine file F does not match this run (ranks, nodes): calibrated on host X with 4 ranks as 2
// nodes of 2 (emulated), 3 h ago; this run has 2 ranks as 1 node of 2 on host X".
std::string machine_mismatch(const std::string& file, const CalibratedOn& c, const RunPlacement& run, std::time_t now);
// The same for the machine `name_or_path` a command predicts with, now ("" when it is no
// calibrated file).
std::string machine_mismatch(const std::string& name_or_path, const RunPlacement& run);

}  // namespace sfr::sim
