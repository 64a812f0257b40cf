// Runs the ops of a trace with the MPI executor on every rank of a communicator: conformance mode
// (one execution per op on the spec's data, gathered into an sf-dump on rank 0) and timing mode
// (warm-up + timed iterations; per iteration the maximum over ranks; min / median / max).
#pragma once

#include <mpi.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/backends.hpp"
#include "exec/conformance.hpp"
#include "exec/sf.hpp"
#include "io/json_strict.hpp"
#include "plan/rounds.hpp"
#include "trace/result_docs.hpp"
#include "trace/trace.hpp"

namespace sfr::exec::mpi {

struct OpTiming {
  std::size_t index = 0;
  std::string backend;
  long long bytes = 0;     // remote bytes moved per execution (all ranks)
  long long messages = 0;  // remote messages per execution (all ranks)
  double min_us = 0, median_us = 0, max_us = 0;
  // core::low_share_of the iterations (their 20th percentile): calibrate's and validate-model's
  // statistic (sim/README.md, "One statistic for fitting and judging").
  double low_us = 0;
  int ranks_per_node = 0;          // the nodes the run's rounds used (core::RankLayout)
  double mean_us = 0;              // over every timed iteration
  std::uint64_t iterations = 0;    // timed iterations
  // The timed iterations (max over ranks): every one, in order, up to core::kSampleCap; beyond,
  // a uniform sample of kSampleCap of them (samples_exact false: median and p20 are estimates).
  std::vector<double> samples_us;
  bool samples_exact = true;
  // Per call, the most over ranks: what the op asked of the device (exec/cuda/runtime.hpp), for
  // ops on a cuda-* backend or with data in device memory.
  std::optional<trace::DeviceWork> device;
};

// What this launch allows the backends, found once before they are checked (collective, every
// rank the same answer): whether windows can be made across its ranks (probed where `backends`
// holds window).
struct LaunchFacts {
  std::string window_refusal;  // "" where they can (launch.hpp)
};
LaunchFacts launch_facts(MPI_Comm comm, const std::vector<core::BackendChoice>& backends);

// The petsc* backends (core::BackendInfo::petsc): libpetsc's own PetscSF of the row's petsc_type,
// where the program links it (src/exec/petsc registers itself; without, those backends refuse).
struct PetscExecutor {
  std::unique_ptr<Sf> (*make)(MPI_Comm comm, const core::Graph& g, const std::string& type) = nullptr;
  std::string (*refuses)(const core::OpSpec& op, const std::string& type) = nullptr;  // "" where PETSc can run the op
};
// Where the module that provides it lives (src/exec/petsc: libsfr_petsc.so), loaded at the first
// petsc* backend; "" or a missing file: those backends refuse, saying this build has no PETSc.
void set_petsc_module(const std::string& path);

// Throws InputError (same on every rank) if `backend` cannot run some op of the trace, or cannot
// run in this launch (window: no window across its nodes).
void check_backend(const trace::BuiltTrace& t, core::BackendChoice backend, const LaunchFacts& facts);

// Backend "auto" runs each op on the backend `auto_choice` names for its SF and motion (how the
// op moves data: as a bcast, a reduce or a fetch-and-op; chosen by the caller, e.g. with the
// simulator: the CLI's --backend auto): an SF whose motions have different backends is set up on
// each. An op whose SF and motion it does not name, or no map, runs on basic. Timings then name
// the backend used, "auto:NAME".
using AutoChoice = std::map<std::pair<std::string, core::Motion>, core::BackendId>;  // (SF name, motion) -> backend

// Nodes of the node-aware backends: `ranks_per_node` consecutive ranks, or with 0 the trace's
// machine.ranks_per_node (without one: the ranks that share memory).
// Conformance: runs every op once and returns the sf-dump text (on rank 0; empty elsewhere).
// `split_cap`: the split strategies' chunk (bytes), from the machine description the CLI resolved.
std::string conformance_dump(MPI_Comm comm, const trace::BuiltTrace& t, core::BackendChoice backend, const AutoChoice* auto_choice = nullptr,
                             int ranks_per_node = 0, std::int64_t split_cap = plan::RouteParams{}.split_cap);

// Timing: `warmup` untimed and `iters` timed iterations of every op (each iteration runs the op
// `repeat` times with `overlap_us` of compute between begin and end). Results on every rank.
// bytes and messages of each result: the plan (plan::op_rounds) of the backend each SF ran on.
std::vector<OpTiming> time_ops(MPI_Comm comm, const trace::BuiltTrace& t, core::BackendChoice backend, int warmup, int iters,
                               const AutoChoice* auto_choice = nullptr, int ranks_per_node = 0,
                               std::int64_t split_cap = plan::RouteParams{}.split_cap);

// Where the cuda-* backends run: this rank's GPU and how the ranks of the run share GPUs.
struct GpuPlacement {
  std::string device;      // the GPU's name (rank 0's)
  int gpus = 0;            // distinct GPUs the run uses
  int ranks_per_gpu = 0;   // the most ranks sharing one GPU
  bool mps = false;        // the CUDA MPS daemon serves the GPUs (each rank sees its control socket; never for the emulated device)
  bool emulated = false;   // the emulated device (SFR_EMULATE_DEVICE)
  io::Json json() const;   // {"device", "gpus", "ranks_per_gpu", "mps", "emulated"}: timing provenance
};
// Collective: selects each rank's GPU (by its rank on the node) and describes the placement; the
// same result on every rank.
GpuPlacement gpu_placement(MPI_Comm comm);
// The warning a run prints once when ranks share a GPU without MPS (their CUDA contexts then
// time-slice the GPU: every device op pays milliseconds); "" when there is nothing to say.
std::string gpu_sharing_warning(const GpuPlacement& p);

// The line a run says once when ops of the trace put data in device memory and this process has no
// device (no GPU, no SFR_EMULATE_DEVICE): the host backends then run them in host memory. "" when
// there is nothing to say.
std::string device_memory_note(const trace::BuiltTrace& t);

// The MPI library and its version, e.g. "Open MPI v4.1.4" (result provenance).
std::string mpi_library();

// Every rank gets rank 0's `s`.
void bcast_string(MPI_Comm comm, std::string& s);
// Rank 0 receives every rank's string (in rank order); other ranks get an empty vector.
std::vector<std::string> gather_strings(MPI_Comm comm, const std::string& mine);
// Rank 0 receives every rank's arrays of one op (as raw bytes, in rank order), ready for the dump
// writer; other ranks get an empty result. Every rank passes the same names, units and bs.
exec::OpArrays gather_result(MPI_Comm comm, const exec::RankArrays& mine);

}  // namespace sfr::exec::mpi
