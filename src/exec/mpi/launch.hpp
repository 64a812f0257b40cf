// The MPI launch the executor runs in: what the MPI library needs before MPI_Init, whether it can
// make one-sided windows across the launch's nodes, and the launch's nodes (the ranks that share
// memory) against the nodes a run asks for.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

namespace sfr::exec::mpi {

// Call before MPI_Init. Open MPI: Debian's openmpi-mca-params.conf (and others') excludes
// osc/pt2pt ("osc = ^ucx,pt2pt"), which leaves nodes joined by TCP with no one-sided component
// (osc/rdma needs an RDMA network, osc/sm one node): MPI_Win_allocate then fails (MPI_ERR_WIN) and
// aborts the job. Unless the user set OMPI_MCA_osc, the effective exclusion list (read through
// MPI_T) is set again without pt2pt, whose priority is below sm's and rdma's: it serves only
// where neither can. Other MPI libraries: nothing.
void prepare_mpi_init();

// "" where windows can be made over `comm` (tried: a one-double MPI_Win_allocate with errors
// returned), else why not. Collective; the same answer on every rank.
std::string window_refusal(MPI_Comm comm);

// The nodes of this launch: per rank its node (0, 1, ... in the order of their first ranks), and
// the ranks per node where every node is a block of consecutive ranks of that many (the last may
// hold fewer), else 0. Collective.
struct LaunchNodes {
  std::vector<int> node_of;
  int nodes = 1;
  int block = 0;
  std::string describe() const;  // "2 nodes of 1 rank", "1 node of 4 ranks", "3 nodes (ranks not in blocks)"
};
LaunchNodes launch_nodes(MPI_Comm comm);

// The ranks per node a run uses. `requested` (> 0) are nodes of that many consecutive ranks, asked
// for by an option (`from_option`: --ranks-per-node) or by the trace's machine: used where each
// lies inside one node of the launch (emulated nodes inside real ones, or the real ones). One
// that puts ranks of different launch nodes together is refused when an option asked for it
// (InputError) and otherwise said in `note` (one line) and replaced by the launch's nodes.
// Without a request, the launch's. Throws InputError when the launch's nodes are needed and are
// not blocks of consecutive ranks (sf-replay's nodes are).
int run_ranks_per_node(const LaunchNodes& launch, int requested, bool from_option, std::string* note);

}  // namespace sfr::exec::mpi
