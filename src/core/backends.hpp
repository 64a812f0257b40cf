// The backend catalogue, one table: every backend's name, what it does, what it needs and which
// commands take it. `run --backend all` runs them in this order (but for PETSc's own, named apart), `--backend list` prints it, the
// simulator's `all` is its `simulated` rows, `--backend auto` chooses among its `auto_candidate`
// rows and src/exec/mpi/README.md's backend table lists every name (tests/cli checks both). Commands read the
// table through cli::parse_backends (src/cli/options.hpp); every other layer reads a row's `id`
// (the executor's factory, the CUDA executor's transports, the simulator's strategies) and its
// `transport` (the plan's rounds): the names are spelled here only.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace sfr::core {

// Which backend a row is (one id per row of kBackends).
enum class BackendId : std::uint8_t {
  basic, neighbor, window, alltoallv, collective, shm, three_step, two_step, split_md, split_dd,
  cuda_staged, cuda_aware, cuda_ipc, petsc, petsc_neighbor, petsc_window
};

// How a host backend's messages travel, what plan/ builds its rounds from: one message per peer
// (direct), one-sided gets and accumulates (one_sided), a shared segment on a node (shm), or the
// node-aware routes through other ranks (three_step, two_step, split). none: the backend has no
// plan of sf-replay's (the CUDA executor's transports, PETSc's own).
enum class Transport : std::uint8_t { none, direct, one_sided, shm, three_step, two_step, split };
// The transport's name as rounds and inspect print it ("direct", "window", "shm", "3step", ...).
inline constexpr const char* transport_name(Transport t) {
  constexpr const char* names[] = {"none", "direct", "window", "shm", "3step", "2step", "split"};
  return names[static_cast<int>(t)];
}

