// Running the sf-replay binary (and mpiexec) from tests: exit status and captured output.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace sfr_test {

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// How many times `what` occurs in `s` (one-line error checks: printed once, not once per rank).
inline std::size_t occurrences(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t pos = 0; (pos = s.find(what, pos)) != std::string::npos; ++pos) ++n;
  return n;
}

struct Proc {
  int status;
  std::string out;  // stdout and stderr together
};

// Runs a shell command line; a timeout turns a hang into a failure.
inline Proc run_command(const std::string& cmd, int timeout_s = 300) {
  const auto log = std::filesystem::temp_directory_path() / ("sfr_cmd_" + std::to_string(::getpid()) + ".log");
  const int raw = std::system(("timeout " + std::to_string(timeout_s) + " " + cmd + " > " + log.string() + " 2>&1").c_str());
  Proc p{WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(log)};
  std::filesystem::remove(log);
  return p;
}

#ifdef SFR_MPIEXEC
// mpiexec as root (containers, CI) with more ranks than cores.
// Open MPI 4.1 creates its session directory (TMPDIR/ompi.HOST.UID) on first use, and two mpiruns
// that start at once (ctest -j) can race on it: the loser fails with "mkdir ... File exists" in
// orte_init. Each test process gets a base of its own (removed when the process ends), unless the
// caller chose one.
inline void own_mpi_session_dir() {
  struct Dir {
    std::filesystem::path p;
    ~Dir() {
      std::error_code ec;
      if (!p.empty()) std::filesystem::remove_all(p, ec);
    }
  };
  static Dir dir;
  if (!dir.p.empty() || std::getenv("OMPI_MCA_orte_tmpdir_base")) return;
  dir.p = std::filesystem::temp_directory_path() / ("sfr-ompi-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir.p);
  ::setenv("OMPI_MCA_orte_tmpdir_base", dir.p.c_str(), 0);
}

inline std::string mpiexec(int np) {
  own_mpi_session_dir();
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  ::setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", 0);
  return std::string(SFR_MPIEXEC) + " -n " + std::to_string(np) + " --oversubscribe ";
}
#endif

}  // namespace sfr_test
