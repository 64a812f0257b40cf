// Export to SimGrid/SMPI's time-independent trace (TIT) format, so that `smpi_replay` can replay
// the same communication: one action file per rank ("<rank> isend <dst> <tag> <bytes>",
// "irecv", "waitall"; `init` without argument makes sizes bytes), a list file naming them, and a
// cluster platform whose route (private link up, backbone, private link down) gives the postal
// cost alpha + beta*s of the machine's off-node eager parameters. What is exported is the plan
// (src/plan) of backend `b` on the trace's placement: per round, each rank's receives, then its
// sends, then a waitall (basic by default; the node-aware strategies' three steps; shared-memory
// copies are not messages and are left out).
#pragma once

#include <string>

#include "sim/machine.hpp"
#include "sim/strategies.hpp"
#include "trace/trace.hpp"

namespace sfr::sim {

struct SimgridExport {
  std::string trace_list, platform, hostfile;  // paths written
  std::string command;                         // suggested smpirun command line
};
SimgridExport export_simgrid(const trace::BuiltTrace& bt, const MachineModel& m, const std::string& dir, const BackendVariant& b = {});

// Whether `smpirun` is on PATH (SimGrid installed).
bool smpirun_available();
// Runs the exported replay with smpirun; returns SMPI's "Simulation time" in seconds, or a
// negative value when the run failed (its log is left in DIR/smpirun.log).
double run_smpirun(const SimgridExport& ex, const std::string& dir);

}  // namespace sfr::sim
