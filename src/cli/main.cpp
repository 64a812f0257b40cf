// sf-replay: command-line front end. main only dispatches to the subcommands.
#include <algorithm>
#include <cstring>
#include <iostream>

#include "cli/command.hpp"
#include "cli/options.hpp"
#include "cli/signals.hpp"
#include "trace/provenance.hpp"
#ifdef HAVE_SFREPLAY_MPI
#include <filesystem>

#include "exec/mpi/runner.hpp"
#endif

namespace sfr::cli {

const std::vector<Command>& commands() {
  static const std::vector<Command> cmds = {
      {"validate", "check a trace against sf-trace v1 (exit 2 with a pointed message if invalid)", cmd_validate},
      {"inspect", "structure of every SF and op: sizes, degrees, messages, bytes, locality", cmd_inspect},
      {"run", "run the ops of a trace (serial reference executor with --reference) and dump results", cmd_run},
      {"check", "check a dump from any executor against the reference semantics", cmd_check},
      {"generate", "make a trace from a matrix, a mesh or a synthetic pattern", cmd_generate},
      {"simulate", "predict the time of a trace's ops on a machine model", cmd_simulate},
      {"compare", "rank backends by predicted time on a machine model", cmd_compare},
      {"calibrate", "measure this machine under mpirun and write a machine file for simulate", cmd_calibrate},
      {"validate-model", "under mpirun: run traces on every backend and compare with the simulator's predictions", cmd_validate_model},
      {"report", "write a Markdown report of a trace (and optionally its run and timing results)", cmd_report},
      {"dashboard", "build a static site of charts (per op, message size, model error, history) from result folders", cmd_dashboard},
      {"capture", "run an unchanged PETSc application with the capture library preloaded and write its SFs and ops as a trace", cmd_capture},
      {"scale", "regenerate a captured DMDA application's SFs at another rank count (the op stream as captured)", cmd_scale},
      {"backends", "the backend catalogue, or with --names the names of the backends with given traits (for scripts)", cmd_backends},
      {"regress", "compare timing results with a baseline (noise-aware); exit 3 when something got slower", cmd_regress},
  };
  return cmds;
}

}  // namespace sfr::cli

namespace {
void usage(std::ostream& o) {
  o << "usage: sf-replay COMMAND [ARGS...]   (sf-replay COMMAND --help for details; sf-replay --version)\n\ncommands:\n";
  std::size_t w = 0;
  for (const auto& c : sfr::cli::commands()) w = std::max(w, std::strlen(c.name));
  for (const auto& c : sfr::cli::commands()) o << "  " << c.name << std::string(w + 2 - std::strlen(c.name), ' ') << c.summary << "\n";
}
}  // namespace

#if defined(HAVE_SFREPLAY_MPI) && defined(SFR_PETSC_MODULE_BUILD)
// The petsc* backends' module: installed beside the binary's lib folder, else in the build tree.
std::string petsc_module() {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec && fs::exists(exe.parent_path() / SFR_PETSC_MODULE_REL, ec)) return (exe.parent_path() / SFR_PETSC_MODULE_REL).string();
  return fs::exists(SFR_PETSC_MODULE_BUILD, ec) ? SFR_PETSC_MODULE_BUILD : "";
}
#endif

int main(int argc, char** argv) {
  if (argc < 2) {
    usage(std::cerr);
    return 2;
  }
  const std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    usage(std::cout);
    return 0;
  }
  if (name == "--version") {  // CMake's project version and the source tree's commit at build time
    if (argc > 2) {
      std::cerr << "sf-replay: error: --version takes no arguments (got '" << argv[2] << "')\n";
      return 2;
    }
    std::cout << "sf-replay " << SFR_VERSION << " (commit " << sfr::trace::build_commit() << ")\n";
    return 0;
  }
  sfr::cli::remove_partial_output_on_signals();
#if defined(HAVE_SFREPLAY_MPI) && defined(SFR_PETSC_MODULE_BUILD)
  sfr::exec::mpi::set_petsc_module(petsc_module());  // the petsc* backends, loaded when one is asked for
#endif
  for (const auto& c : sfr::cli::commands())
    if (name == c.name) return sfr::cli::run_guarded(c.name, c.run, sfr::cli::Args(argv + 2, argv + argc));
  std::cerr << "sf-replay: error: unknown command '" << name << "'\n";
  usage(std::cerr);
  return 2;
}
