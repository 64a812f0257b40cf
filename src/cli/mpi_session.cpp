#include "cli/mpi_session.hpp"

#ifdef HAVE_SFREPLAY_MPI
#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <exception>
#include <iostream>
#include <thread>

#include "cli/options.hpp"
#include "core/error.hpp"
#include "exec/mpi/launch.hpp"
#include "exec/mpi/mpi_check.hpp"
#include "exec/mpi/star_forest.hpp"

namespace sfr::cli {

MpiSession::MpiSession() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    exec::mpi::prepare_mpi_init();
    MPI_Init(nullptr, nullptr);
  }
  exec::mpi::return_errors(MPI_COMM_WORLD);  // MPI's errors become sf-replay's one line (exec/mpi/mpi_check.hpp)
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
}

MpiSession::~MpiSession() {
  if (std::uncaught_exceptions() > 0) return;  // end_job aborts the job
  int done = 0;
  MPI_Finalized(&done);
  if (!done) MPI_Finalize();
}

bool in_mpi_job() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
}

void end_job(const char* cmd, const std::string& kind, const std::string& what, int status) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank != 0) std::this_thread::sleep_for(std::chrono::seconds(1));
  stderr_line(std::string("sf-replay ") + cmd + ": " + kind + ": " + (size > 1 ? "rank " + std::to_string(rank) + ": " : "") + what);
  MPI_Abort(MPI_COMM_WORLD, status);
  std::_Exit(status);  // (MPI_Abort does not return)
}

bool agreed(const char* cmd, int rank, int size, const std::function<void()>& step) {
  std::string err;
  try {
    step();
  } catch (const InputError& e) {
    err = e.what();
  }
  int mine = err.empty() ? size : rank, first = size;
  SFR_MPI(MPI_Allreduce, &mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == size) return true;
  if (first != 0 && rank == first) {
    const int len = static_cast<int>(err.size());
    SFR_MPI(MPI_Send, &len, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    SFR_MPI(MPI_Send, err.data(), len, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
  }
  if (rank == 0) {
    if (first != 0) {
      int len = 0;
      SFR_MPI(MPI_Recv, &len, 1, MPI_INT, first, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      err.resize(static_cast<size_t>(len));
      SFR_MPI(MPI_Recv, err.data(), len, MPI_CHAR, first, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      err = "rank " + std::to_string(first) + ": " + err;
    }
    stderr_line(std::string("sf-replay ") + cmd + ": error: " + err);
  }
  SFR_MPI(MPI_Barrier, MPI_COMM_WORLD);
  return false;
}

int ranks_on_node() { return exec::mpi::ranks_sharing_memory(MPI_COMM_WORLD); }

int cores_on_node() {
  const long c = sysconf(_SC_NPROCESSORS_ONLN);
  return c > 0 ? static_cast<int>(c) : 1;
}

bool bound_to_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return false;
  return CPU_COUNT(&set) < cores_on_node();
}

std::string oversubscription(int local) {
  const int cores = cores_on_node();
  if (local <= cores) return "";
  return std::to_string(local) + " ranks share " + std::to_string(cores) + " cores on this node";
}

}  // namespace sfr::cli
#endif
