// The backend catalogue, one table: every backend's name, what it does, what it needs and which
// commands take it. `run --backend all` runs them in this order (but for PETSc's own, named apart), `--backend list` prints it, the
// simulator's `all` is its `simulated` rows, `--backend auto` chooses among its `auto_candidate`
// rows and README.md's backend table lists every name (tests/cli checks both). Commands read the
// table through cli::parse_backends (src/cli/options.hpp); nothing else lists backends.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace sfr::core {

struct BackendInfo {
  const char* name;
  const char* what;
  // What it needs.
  bool nodes = false;          // uses the placement's nodes (the trace's machine.ranks_per_node or --ranks-per-node)
  bool node_aware = false;     // routes inter-node traffic through nodes (the node-aware study's strategies; implies nodes)
  bool shared_memory = false;  // its on-node path is memory shared by ranks of a node (elsewhere it falls back or refuses)
  bool gpu = false;            // the CUDA executor: needs a CUDA build and a GPU; honours memtype device
  bool pattern_only = false;   // runs pattern SFs only (allgather, gather, alltoall); refuses other graphs
  // Which commands take it.
  bool simulated = false;       // the simulator models it (simulate, compare, validate-model)
  bool auto_candidate = false;  // `--backend auto` may choose it (the node-aware ones only on more than one node)
  bool calibrated = false;      // calibrate measures the executor's own per-call cost on it (kCalibratedBackends)
  // PETSc.
  bool petsc = false;              // libpetsc's own PetscSF runs it (built where PETSc is found; the user's baseline)
  const char* petsc_type = nullptr;  // the -sf_type that gives this transport in PETSc 3.18; nullptr: PETSc has none
};

inline constexpr BackendInfo kBackends[] = {
    {.name = "basic",
     .what = "persistent point-to-point, one message per peer (PetscSF's default)",
     .simulated = true,
     .auto_candidate = true,
     .calibrated = true,
     .petsc_type = "basic"},
    {.name = "neighbor",
     .what = "MPI-3 neighborhood collectives (persistent where the MPI has them)",
     .simulated = true,
     .auto_candidate = true,
     .calibrated = true,
     .petsc_type = "neighbor"},
    {.name = "window",
     .what = "one-sided: MPI_Get / MPI_Accumulate in fence epochs, fetch_and_op under locks",
     .simulated = true,
     .auto_candidate = true,
     .calibrated = true,
     .petsc_type = "window"},
    {.name = "alltoallv",
     .what = "MPI_Ialltoallv over the whole communicator",
     .simulated = true,
     .auto_candidate = true,
     .calibrated = true},
    {.name = "collective",
     .what = "MPI collectives (allgather, gather, scatter, alltoall) for pattern graphs; refuses other graphs",
     .pattern_only = true},
    {.name = "shm",
     .what = "on-node peers through one MPI-3 shared-memory window per link (pack into my segment, unpack from the sender's), off-node "
             "peers as basic",
     .nodes = true,
     .shared_memory = true,
     .simulated = true,
     .auto_candidate = true,
     .calibrated = true},
    {.name = "3step",
     .what = "node-aware: gather on the node, one message per node pair, redistribute on the receiving node (on-node steps through shm)",
     .nodes = true,
     .node_aware = true,
     .simulated = true,
     .auto_candidate = true,
     .calibrated = true},
    {.name = "2step",
     .what = "node-aware: one message per (rank, node), forwarded by the paired rank of the receiving node",
     .nodes = true,
     .node_aware = true,
     .simulated = true,
     .auto_candidate = true,
     .calibrated = true},
    {.name = "split-md",
     .what = "node-aware: a node's inter-node traffic in chunks of <= the machine's split.message_cap spread over all its ranks",
     .nodes = true,
     .node_aware = true,
     .simulated = true,
     .auto_candidate = true,
     .calibrated = true},
    // Not a candidate of auto: on host buffers it is split-md's transport, so it could only tie.
    {.name = "split-dd",
     .what = "as split-md on host buffers (the two differ only in how device buffers are staged)",
     .nodes = true,
     .node_aware = true,
     .simulated = true},
    // The simulator models device buffers as the :staged / :aware forms of its own backends, not
    // the CUDA executor's transports: these three are run only.
    {.name = "cuda-staged",
     .what = "CUDA: pack on the GPU, device -> pinned host per peer (each send leaves when its copy is done), host MPI, host -> device as "
             "each message lands, unpack on the GPU",
     .gpu = true},
    {.name = "cuda-aware", .what = "CUDA: device buffers handed to MPI (needs an MPI that reports CUDA support at run time)", .gpu = true},
    {.name = "cuda-ipc",
     .what = "CUDA: ranks of one node write into each other's device receive buffers through CUDA IPC (no host round trip); one node only",
     .shared_memory = true,
     .gpu = true},
    // PETSc's own PetscSF on the trace's graphs, in the same run and timing document: the baseline.
    {.name = "petsc", .what = "PETSc's own PetscSF, its default type (-sf_type basic)", .petsc = true, .petsc_type = "basic"},
    {.name = "petsc-neighbor", .what = "PETSc's own PetscSF, -sf_type neighbor", .petsc = true, .petsc_type = "neighbor"},
    {.name = "petsc-window", .what = "PETSc's own PetscSF, -sf_type window", .petsc = true, .petsc_type = "window"},
};

inline constexpr const BackendInfo* find_backend(std::string_view name) {
  for (const auto& b : kBackends)
    if (name == b.name) return &b;
  return nullptr;
}

namespace detail {
inline constexpr std::size_t count_calibrated() {
  std::size_t n = 0;
  for (const auto& b : kBackends) n += b.calibrated ? 1 : 0;
  return n;
}
}  // namespace detail

// The backends calibrate times the executor on (its rings and fans), in catalogue order: the
// `calibrated` rows. A named subset because the machine file keeps its executor costs per backend
// and CalibrationData an array of that size; the simulator charges split-dd split-md's costs
// (the same transport on host buffers) and no other backend is simulated.
inline constexpr auto kCalibratedBackends = [] {
  std::array<const char*, detail::count_calibrated()> v{};
  std::size_t k = 0;
  for (const auto& b : kBackends)
    if (b.calibrated) v[k++] = b.name;
  return v;
}();

}  // namespace sfr::core
