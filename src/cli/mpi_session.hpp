// MPI for the commands that run under mpirun (run, calibrate): initialisation and finalisation,
// and errors agreed on by every rank.
#pragma once

#ifdef HAVE_SFREPLAY_MPI
#include <mpi.h>

#include <functional>
#include <string>

namespace sfr::cli {

// MPI_Init unless already initialised; MPI_Finalize at the end of the scope, unless an exception
// is leaving it: then the other ranks are not finalising with this one (they wait in a collective
// or for a message), so MPI stays up for run_guarded to end the job with end_job (MPI_Abort).
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

// Whether this process is a rank of an MPI job still running (initialised, not finalised).
bool in_mpi_job();
// Ends the whole job from this rank after an error no agreement caught (an exception outside the
// ranks' agreements, or one that is no InputError inside them; cli::run_guarded calls it): prints
// "sf-replay CMD: KIND: rank R: WHAT" and calls MPI_Abort(MPI_COMM_WORLD, status), which ends every
// rank at once (mpirun's exit status is `status`). Ranks other than 0 wait a second first, so that
// an error every rank meets at once is printed once, by rank 0, whose abort ends them.
[[noreturn]] void end_job(const char* cmd, const std::string& kind, const std::string& what, int status);

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
