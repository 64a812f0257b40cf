// Named fail points for the fault tests (src/cli/README.md, "Failures, signals and long runs"):
// SFR_FAILPOINT=NAME@RANK makes the process that is rank RANK of its MPI job fail at its first pass
// through fail point NAME, as an internal failure there would (an exception that is no InputError,
// so the job takes the path of a bug or an environment failure: MPI_Abort, status 1). RANK is the
// launcher's (OMPI_COMM_WORLD_RANK, PMIX_RANK or PMI_RANK; 0 without a launcher). Test-only: unset,
// a fail point costs one test of a flag read once at start-up.
#pragma once

#include <stdexcept>
#include <string>

namespace sfr::core {

enum class FailPoint {
  setup,       // building a star forest (its constructor, before its collective set-up)
  begin,       // an op's begin (the runner's one op switch)
  end,         // an op's end
  write,       // an output file, after its temporary file is written and before it is moved into place
  stall_write,  // not a failure: sleeps 60 s at the same place, so that a test can signal a process holding a temporary file
  stall_begin,  // not a failure: an op's begin sleeps 60 s, so that a test sees the other ranks' stall watch fire
  mpi_error     // an op's begin makes an MPI call MPI refuses (a send to a rank that does not exist)
};

// What a fail point throws.
class FailPointHit : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

namespace detail {
extern const bool kFailPointsArmed;  // SFR_FAILPOINT is set (read before main)
bool fail_point_reached(FailPoint p);
}  // namespace detail

// Throws FailPointHit (or stalls) where SFR_FAILPOINT names `p` and this rank. Returns true where
// the caller acts itself (mpi_error, which core cannot: it makes no MPI calls), once.
inline bool fail_point(FailPoint p) {
  if (detail::kFailPointsArmed) [[unlikely]]
    return detail::fail_point_reached(p);
  return false;
}

// Throws InputError("SFR_FAILPOINT", ...) for a malformed value (an unknown name, a rank that is
// no integer >= 0); the CLI checks it before any work.
void check_fail_point_setting();

}  // namespace sfr::core
