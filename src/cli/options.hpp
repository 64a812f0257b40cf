// Shared option-parsing helpers over Boost.Program_options.
#pragma once

#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "cli/command.hpp"
#include "core/backends.hpp"

namespace sfr::cli {

namespace po = boost::program_options;

// Parses `args` into `vm`; prints usage and returns true when --help was given. Throws
// po::error on bad options (reported by run_guarded with exit status 2).
bool parse_options(const char* cmd, const char* usage, const Args& args, po::options_description& opts,
                   const po::positional_options_description& pos, po::variables_map& vm);

// A seed: an unsigned 64-bit integer in decimal digits (no sign: "-1" does not wrap around).
std::uint64_t parse_seed(const std::string& option, const std::string& text);
// The value of a --seed option: its text goes through parse_seed into *target when the options
// are notified; a required seed has no default, an optional one defaults to *target's value.
po::typed_value<std::string>* seed_value(std::uint64_t* target, bool required = false);

// --backend, one syntax in every command: each value a comma list of names, the option
// repeatable (the lists add up), `all` standing for every backend of the catalogue
// (core::kBackends) that the command can run. A name given twice counts once.
struct BackendRules {
  // "" where the command can run this catalogue backend, else why not: a backend named is then
  // refused with that reason, one that `all` stands for is skipped and said once.
  std::string (*why_not)(const core::BackendInfo&) = nullptr;
  bool takes_auto = false;  // the chooser core::kAuto (run), never part of `all`
  bool gpu_paths = false;   // name:staged / name:aware (the simulator's forms for device buffers)
  bool one = false;         // the command takes one backend: a list, `all` or a repeat is an error
};
// One backend of the list, parsed: every layer below the command line takes it typed.
struct SelectedBackend {
  core::BackendChoice backend;
  bool aware = false;     // name:aware (BackendRules::gpu_paths): device buffers handed to MPI
  bool from_all = false;  // only `all` stands for it (a backend the trace refuses is skipped, not an error)
  std::string label() const { return std::string(backend.name()) + (aware ? ":aware" : ""); }
};
struct BackendList {
  std::vector<SelectedBackend> chosen;  // as given, `all` expanded in catalogue order; each once
  bool all = false;                     // `all` was given
  std::vector<std::pair<std::string, std::string>> skipped;  // what `all` left out for the command, and why
};
// Throws InputError("--backend", ...) for an empty element, an unknown name (one line listing the
// valid ones), a backend the command cannot run, or a list where one backend is expected. What
// `all` leaves out is in `skipped`: the command says it (say_skipped_backend) once its input is
// checked, so that a refusal stays one line.
BackendList parse_backends(const char* cmd, const std::vector<std::string>& values, const BackendRules& rules);
// The rule of the commands that simulate (simulate, compare, validate-model): "" for a backend
// the simulator models, else why it does not.
std::string why_not_simulated(const core::BackendInfo& b);
// One line on stderr, rank 0 only under mpirun: "sf-replay CMD: skipped backend B: WHY".
void say_skipped_backend(const char* cmd, const std::string& backend, const std::string& why);
// Each of list.skipped, so.
void say_skipped_backends(const char* cmd, const BackendList& list);
// The --backend option's value: repeatable, each value a comma list.
po::typed_value<std::vector<std::string>>* backend_value(std::vector<std::string>* target);

// --max-memory SIZE (parse_bytes) into *target when the options are notified; *target stays 0
// when it is not given, meaning the memory available now (core::memory_limit).
void add_max_memory_option(po::options_description& opts, std::uint64_t* target);

// --stall-timeout SECONDS (default 60; 0: never) into *target, checked (a number >= 0) when the
// options are notified: the commands that run star-forest ops under MPI end the job when a rank
// makes no progress for that long (exec/mpi/stall.hpp).
void add_stall_timeout_option(po::options_description& opts, double* target);

// Runs a subcommand body, turning exceptions into one-line messages and exit statuses.
int run_guarded(const char* cmd, int (*body)(const Args&), const Args& args);

// One line on stderr in one write: under mpirun, a line written piece by piece can be cut by
// another stream's output forwarded in between (seen: a warning split around rank 0's table).
void stderr_line(const std::string& line);
// "sf-replay CMD: warning: WHAT", as one line.
void warn(const char* cmd, const std::string& what);

}  // namespace sfr::cli
