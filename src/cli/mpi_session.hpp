// MPI for the commands that run under mpirun (run, calibrate): initialisation and finalisation,
// and errors agreed on by every rank.
#pragma once

#ifdef HAVE_SFREPLAY_MPI
#include <mpi.h>

#include <functional>
#include <string>

namespace sfr::cli {

// MPI_Init unless already initialised; MPI_Finalize at the end of the scope.
struct MpiSession {
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int rank = 0, size = 1;
};

// Runs `step` on every rank; if it throws InputError anywhere, rank 0 prints one line
// ("sf-replay CMD: error: ...", the message of the lowest failing rank, sent to it) before anyone
// leaves, and every rank returns false (exit status 2). The barrier matters: mpirun kills the job
// as soon as one rank exits non-zero.
bool agreed(const char* cmd, int rank, int size, const std::function<void()>& step);

// The ranks of this job on this node.
int ranks_on_node();
// The cores online on this node (at least 1).
int cores_on_node();
// "" unless the `local` ranks of this node outnumber its cores; else "N ranks share C cores on this
// node" (the timings of such a run include the ranks' waits for a core).
std::string oversubscription(int local);
// Whether this process may run on only some of the node's cores (mpirun bound it; so does a
// smaller cpuset of a batch system or a container, which this does not tell apart).
bool bound_to_cores();

}  // namespace sfr::cli
#endif
