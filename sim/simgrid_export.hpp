// Export to SimGrid/SMPI's time-independent trace (TIT) format, so that `smpi_replay` can replay
// the same communication: one action file per rank ("<rank> Isend <dst> <tag> <bytes>",
// "Irecv", "waitall"; `init` without argument makes sizes bytes), a list file naming them, and a
// cluster platform whose route (private link up, backbone, private link down) gives the postal
// cost alpha + beta*s of the machine's off-node eager parameters. The basic backend is exported.
#pragma once

#include <string>

#include "sim/machine.hpp"
#include "trace/trace.hpp"

namespace sfr::sim {

struct SimgridExport {
  std::string trace_list, platform, hostfile;  // paths written
  std::string command;                         // suggested smpirun command line
};
SimgridExport export_simgrid(const trace::BuiltTrace& bt, const MachineModel& m, const std::string& dir);

}  // namespace sfr::sim
