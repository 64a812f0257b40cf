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

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace sfr::exec::mpi::stall {

using Clock = std::chrono::steady_clock;

// The watch's decision, apart from its thread and its clock (tests drive it with times of their
// own). Polled with the rank's progress count and whether it is armed, it says when the rank has
// gone `limit` without progress: counted from the last poll that saw the count move or the watch
// disarmed, or from when the rank was last armed, whichever is later.
class Progress {
public:
  Progress(std::chrono::duration<double> limit, std::uint64_t ticks, Clock::time_point now) : limit_(limit), seen_(ticks), last_(now) {}
  bool stalled(Clock::time_point now, std::uint64_t ticks, bool armed, Clock::time_point armed_since);

private:
  std::chrono::duration<double> limit_;
  std::uint64_t seen_;
  Clock::time_point last_;
};

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