struct BackendInfo {
  const char* name;
  BackendId id;
  const char* what;
  Transport transport = Transport::none;
  // What it needs.
  bool nodes = false;          // uses the placement's nodes (the trace's machine.ranks_per_node or --ranks-per-node)
  bool node_aware = false;     // routes inter-node traffic through nodes (the node-aware study's strategies; implies nodes)
  bool shared_memory = false;  // its on-node path is memory shared by ranks of a node (elsewhere it falls back or refuses)
  bool gpu = false;            // the CUDA executor: needs a CUDA build and a GPU; honours memtype device
  bool aware_mpi = false;      // hands device pointers to MPI: needs an MPI library that takes them (refused elsewhere)
  bool pattern_only = false;   // runs pattern SFs only (allgather, gather, alltoall); refuses other graphs
  // Whether the rank's self part (its leaves on its own roots) runs after the sends have started,
  // while they fly (PetscSF's order), rather than before: the executor's order on host data, and
  // the simulator's overlap. Not where the backend writes the destination during the op itself
  // (window's accumulates into a copy of the roots that end copies back; collective's calls) or
  // relays the traffic in steps (the node-aware strategies).
  bool self_while_sending = false;
  // How the simulator charges it (sim/strategies.cpp, sim/simulate.cpp).
  bool host_buffers_only = false;    // moves host buffers only: no `:aware` form (shm, split-*: they stage device data themselves)
  bool collective_overhead = false;  // each call is one MPI collective (neighbor, alltoallv): it pays the machine's collective_overhead
  // Its messages go straight from / into the user's buffers where a peer's list is one contiguous
  // block, with no pack or unpack (basic; shm's off-node peers, which go as basic's).
  bool user_buffers = false;
  // One call exchanges with every rank of the communicator, an empty message where a rank is no
  // peer (MPI_Alltoallv): each such pair costs a short message's latency.
  bool every_pair = false;
  // Its index lists scatter value by value at every message size (shm copies each value into or
  // out of its segment), not only past the machine's scatter_beyond (MPI's eager limit).
  bool scatters_every_size = false;
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
     .id = BackendId::basic,
     .what = "persistent point-to-point, one message per peer (PetscSF's default)",
     .transport = Transport::direct,
     .self_while_sending = true,
     .user_buffers = true,
     .simulated = true,
     .auto_candidate = true,
     .calibrated = true,
     .petsc_type = "basic"},
    {.name = "neighbor",
     .id = BackendId::neighbor,
     .what = "MPI-3 neighborhood collectives (persistent where the MPI has them)",
     .transport = Transport::direct,
     .self_while_sending = true,
     .collective_overhead = true,
     .simulated = true,
     .auto_candidate = true,
     .calibrated = true,
     .petsc_type = "neighbor"},
    {.name = "window",
     .id = BackendId::window,
     .what = "one-sided: MPI_Get / MPI_Accumulate in fence epochs, fetch_and_op under locks",
     .transport = Transport::one_sided,
     .simulated = true,
     .auto_candidate = true,
     .calibrated = true,
     .petsc_type = "window"},
    {.name = "alltoallv",
     .id = BackendId::alltoallv,
     .what = "MPI_Ialltoallv over the whole communicator",
     .transport = Transport::direct,
     .self_while_sending = true,
     .collective_overhead = true,
     .every_pair = true,
     .simulated = true,
     .auto_candidate = true,
     .calibrated = true},
    {.name = "collective",
     .id = BackendId::collective,
     .what = "MPI collectives (allgather, gather, scatter, alltoall) for pattern graphs; refuses other graphs",
     .transport = Transport::direct,
     .pattern_only = true},
    {.name = "shm",
     .id = BackendId::shm,
     .what = "on-node peers through one MPI-3 shared-memory window per link (pack into my segment, unpack from the sender's), off-node "
             "peers and on-node messages of >= 64 KiB from one contiguous run as basic",
     .transport = Transport::shm,
     .nodes = true,
     .shared_memory = true,
     .self_while_sending = true,
     .host_buffers_only = true,
     .scatters_every_size = true,
     .simulated = true,
     .auto_candidate = true,
     .calibrated = true},
    {.name = "3step",
     .id = BackendId::three_step,
     .what = "node-aware: gather on the node, one message per node pair, redistribute on the receiving node (on-node steps through shm)",
     .transport = Transport::three_step,
     .nodes = true,
     .node_aware = true,
     .simulated = true,
     .auto_candidate = true,
     .calibrated = true},
    {.name = "2step",
     .id = BackendId::two_step,
     .what = "node-aware: one message per (rank, node), forwarded by the paired rank of the receiving node",
     .transport = Transport::two_step,
     .nodes = true,
     .node_aware = true,
     .simulated = true,
     .auto_candidate = true,
     .calibrated = true},
    {.name = "split-md",
     .id = BackendId::split_md,
     .what = "node-aware: a node's inter-node traffic in chunks of <= the machine's split.message_cap spread over all its ranks",
     .transport = Transport::split,
     .nodes = true,
     .node_aware = true,
     .host_buffers_only = true,
     .simulated = true,
     .auto_candidate = true,
     .calibrated = true},
    // Not a candidate of auto: on host buffers it is split-md's transport, so it could only tie.
    {.name = "split-dd",
     .id = BackendId::split_dd,
     .what = "as split-md on host buffers (the two differ only in how device buffers are staged)",
     .transport = Transport::split,
     .nodes = true,
     .node_aware = true,
     .host_buffers_only = true,
     .simulated = true},
    // The simulator models device buffers as the :staged / :aware forms of its own backends, not
    // the CUDA executor's transports: these three are run only.
    {.name = "cuda-staged",
     .id = BackendId::cuda_staged,
     .what = "CUDA: pack on the GPU, device -> pinned host per peer (each send leaves when its copy is done), host MPI, host -> device as "
             "each message lands, unpack on the GPU",
     .gpu = true},
    {.name = "cuda-aware",
     .id = BackendId::cuda_aware,
     .what = "CUDA: device buffers handed to MPI (needs an MPI that reports CUDA support at run time)", .gpu = true, .aware_mpi = true},
    {.name = "cuda-ipc",
     .id = BackendId::cuda_ipc,
     .what = "CUDA: ranks of one node write into each other's device receive buffers through CUDA IPC (no host round trip); one node only",
     .shared_memory = true,
     .gpu = true},
    // PETSc's own PetscSF on the trace's graphs, in the same run and timing document: the baseline.
    {.name = "petsc",
     .id = BackendId::petsc,
     .what = "PETSc's own PetscSF, its default type (-sf_type basic)", .petsc = true, .petsc_type = "basic"},
    {.name = "petsc-neighbor",
     .id = BackendId::petsc_neighbor,
     .what = "PETSc's own PetscSF, -sf_type neighbor", .petsc = true, .petsc_type = "neighbor"},
    {.name = "petsc-window",
     .id = BackendId::petsc_window,
     .what = "PETSc's own PetscSF, -sf_type window", .petsc = true, .petsc_type = "window"},
};

