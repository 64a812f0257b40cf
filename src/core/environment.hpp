// Every environment variable sf-replay reads or sets, in one table (kEnvironment): its name, who
// reads it and what it does. Code reads a variable only through env_value() and names one it sets
// through env_name(), so that this table is the whole list (src/cli/README.md "Environment variables" prints
// it, and a test keeps the two and the sources in step).
//
// Header-only: the capture library (src/capture/preload), which links nothing of sf-replay's
// layers, reads its variables through it too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

namespace sfr::core {

enum class Env {
  machine_file,
  emulate_device,
  emulate_device_mpi,
  failpoint,
  no_progress,
  ci,
  term,
  vega_dir,
  capture_dir,
  capture_max_ops,
  capture_view,
  ld_preload,
  tmpdir,
  xdg_config_home,
  home,
  ompi_mca_osc,
  cuda_mps_pipe_directory,
  ompi_comm_world_rank,
  pmix_rank,
  pmi_rank,
};

struct EnvVar {
  Env id;
  const char* name;
  const char* meaning;  // one sentence: who reads it and what it changes
};

// In Env order (env_name indexes by it; a static_assert in environment.cpp checks).
inline constexpr EnvVar kEnvironment[] = {
    {Env::machine_file, "SFR_MACHINE_FILE", "the machine file `auto` and simulate read when no --machine is given"},
    {Env::emulate_device, "SFR_EMULATE_DEVICE",
     "SEED (an unsigned integer): the whole process runs on the emulated device instead of a GPU"},
    {Env::emulate_device_mpi, "SFR_EMULATE_DEVICE_MPI", "`host`: the emulated device's MPI takes no device pointers (cuda-aware refuses)"},
    {Env::failpoint, "SFR_FAILPOINT", "test-only: NAME@RANK makes that rank fail (or stall) at the named point"},
    {Env::no_progress, "SFR_NO_PROGRESS", "set: no progress line, even on a terminal"},
    {Env::ci, "CI", "set: no progress line (CI logs)"},
    {Env::term, "TERM", "`dumb`: no progress line"},
    {Env::vega_dir, "SFR_VEGA_DIR", "the folder of vega's *.min.js that dashboard inlines, before the installed copy"},
    {Env::capture_dir, "SFR_CAPTURE_DIR", "set by capture for the capture library: the folder its ranks write into"},
    {Env::capture_max_ops, "SFR_CAPTURE_MAX_OPS", "set by capture for the capture library: --max-ops"},
    {Env::capture_view, "SFR_CAPTURE_VIEW", "set by capture for the capture library: where -sf_view's text is kept (unset: not kept)"},
    {Env::ld_preload, "LD_PRELOAD", "capture puts the capture library in front of the application's own"},
    {Env::tmpdir, "TMPDIR", "where capture makes its temporary folder (/tmp when unset); every node must see it"},
    {Env::xdg_config_home, "XDG_CONFIG_HOME", "the machine file's default folder: $XDG_CONFIG_HOME/sf-replay"},
    {Env::home, "HOME", "the machine file's default folder without XDG_CONFIG_HOME: $HOME/.config/sf-replay"},
    {Env::ompi_mca_osc, "OMPI_MCA_osc",
     "Open MPI's one-sided components: set, kept as the user's choice; unset, run sets it to the configured exclusions less pt2pt (the window backend across TCP nodes needs it)"},
    {Env::cuda_mps_pipe_directory, "CUDA_MPS_PIPE_DIRECTORY", "where run looks for the CUDA MPS daemon (/tmp/nvidia-mps when unset)"},
    {Env::ompi_comm_world_rank, "OMPI_COMM_WORLD_RANK", "the launcher's rank of this process (Open MPI); read first"},
    {Env::pmix_rank, "PMIX_RANK", "the launcher's rank of this process (PMIx), when OMPI_COMM_WORLD_RANK is unset"},
    {Env::pmi_rank, "PMI_RANK", "the launcher's rank of this process (PMI: MPICH, Slurm), when neither above is set"},
};

constexpr const char* env_name(Env v) { return kEnvironment[static_cast<std::size_t>(v)].name; }

// The variable's value as set (possibly empty); nullptr when unset. The one place sf-replay calls
// getenv.
inline const char* env_value(Env v) { return std::getenv(env_name(v)); }

// The value where it is set and not empty; nullptr otherwise (a default applies).
inline const char* env_nonempty(Env v) {
  const char* s = env_value(v);
  return s && *s ? s : nullptr;
}

// The launcher's announcement of this process's rank: the first of OMPI_COMM_WORLD_RANK,
// PMIX_RANK and PMI_RANK that is set, with the variable's name and its text; nullopt without a
// launcher.
struct LauncherRank {
  const char* variable;
  std::string text;
  long rank;  // the text as a number (0 where it is none)
};

inline std::optional<LauncherRank> launcher_rank() {
  for (const Env v : {Env::ompi_comm_world_rank, Env::pmix_rank, Env::pmi_rank})
    if (const char* s = env_value(v)) return LauncherRank{env_name(v), s, std::strtol(s, nullptr, 10)};
  return std::nullopt;
}

// SFR_EMULATE_DEVICE's seed; nullopt when unset or empty; InputError naming the variable when it
// is not an unsigned integer (defined in environment.cpp).
std::optional<std::uint64_t> emulated_device_seed();

}  // namespace sfr::core
