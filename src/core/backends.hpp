// The executor's backends, one table: names, what each does, whether it uses nodes and whether it
// runs every trace. `run --backend all` runs them in this order; `--backend list` prints it.
#pragma once

#include <string_view>

namespace sfr::core {

struct BackendInfo {
  const char* name;
  bool node_aware;  // routes through nodes (the trace's machine.ranks_per_node or --ranks-per-node)
  bool any_graph;   // runs every trace (collective runs pattern graphs only)
  const char* what;
  bool gpu = false;  // the CUDA executor: needs a CUDA build and a GPU; honours memtype device
};

inline constexpr BackendInfo kBackends[] = {
    {"basic", false, true, "persistent point-to-point, one message per peer (PetscSF's default)"},
    {"neighbor", false, true, "MPI-3 neighborhood collectives (persistent where the MPI has them)"},
    {"window", false, true, "one-sided: MPI_Get / MPI_Accumulate in fence epochs, fetch_and_op under locks"},
    {"alltoallv", false, true, "MPI_Ialltoallv over the whole communicator"},
    {"collective", false, false, "MPI collectives (allgather, gather, scatter, alltoall) for pattern graphs; refuses other graphs"},
    {"shm", false, true,
     "on-node peers through one MPI-3 shared-memory window per link (pack into my segment, unpack from the sender's), off-node "
     "peers as basic"},
    {"3step", true, true,
     "node-aware: gather on the node, one message per node pair, redistribute on the receiving node (on-node steps through shm)"},
    {"2step", true, true, "node-aware: one message per (rank, node), forwarded by the paired rank of the receiving node"},
    {"split-md", true, true, "node-aware: a node's inter-node traffic in chunks of <= 8 KiB spread over all its ranks"},
    {"split-dd", true, true, "as split-md on host buffers (the two differ only in how device buffers are staged)"},
    {"cuda-staged", false, true,
     "CUDA: pack on the GPU, device -> pinned host per peer (each send leaves when its copy is done), host MPI, host -> device as "
     "each message lands, unpack on the GPU",
     true},
    {"cuda-aware", false, true, "CUDA: device buffers handed to MPI (needs an MPI that reports CUDA support at run time)", true},
    {"cuda-ipc", false, true,
     "CUDA: ranks of one node write into each other's device receive buffers through CUDA IPC (no host round trip); one node only", true},
};

// The point-to-point backends the simulator models with calibrated executor costs, in order of
// preference on ties: what validate-model compares by default, `--backend auto` chooses from and
// calibrate measures the executor's own cost on.
inline constexpr const char* kModelledBackends[] = {"basic", "neighbor", "window", "alltoallv"};

inline const BackendInfo* find_backend(std::string_view name) {
  for (const auto& b : kBackends)
    if (name == b.name) return &b;
  return nullptr;
}

}  // namespace sfr::core
