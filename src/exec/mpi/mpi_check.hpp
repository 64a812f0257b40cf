// An MPI call's error code, turned into the project's error: the CLI's communicators return their
// errors (return_errors: MPI_COMM_WORLD after MPI_Init, inherited by every communicator duplicated
// or split from it; each window sets its own), and every call of the executors' set-up and data
// paths goes through SFR_MPI, which throws MpiError naming the call and MPI's text for the code.
// run_guarded prints it as "sf-replay CMD: MPI error: rank R: MPI_Isend: MPI_ERR_RANK: invalid
// rank" and ends the job (MPI_Abort, status 1), as other errors end it.
//
// Not checked, on purpose: MPI_Comm_rank/size (they fail only on an invalid communicator, which
// the call after them would name), the *_free calls of destructors (which must not throw), and
// the stall watch's thread (an exception there would end the process without the line).
// Header-only: the CUDA executor (below sfreplay_mpi in the link order) uses it too.
#pragma once

#include <mpi.h>

#include <string>

#include "core/error.hpp"

namespace sfr::exec::mpi {

[[noreturn]] inline void throw_mpi_error(const char* call, int code) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) len = 0;
  throw MpiError(std::string(call) + ": " + (len > 0 ? std::string(text, static_cast<std::size_t>(len)) : "error code " + std::to_string(code)));
}

inline void check(int code, const char* call) {
  if (code != MPI_SUCCESS) [[unlikely]]
    throw_mpi_error(call, code);
}

// Errors on `comm` (and the communicators made from it later) return to the caller instead of
// aborting the job.
inline void return_errors(MPI_Comm comm) { check(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler"); }
inline void return_errors(MPI_Win win) { check(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN), "MPI_Win_set_errhandler"); }

}  // namespace sfr::exec::mpi

// SFR_MPI(MPI_Isend, buf, ...) calls MPI_Isend(buf, ...) and throws MpiError naming it when it
// returns an error.
#define SFR_MPI(fn, ...) ::sfr::exec::mpi::check(fn(__VA_ARGS__), #fn)
