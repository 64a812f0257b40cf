// sf-replay capture: runs an unchanged PETSc application with the capture library preloaded and
// merges what its ranks recorded into one sf-trace (src/capture/README.md).
//   sf-replay capture -o TRACE [--name N] [--max-ops N] [--sf-view DIR] -- COMMAND...
//   sf-replay capture --library      (the library's path, for launching by hand)
// Exit status: the application's own when it fails (no trace is written), 2 when it ran no
// PetscSF operation that could be recorded or the capture is refused or incomplete, 128+N when
// SIGINT or SIGTERM (N) interrupted it (forwarded to the launcher's process group, which is waited
// for; no trace, and the ranks' files are removed), 0 otherwise.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <set>
#include <iostream>
#include <thread>

#include "capture/merge.hpp"
#include "cli/options.hpp"
#include "core/environment.hpp"
#include "core/error.hpp"
#include "io/output_file.hpp"
#include "trace/reader.hpp"
#include "trace/writer.hpp"

namespace sfr::cli {

namespace {

namespace fs = std::filesystem;

// Installed: beside the CLI's lib folder (SFR_CAPTURE_LIBRARY_REL, from the bin folder); in a
// build tree: where the build put it.
std::string library_path() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path() / SFR_CAPTURE_LIBRARY_REL;
    if (fs::exists(installed, ec)) return fs::weakly_canonical(installed, ec).string();
  }
  if (fs::exists(SFR_CAPTURE_LIBRARY_BUILD, ec)) return SFR_CAPTURE_LIBRARY_BUILD;
  throw std::runtime_error("the capture library is neither installed beside sf-replay nor in its build tree");
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// The application's name: the first word after the launcher that is an executable file.
std::string app_name(const std::vector<std::string>& cmd) {
  for (std::size_t k = 1; k < cmd.size(); ++k) {
    std::error_code ec;
    if (cmd[k].empty() || cmd[k][0] == '-') continue;
    if (fs::is_regular_file(cmd[k], ec) && access(cmd[k].c_str(), X_OK) == 0) return fs::path(cmd[k]).filename().string();
  }
  return fs::path(cmd.at(0)).filename().string();
}

std::string quoted(const std::vector<std::string>& cmd) {
  std::string s;
  for (const auto& w : cmd) s += (s.empty() ? "" : " ") + w;
  return s;
}

struct TempDir {
  std::string path;
  TempDir() {
    const char* base = core::env_nonempty(core::Env::tmpdir);
    std::string tmpl = std::string(base ? base : "/tmp") + "/sf-capture.XXXXXX";
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a temporary folder in " + tmpl);
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// SIGINT / SIGTERM while the application runs: forwarded to the launcher's process group (its
// own: the application's ranks under mpiexec, or the application), and remembered.
volatile sig_atomic_t launcher_group = 0;  // 0 until the launcher is started
volatile sig_atomic_t interrupted_by = 0;  // the signal, 0 for none

extern "C" void forward_to_launcher(int sig) {
  interrupted_by = sig;
  if (launcher_group > 0) ::kill(-static_cast<pid_t>(launcher_group), sig);
}

// Blocks SIGINT and SIGTERM in this scope (around the fork, so that the launcher's group is known
// before a signal is forwarded to it).
struct BlockInterrupts {
  sigset_t old{};
  BlockInterrupts() {
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGINT);
    sigaddset(&s, SIGTERM);
    sigprocmask(SIG_BLOCK, &s, &old);
  }
  ~BlockInterrupts() { sigprocmask(SIG_SETMASK, &old, nullptr); }
};

// Waits for the launcher. After a forwarded signal its group (the launcher and what it started
// there) has 10 s to end; then what is left of it is killed (a rank that ignores SIGINT, as the
// background jobs of a shell script do) and waited for.
int wait_for_launcher(pid_t pid) {
  int status = 0;
  bool reaped = false;
  while (!reaped && !interrupted_by) {
    if (waitpid(pid, &status, 0) == pid)
      reaped = true;
    else if (errno != EINTR)
      throw std::runtime_error("waitpid failed");
  }
  if (!interrupted_by) return status;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  bool killed = false;
  while (!reaped || ::kill(-pid, 0) == 0) {  // until the launcher is reaped and its group empty
    if (!reaped && waitpid(pid, &status, WNOHANG) == pid) reaped = true;
    if (!killed && std::chrono::steady_clock::now() >= deadline) {
      ::kill(-pid, SIGKILL);
      killed = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return status;
}

// Runs the command with the library preloaded, in a process group of its own; its wait status.
int run_with_library(const std::vector<std::string>& cmd, const std::string& lib, const std::string& dir, std::uint64_t max_ops,
                     const std::string& view_dir) {
  std::cout.flush();
  std::cerr.flush();
  struct sigaction forward {}, old_int {}, old_term {};
  forward.sa_handler = forward_to_launcher;
  sigemptyset(&forward.sa_mask);  // no SA_RESTART: waitpid returns at a signal
  pid_t pid = -1;
  {
    const BlockInterrupts blocked;
    sigaction(SIGINT, &forward, &old_int);
    sigaction(SIGTERM, &forward, &old_term);
    pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
      setpgid(0, 0);
      signal(SIGINT, SIG_DFL);  // (blocked until exec's mask is restored below)
      signal(SIGTERM, SIG_DFL);
      sigset_t none;
      sigemptyset(&none);
      sigprocmask(SIG_SETMASK, &none, nullptr);
      using core::Env, core::env_name;
      const char* old = core::env_nonempty(Env::ld_preload);
      const std::string preload = old ? lib + ":" + old : lib;
      setenv(env_name(Env::ld_preload), preload.c_str(), 1);
      setenv(env_name(Env::capture_dir), dir.c_str(), 1);
      setenv(env_name(Env::capture_max_ops), std::to_string(max_ops).c_str(), 1);
      if (view_dir.empty())
        unsetenv(env_name(Env::capture_view));
      else
        setenv(env_name(Env::capture_view), view_dir.c_str(), 1);
      std::vector<char*> argv;
      for (const auto& w : cmd) argv.push_back(const_cast<char*>(w.c_str()));
      argv.push_back(nullptr);
      execvp(argv[0], argv.data());
      std::cerr << "sf-replay capture: error: cannot run '" << cmd[0] << "': " << std::strerror(errno) << "\n";
      _exit(127);
    }
    setpgid(pid, pid);  // (both sides: whichever runs first)
    launcher_group = pid;
    if (interrupted_by) ::kill(-pid, interrupted_by);  // a signal that came before the launcher was there
  }
  const int status = wait_for_launcher(pid);
  launcher_group = 0;
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  return status;
}

// A command given without "--" (sf-replay capture -o t.json mpiexec -n 2 ./app): the first word
// that is neither an option nor an option's value; "" when there is none.
std::string command_without_separator(const Args& args) {
  static const std::set<std::string> with_value = {"-o", "--output", "--name", "--max-ops", "--sf-view"};
  for (std::size_t k = 0; k < args.size(); ++k) {
    if (with_value.count(args[k])) {
      ++k;
      continue;
    }
    if (!args[k].empty() && args[k][0] != '-') return args[k];
  }
  return "";
}

// This process is a rank of an MPI launch: capture itself must start the launcher, once.
std::string launched_rank() {
  if (const auto r = core::launcher_rank()) return std::string(r->variable) + "=" + r->text;
  return "";
}

}  // namespace

int cmd_capture(const Args& all) {
  // Everything after "--" is the application's command line, untouched.
  Args args;
  std::vector<std::string> cmd;
  bool after = false;
  for (const auto& a : all) {
    if (!after && a == "--") {
      after = true;
      continue;
    }
    (after ? cmd : args).push_back(a);
  }
  po::options_description opts("capture options");
  std::string out, name, view_dir;
  // A --sf-view folder this run made is removed again when the capture fails and it stayed empty.
  fs::path created_view;
  struct RemoveIfEmpty {
    const fs::path& p;
    bool keep = false;
    ~RemoveIfEmpty() {
      std::error_code ec;
      if (!keep && !p.empty() && fs::is_empty(p, ec)) fs::remove(p, ec);
    }
  } view_guard{created_view};
  std::uint64_t max_ops = 1000;
  opts.add_options()("output,o", po::value(&out), "trace file to write (atomically)")(
      "name", po::value(&name), "the trace's name (default: capture-APP-pP)")(
      "max-ops", po::value(&max_ops)->default_value(max_ops),
      "op records kept in the trace (consecutive identical ops fold into one record's repeat); later ops are only counted")(
      "sf-view", po::value(&view_dir), "folder where PETSc prints each recorded SF (PetscSFView, ascii_info_detail) as view-sfN.txt")(
      "library", "print the capture library's path (for LD_PRELOAD by hand) and exit");
  po::variables_map vm;
  if (cmd.empty())
    if (const std::string word = command_without_separator(args); !word.empty())
      throw InputError("", "'" + word + "': the application's command goes after '--' (sf-replay capture -o TRACE -- mpiexec -n P ./app ARGS)");
  if (parse_options("capture", "-o TRACE [options] -- COMMAND [ARGS...]  |  --library", args, opts, {}, vm)) return 0;
  if (vm.count("library")) {
    if (!out.empty() || !cmd.empty() || vm.count("name") || vm.count("sf-view") || !vm["max-ops"].defaulted())
      throw InputError("--library", "takes no other option and no command (it only prints the library's path)");
    std::cout << library_path() << "\n";
    return 0;
  }
  if (out.empty()) throw InputError("", "no --output given (usage: sf-replay capture -o TRACE -- COMMAND [ARGS...])");
  if (cmd.empty()) throw InputError("", "no command given after '--' (usage: sf-replay capture -o TRACE -- mpiexec -n P ./app ARGS)");
  if (max_ops < 1) throw InputError("--max-ops", "must be at least 1");
  if (const std::string rank = launched_rank(); !rank.empty())
    throw InputError("", "this capture runs as a rank of an MPI launch (" + rank +
                             "): run sf-replay capture once, with the launcher after '--' (sf-replay capture -o TRACE -- mpiexec -n P ./app)");
  io::check_output_path("--output", out);
  if (!view_dir.empty()) {
    std::error_code ec;
    if (fs::exists(view_dir, ec) && !fs::is_directory(view_dir, ec)) throw InputError("--sf-view", "'" + view_dir + "' is not a folder");
    if (!fs::exists(view_dir, ec)) {
      fs::create_directories(view_dir, ec);
      if (ec) throw InputError("--sf-view", "cannot create '" + view_dir + "': " + ec.message());
      created_view = fs::absolute(view_dir);
    }
    if (const auto why = io::cannot_create_in(view_dir); !why.empty()) throw InputError("--sf-view", "cannot write in '" + view_dir + "': " + why);
    view_dir = fs::absolute(view_dir).string();
  }
  const std::string lib = library_path();
  TempDir tmp;
  const int status = run_with_library(cmd, lib, tmp.path, max_ops, view_dir);
  if (const int sig = interrupted_by; sig != 0) {
    std::cerr << "sf-replay capture: interrupted by signal " << sig << "; no trace written\n";
    return 128 + sig;  // (tmp's destructor removes what the ranks wrote)
  }
  if (WIFSIGNALED(status)) {
    std::cerr << "sf-replay capture: error: '" << quoted(cmd) << "' was killed by signal " << WTERMSIG(status) << "; no trace written\n";
    return 128 + WTERMSIG(status);
  }
  if (WEXITSTATUS(status) != 0) {
    std::cerr << "sf-replay capture: error: '" << quoted(cmd) << "' exited with status " << WEXITSTATUS(status) << "; no trace written\n";
    return WEXITSTATUS(status);
  }
  if (capture::no_rank_files(tmp.path))
    throw InputError("", "'" + quoted(cmd) +
                             "' created no PetscSF that the capture library saw (no rank reached PetscFinalize with it loaded: not a "
                             "PETSc application, or a launcher that does not pass LD_PRELOAD on); no trace written");
  capture::MergeInfo info;
  info.command = cmd;
  info.date = utc_now();
  trace::Trace t;
  try {
    t = capture::merge_rank_files(tmp.path, info);
  } catch (const InputError& e) {
    throw InputError("", std::string(e.what()) + "; no trace written");
  }
  t.name = name.empty() ? "capture-" + app_name(cmd) + "-p" + std::to_string(t.nranks) : name;
  const std::string text = trace::write_trace(t);
  trace::parse_trace(text, out);  // what is written validates (the reader `validate` runs)
  io::write_file_atomic(out, text);
  view_guard.keep = true;
  std::size_t nops = t.ops.size();
  std::cerr << "wrote " << out << " (" << t.name << ", " << t.nranks << " ranks, " << t.sfs.size() << " SFs, " << nops << " op records)\n";
  return 0;
}

}  // namespace sfr::cli
