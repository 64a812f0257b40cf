// --stall-timeout: nothing waits forever on a network. While a rank runs star-forest ops (the
// runner's timed and conformance loops, calibrate's measurements), a watch thread of its own ends
// the whole job when the rank has made no progress for the timeout: a peer that stopped answering,
// a cut link. It prints one line naming the op, the backend and the ranks this rank waits for
// ("sf-replay run: error: rank 0: no progress for 60 s in op 3 (bcast A) on basic, waiting for
// rank(s) 1 (--stall-timeout)") and calls MPI_Abort (status 1); should the abort itself hang (a
// launcher that cannot reach a cut node), the rank leaves 3 s later on its own.
//
// MPI_Abort comes from the watch thread while the rank's own thread is blocked inside MPI: the
// standard leaves that undefined below MPI_THREAD_MULTIPLE, Open MPI's abort takes no lock the
// blocked thread holds, and the rank's exit follows anyway.
#pragma once

#include <string>
#include <vector>

namespace sfr::exec::mpi::stall {

// Starts the watch (once per process; `seconds` <= 0: never fires). `cmd` names the command in
// its line.
void start(const char* cmd, double seconds);

// The rank is working on `what` ("op 3 (bcast A) on basic"), waiting for messages of `ranks`
// (empty: any rank, as in a barrier): the watch is armed, and the time without progress counts
// from now.
void doing(std::string what, std::vector<int> ranks);
// The rank made progress (an op call or an iteration done): cheap, one relaxed atomic increment.
void tick() noexcept;
// The rank is outside star-forest work (reading, writing, agreeing): the watch is disarmed.
void idle();

}  // namespace sfr::exec::mpi::stall
