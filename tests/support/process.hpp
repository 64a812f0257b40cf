// Running the sf-replay binary (and mpiexec) from tests: exit status and captured output.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

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

// The processes whose parent is `pid` (from /proc).
inline std::vector<pid_t> children_of(pid_t pid) {
  std::vector<pid_t> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(e.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    // pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
    const auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 1));
    char state = 0;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == pid && state != 'Z') out.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return out;
}

// Whether process `pid` exists and is not a zombie.
inline bool alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z';
}

// Which of `pids` still run `seconds` after now (polled every 20 ms). A launcher may exit before
// the ranks it signalled have finished exiting (they are reparented then), so a test of "every
// rank ends" waits for them up to its deadline instead of looking once.
inline std::vector<pid_t> still_alive_after(const std::vector<pid_t>& pids, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  std::vector<pid_t> left = pids;
  while (true) {
    std::erase_if(left, [](pid_t p) { return !alive(p); });
    if (left.empty() || std::chrono::steady_clock::now() >= deadline) return left;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// A command started in the background, in a process group of its own, its output in a log: for
// tests that signal it while it runs. Whatever of it still runs at destruction is killed.
class Background {
public:
  explicit Background(const std::string& cmd) {
    log_ = std::filesystem::temp_directory_path() / ("sfr_bg_" + std::to_string(::getpid()) + "_" + std::to_string(counter()++) + ".log");
    pid_ = ::fork();
    if (pid_ == 0) {
      ::setpgid(0, 0);
      const std::string line = "exec " + cmd + " > " + log_.string() + " 2>&1";
      ::execl("/bin/sh", "sh", "-c", line.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    if (pid_ > 0) ::setpgid(pid_, pid_);
    start_ = std::chrono::steady_clock::now();
  }
  ~Background() {
    if (status_ == kRunning) {
      kill_all(SIGKILL);
      wait_for(10);
    }
    std::error_code ec;
    std::filesystem::remove(log_, ec);
  }
  Background(const Background&) = delete;
  Background& operator=(const Background&) = delete;

  pid_t pid() const { return pid_; }
  // The exit status (128+N when a signal N ended it), or kRunning while it still runs after
  // `seconds`.
  static constexpr int kRunning = -1;
  int wait_for(double seconds) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (status_ == kRunning) {
      int raw = 0;
      const pid_t got = ::waitpid(pid_, &raw, WNOHANG);
      if (got == pid_) {
        status_ = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
        break;
      }
      if (got < 0 || std::chrono::steady_clock::now() >= until) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return status_;
  }
  double seconds_since_start() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }
  std::string output() const { return slurp(log_); }
  // The command's processes and all their descendants (an mpiexec's ranks: Open MPI gives each a
  // process group of its own, so the group alone would miss them).
  std::vector<pid_t> tree() const {
    std::vector<pid_t> all{pid_};
    for (std::size_t k = 0; k < all.size(); ++k)
      for (const pid_t c : children_of(all[k])) all.push_back(c);
    return all;
  }
  void kill_all(int sig) const {
    for (const pid_t p : tree()) ::kill(p, sig);
  }

private:
  static int& counter() {
    static int n = 0;
    return n;
  }
  pid_t pid_ = -1;
  int status_ = kRunning;
  std::filesystem::path log_;
  std::chrono::steady_clock::time_point start_;
};

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

// The suite's mpiexec. Where a rank exits non-zero, Open MPI's launcher ends the job by sending
// the ranks SIGTERM and, odls_base_sigkill_timeout seconds later (default 1), SIGKILL, and it waits
// out that second even when every rank has already exited: 1.05 s of every bad-input test's launch
// against 0.06. The suite sets it to 0; the tests of how a job ends (tests/exec_mpi/
// test_mpi_faults.cpp: signals, fail points, temporary files) set the default again, as users run.
inline std::string mpiexec(int np) {
  own_mpi_session_dir();
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  ::setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", 0);
  ::setenv("OMPI_MCA_odls_base_sigkill_timeout", "0", 0);
  return std::string(SFR_MPIEXEC) + " -n " + std::to_string(np) + " --oversubscribe ";
}
#endif

}  // namespace sfr_test
