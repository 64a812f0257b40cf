// Strategies: how each backend turns the per-rank peer lists (core::build_rank_lists, the plan
// the executor runs) into simulator steps. Shared pieces (flows from a plan, packing and copy
// costs, merging messages) live once here; each backend only decides who sends what to whom.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "core/backends.hpp"
#include "core/peer_lists.hpp"
#include "core/tier.hpp"
#include "plan/rounds.hpp"
#include "sim/engine.hpp"

namespace sfr::sim {

// A simulated backend and its GPU path: a row of core::kBackends that is `simulated`, staged
// through the host or device-aware.
struct BackendVariant {
  core::BackendId kind = core::kDefaultBackend;
  bool aware = false;  // device-aware (GPU buffers handed to MPI) instead of staged through the host
  std::string name() const;
  bool operator==(const BackendVariant&) const = default;
};
// Every simulated backend of the catalogue (core::kBackends), in its order; each one's
// device-aware variant after it only when `with_aware`.
std::vector<BackendVariant> all_backends(bool with_aware);

using core::RankLayout;

// One direction of one op: who sends how many values to whom, taken from the rank lists.
struct Flow {
  std::int32_t src, dst;
  std::int64_t count;                // values
  std::span<const core::Index> idx;  // sender-side indices (root indices when dedupable)
};
struct Traffic {
  std::int64_t value_bytes = 0;  // bytes of one vertex value (unit size * bs)
  bool dedupable = false;        // root -> leaf by index: values sent twice to one node are duplicates
  const std::vector<core::RankLists>* rank_lists = nullptr;  // what the flows come from (the plan layer's input)
  core::Direction dir = core::Direction::root_to_leaf;
  core::Motion motion = core::Motion::bcast;  // the op's (window's calls depend on it: plan::one_sided_calls)
  bool send_device = false, recv_device = false;
  // Whether a backend that hands contiguous blocks to MPI as they are (basic, shm's off-node
  // peers: exec::mpi::Backend::direct_capable) may do so here for a sender's list (not for
  // fetch-and-op, not with device buffers) and a receiver's (a bcast with replace only).
  bool send_direct = false, recv_direct = false;
  std::vector<Flow> flows;               // grouped by src, dst ascending
  std::vector<std::int64_t> self_count;  // values copied locally per rank
};
// root_to_leaf: bcast/scatter direction (root side sends); else reduce/gather direction.
// dedupable: the values are by index (not fetch_and_op's return of fetched values).
Traffic traffic_from_plans(const std::vector<core::RankLists>& rank_lists, bool root_to_leaf, std::int64_t value_bytes, bool send_device,
                           bool recv_device, bool dedupable);

struct Schedule {
  int endpoints = 0;  // trace ranks first, then split helper processes
  std::vector<std::int32_t> node, socket;
  std::vector<Step> steps;
};
// Appends the steps of one traffic round under `b` to `s` (whose endpoints must be set up by
// make_schedule). Throws InputError for split:aware (no device-aware form).
// One MPI_Win_fence on `lay`: a dissemination barrier (ceil(log2 P) rounds of the slowest tier's
// short-message latency) plus the machine's fence_overhead.
Time fence_cost(const MachineModel& m, const RankLayout& lay, bool device);
Schedule make_schedule(const RankLayout& lay, const MachineModel& m, BackendVariant b);
void add_round(Schedule& s, const RankLayout& lay, const MachineModel& m, BackendVariant b, const Traffic& t);

}  // namespace sfr::sim
