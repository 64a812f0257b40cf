#include "cli/options.hpp"

#ifdef HAVE_SFREPLAY_MPI
#include "cli/mpi_session.hpp"
#endif

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iterator>
#include <new>
#include <sstream>
#include <thread>

#include "core/backends.hpp"
#include "core/budget.hpp"
#include "core/environment.hpp"
#include "core/error.hpp"
#include "core/failpoint.hpp"

namespace sfr::cli {

bool parse_options(const char* cmd, const char* usage, const Args& args, po::options_description& opts,
                   const po::positional_options_description& pos, po::variables_map& vm) {
  opts.add_options()("help,h", "show this help");
  po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
  if (vm.count("help")) {
    std::cout << "usage: sf-replay " << cmd << " " << usage << "\n\n" << opts << "\n";
    return true;
  }
  try {
    po::notify(vm);
  } catch (const po::required_option& e) {
    // A missing positional argument is named as the user knows it, not as the option behind it.
    std::string name = e.get_option_name();
    name.erase(0, name.find_first_not_of('-'));
    for (unsigned k = 0; k < pos.max_total_count() && k < 16; ++k)
      if (pos.name_for_position(k) == name) throw InputError("", "no " + name + " given (usage: sf-replay " + cmd + " " + usage + ")");
    throw;
  }
  return false;
}

namespace {
bool quiet_mpi_rank();
}  // namespace

po::typed_value<std::vector<std::string>>* backend_value(std::vector<std::string>* target) {
  return po::value(target)->composing();
}

void say_skipped_backend(const char* cmd, const std::string& backend, const std::string& why) {
  if (!quiet_mpi_rank()) stderr_line(std::string("sf-replay ") + cmd + ": skipped backend " + backend + ": " + why);
}

std::string why_not_simulated(const core::BackendInfo& b) {
  if (b.simulated) return "";
  if (b.gpu) return "the simulator does not model the CUDA executor (device buffers are the :staged / :aware forms of the others)";
  if (b.pattern_only) return "the simulator does not model MPI collectives (sf-replay run times it)";
  if (b.petsc) return "PETSc's own PetscSF is run only (the simulator's " + std::string(b.petsc_type) + " is its transport)";
  return "the simulator does not model it";
}

void say_skipped_backends(const char* cmd, const BackendList& list) {
  for (const auto& [b, why] : list.skipped) say_skipped_backend(cmd, b, why);
}

namespace {

// The names of `values`' comma lists, each checked non-empty.
std::vector<std::string> split_backend_lists(const std::vector<std::string>& values) {
  std::vector<std::string> given;
  for (const auto& value : values) {
    // getline drops a trailing empty element: "basic," is caught by its last character.
    std::stringstream ss(value);
    for (std::string b; std::getline(ss, b, ',');) {
      if (b.empty()) throw InputError("--backend", "an empty name in the list '" + value + "'");
      given.push_back(b);
    }
    if (value.empty() || value.back() == ',') throw InputError("--backend", "an empty name in the list '" + value + "'");
  }
  return given;
}

// What the command takes, for the line that refuses an unknown name.
std::string valid_backend_names(const BackendRules& rules) {
  std::string l;
  for (const auto& b : core::kBackends)
    if (!rules.why_not || rules.why_not(b).empty()) l += (l.empty() ? "" : ", ") + std::string(b.name);
  if (rules.takes_auto) l += std::string(", ") + core::kAuto.name;
  if (!rules.one) l += ", all (every one of sf-replay's own)";
  if (rules.gpu_paths) l += "; optionally :staged or :aware";
  return l;
}

// One name as given ("basic", "auto", with gpu_paths "basic:aware"), checked against the rules.
SelectedBackend parse_backend_name(const std::string& b, const BackendRules& rules) {
  const auto colon = rules.gpu_paths ? b.find(':') : std::string::npos;
  const std::string base = b.substr(0, colon);
  const auto choice = core::find_choice(base);
  if (!choice || (choice->automatic && !rules.takes_auto))
    throw InputError("--backend", "unknown backend '" + base + "' (expected " + valid_backend_names(rules) + ")");
  SelectedBackend out{.backend = *choice};
  if (choice->automatic) return out;
  const core::BackendInfo& info = core::backend(choice->id);
  if (rules.why_not)
    if (const std::string why = rules.why_not(info); !why.empty()) throw InputError("--backend", base + ": " + why);
  if (colon == std::string::npos) return out;
  const std::string path = b.substr(colon + 1);
  if (path != "staged" && path != "aware") throw InputError("--backend", "unknown GPU path '" + path + "' (expected staged or aware)");
  out.aware = path == "aware";
  if (out.aware && info.host_buffers_only) throw InputError("--backend", base + " has no device-aware form (it moves host buffers only)");
  return out;
}

// Adds `b` unless the list has it (then a name given counts over `all` standing for it).
void add_backend(BackendList& list, const SelectedBackend& b) {
  const auto same = [&](const SelectedBackend& x) { return x.backend == b.backend && x.aware == b.aware; };
  const auto it = std::find_if(list.chosen.begin(), list.chosen.end(), same);
  if (it == list.chosen.end())
    list.chosen.push_back(b);
  else if (!b.from_all)
    it->from_all = false;  // named too: refused, not skipped, where it cannot run
}

}  // namespace

BackendList parse_backends(const char* cmd, const std::vector<std::string>& values, const BackendRules& rules) {
  const std::vector<std::string> given = split_backend_lists(values);
  if (rules.one && given.size() > 1)
    throw InputError("--backend", std::string(cmd) + " takes one backend, got the list '" + [&] {
      std::string l;
      for (const auto& b : given) l += (l.empty() ? "" : ",") + b;
      return l;
    }() + "' (give one name)");
  BackendList named;
  bool all = false;
  for (const auto& b : given) {
    if (b == "all") {
      if (rules.one) throw InputError("--backend", std::string(cmd) + " takes one backend, not all (give one name)");
      all = true;
      continue;
    }
    add_backend(named, parse_backend_name(b, rules));
  }
  if (!all) return named;
  // `all` goes first in catalogue order, then the names given beyond it (auto): one order
  // whatever the position of `all` in the list.
  BackendList out;
  out.all = true;
  for (const auto& info : core::kBackends) {
    if (info.petsc) continue;  // sf-replay's own backends; PETSc's (the baseline, loading libpetsc) are asked for by name
    const std::string why = rules.why_not ? rules.why_not(info) : "";
    if (why.empty())
      add_backend(out, {.backend = core::BackendChoice::of(info.id), .from_all = true});
    else
      out.skipped.emplace_back(info.name, why);
  }
  for (const auto& b : named.chosen) add_backend(out, b);
  return out;
}

std::uint64_t parse_seed(const std::string& option, const std::string& text) {
  const bool digits = !text.empty() && text.size() <= 20 && text.find_first_not_of("0123456789") == std::string::npos;
  if (digits && (text.size() < 20 || text <= "18446744073709551615")) return std::stoull(text);
  throw InputError(option, "expected an integer from 0 to 18446744073709551615, got '" + text + "'");
}

po::typed_value<std::string>* seed_value(std::uint64_t* target, bool required) {
  auto* v = po::value<std::string>()->notifier([target](const std::string& s) { *target = parse_seed("--seed", s); });
  return required ? v->required() : v->default_value(std::to_string(*target));
}

void add_max_memory_option(po::options_description& opts, std::uint64_t* target) {
  opts.add_options()("max-memory",
                     po::value<std::string>()->notifier([target](const std::string& s) { *target = core::parse_bytes("--max-memory", s); }),
                     "refuse, before building it, anything whose estimated memory exceeds this (e.g. 4G, 512M; default: the memory "
                     "available now)");
}

void add_stall_timeout_option(po::options_description& opts, double* target) {
  *target = 60;
  opts.add_options()("stall-timeout",
                     po::value<std::string>()->notifier([target](const std::string& s) {
                       char* end = nullptr;
                       const double v = std::strtod(s.c_str(), &end);
                       if (s.empty() || *end != '\0' || !(v >= 0) || v > 1e9)
                         throw InputError("--stall-timeout", "expected a number of seconds >= 0 (0: never), got '" + s + "'");
                       *target = v;
                     }),
                     "end the job (MPI_Abort, status 1, one line naming the op, the backend and the ranks waited for) when a rank makes no "
                     "progress for this many seconds: a peer that stopped answering, a cut link (default 60; 0: never)");
}

namespace {

// True in a process that mpirun started as a rank other than 0: every rank sees the same command
// line, so an error in it is printed by rank 0 alone.
bool quiet_mpi_rank() {
  const auto r = core::launcher_rank();
  return r && r->text != "0";
}

// Prints a command's one-line error. Another rank under mpirun first waits: mpirun aborts the job
// when a rank exits non-zero, so leaving at once could kill rank 0 before it has printed the
// same line. Rank 0's exit ends the wait (mpirun kills this rank); a rank still alive after it
// failed alone and prints its own line.
void report_error(const std::string& line) {
  if (quiet_mpi_rank()) std::this_thread::sleep_for(std::chrono::seconds(5));
  stderr_line(line);
}

}  // namespace

void stderr_line(const std::string& line) { std::cerr << (line + "\n") << std::flush; }

void warn(const char* cmd, const std::string& what) { stderr_line(std::string("sf-replay ") + cmd + ": warning: " + what); }

int run_guarded(const char* cmd, int (*body)(const Args&), const Args& args) {
  std::string kind = "error", what;
  int status = 1;
  try {
    core::check_fail_point_setting();
    return body(args);
  } catch (const InputError& e) {
    what = e.what();
    status = 2;
  } catch (const po::error& e) {
    what = InputError::one_line(e.what()) + " (see sf-replay " + cmd + " --help)";
    status = 2;
  } catch (const std::bad_alloc&) {
    what = "out of memory";
  } catch (const MpiError& e) {
    kind = "MPI error";
    what = e.what();
  } catch (const std::exception& e) {
    kind = "internal error";
    what = InputError::one_line(e.what());
  }
#ifdef HAVE_SFREPLAY_MPI
  // Under MPI the other ranks may be waiting for this one: the job ends here, every rank at once.
  if (in_mpi_job()) end_job(cmd, kind, what, status);
#endif
  const std::string line = std::string("sf-replay ") + cmd + ": " + kind + ": " + what;
  if (status == 2)
    report_error(line);
  else
    stderr_line(line);
  return status;
}

}  // namespace sfr::cli