// PetscSF's default: what run and inspect take without --backend.
inline constexpr BackendId kDefaultBackend = BackendId::basic;

// `--backend auto` is no backend but a chooser, a row of its own kind: per SF and motion it runs
// the `auto_candidate` row the simulator predicts fastest (sim/auto_backend.hpp); without a
// choice (an op it has none for), basic. Its timing results are labelled "auto:CHOSEN".
struct ChooserInfo {
  const char* name;
  const char* what;        // followed by the candidates where it is printed
  BackendId without_choice;  // what an op runs on that the choice names no backend for
};
inline constexpr ChooserInfo kAuto{"auto", "per SF and motion (bcasts, reduces), the backend the simulator predicts fastest among",
                                   kDefaultBackend};

inline constexpr const BackendInfo* find_backend(std::string_view name) {
  for (const auto& b : kBackends)
    if (name == b.name) return &b;
  return nullptr;
}

// The row of `id` (every id has one: checked below).
inline constexpr const BackendInfo& backend(BackendId id) {
  for (const auto& b : kBackends)
    if (b.id == id) return b;
  return kBackends[0];
}
inline constexpr const char* backend_name(BackendId id) { return backend(id).name; }

// What a command runs a trace on, parsed once from --backend (cli::parse_backends) and typed from
// there on: a row of kBackends, or the chooser kAuto.
struct BackendChoice {
  bool automatic = false;
  BackendId id = BackendId::basic;  // the row (not read where automatic)
  static constexpr BackendChoice chooser() { return {.automatic = true}; }
  static constexpr BackendChoice of(BackendId b) { return {.id = b}; }
  constexpr const char* name() const { return automatic ? kAuto.name : backend_name(id); }
  // The row chosen; null for auto (its rows are chosen per SF and motion as the run goes).
  constexpr const BackendInfo* row() const { return automatic ? nullptr : &backend(id); }
  bool operator==(const BackendChoice&) const = default;
};
// Whether an executor's table `rows` (each row with an `id`) has exactly one row for every
// catalogue row that `runs` says the executor runs, and none for the others: the executors'
// factory tables (exec/mpi/registry.cpp, exec/cuda/device_sf.cpp) check it at compile time.
template <class Rows, class Runs>
constexpr bool one_row_each(const Rows& rows, Runs runs) {
  for (const auto& b : kBackends) {
    int n = 0;
    for (const auto& r : rows) n += r.id == b.id ? 1 : 0;
    if (n != (runs(b) ? 1 : 0)) return false;
  }
  return true;
}

// The choice a name gives (a catalogue row's name or kAuto's); none for an unknown name.
inline constexpr std::optional<BackendChoice> find_choice(std::string_view name) {
  if (name == kAuto.name) return BackendChoice::chooser();
  if (const BackendInfo* b = find_backend(name)) return BackendChoice::of(b->id);
  return std::nullopt;
}

namespace detail {
inline constexpr bool one_row_per_id() {
  for (std::size_t i = 0; i < std::size(kBackends); ++i)
    for (std::size_t j = 0; j < std::size(kBackends); ++j)
      if ((kBackends[i].id == kBackends[j].id) != (i == j)) return false;
  return std::size(kBackends) == static_cast<std::size_t>(BackendId::petsc_window) + 1;
}
static_assert(one_row_per_id(), "every BackendId has exactly one row of kBackends");
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
