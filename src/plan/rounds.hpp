// The plan layer: what a backend or node-aware strategy sends for one op on one placement of ranks
// on nodes: rounds of messages (source, destination, bytes) and the values moved through shared
// memory instead. The executor runs these routes (src/exec/mpi/node_aware.cpp builds its buffers
// from node_groups), the simulator times the same messages (sim/strategies.cpp), `inspect
// --backend` prints them and `run --timing` reports their count: one source for all four.
//
// Transports:
//   direct     basic, neighbor, window, alltoallv, collective: one message per (sender, receiver)
//              pair of the rank lists (core::build_rank_lists), per direction of the op.
//   shm        on-node pairs (the placement's nodes) through shared memory: no message, the values
//              copied in and out of the sender's segment; off-node pairs, and on-node ones whose
//              values are a large contiguous run of the sender's (core/shm_route.hpp), as direct.
//   3step, 2step, split (split-md, split-dd): off-node traffic in groups (source rank, destination
//              node) relayed through aggregators A (source node) and B (destination node); on-node
//              pairs through shared memory. See node_groups.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/backends.hpp"
#include "core/op_spec.hpp"
#include "core/peer_lists.hpp"
#include "core/tier.hpp"

namespace sfr::plan {

using core::Index;

// Where ranks sit (only nodes matter to the rounds).
using core::RankLayout;

// direct: one message per (sender, receiver) pair (basic, neighbor, alltoallv, collective);
// one_sided: window's MPI calls (one_sided_calls); shm: on-node pairs as shared-memory copies;
// the node-aware strategies' relays. Each backend's is its row of core::kBackends.
using core::Transport;
// The transport whose rounds backend b's messages follow: its row's; direct for the backends with
// no plan of sf-replay's (the CUDA executor's transports, PETSc's own: one message per peer).
Transport transport_of(core::BackendId b);
bool node_aware(Transport t);

// Parameters the routes take from the machine description (sim/machine.hpp's message_cap).
struct RouteParams {
  std::int64_t split_cap = 8192;  // split: bytes per inter-node chunk (a group is never cut)
};

// One group: source rank s's traffic to the ranks of node L (the peers [p0, p1) of s's send
// list), routed s -> A (step 1, none when A = s) -> B (step 2) -> destinations (step 3).
//   3step  A = rank L of s's node, B = rank K of node L (K = s's node): one message per node pair
//   2step  A = s, B = the rank of node L with s's local index
//   split  per source node, the groups in (L, s) order cut into chunks of at most split_cap bytes
//          (undeduplicated; a group is never cut); chunk c from local rank n-1-c%n to c%nL of L
struct Group {
  int s = 0, L = 0;
  std::size_t p0 = 0, p1 = 0;
  int A = 0, B = 0;
};
std::vector<Group> node_groups(const std::vector<core::RankLists>& rank_lists, core::Direction d, const RankLayout& p, Transport t,
                               std::int64_t value_bytes, const RouteParams& prm);
// Step 3 of the routes: destination t's off-node receive peers (recv_side(rank_lists, t, d)), cut into
// runs of consecutive peers relayed by the same B; emit(B, q, e) for each run [q, e) of peer
// indices. B sends each run as one message (none when B is t). `relay(s, L)` is group (s, L)'s B.
template <class Relay, class Emit>
void relay_runs(const core::PeerLists& rs, const RankLayout& p, int t, Relay&& relay, Emit&& emit) {
  const int L = p.node(t);
  for (std::size_t q = 0; q < rs.npeers();) {
    if (p.node(rs.peers[q]) == L) {
      ++q;
      continue;
    }
    const int B = relay(rs.peers[q], L);
    std::size_t e = q;
    while (e < rs.npeers() && p.node(rs.peers[e]) != L && relay(rs.peers[e], L) == B) ++e;
    emit(B, q, e);
    q = e;
  }
}
// The send side of rank s for direction d (root side for root -> leaf).
const core::PeerLists& send_side(const std::vector<core::RankLists>& rank_lists, int s, core::Direction d);
const core::PeerLists& recv_side(const std::vector<core::RankLists>& rank_lists, int s, core::Direction d);
// The values a group carries: its send-list elements, or, deduplicated (root -> leaf, values by
// index), its distinct indices.
Index group_values(const core::PeerLists& side, const Group& g, bool dedup);

// window's MPI calls for one pair of ranks, each one message (src/exec/mpi/window.cpp): a bcast's
// one MPI_Get; a reduce's one MPI_Accumulate per round, a round naming each target root once (a
// root that n leaves of the rank reach takes n rounds); a fetch-and-op's one MPI_Get_accumulate
// per leaf, in either direction (its value there, the root's back). `targets`: the pair's root
// indices as the leaf rank lists them (core::RankLists::leaf_remote). The values each call carries.
std::vector<Index> one_sided_calls(std::span<const Index> targets, core::Motion m);

struct Message {
  std::int32_t src = 0, dst = 0;
  std::int64_t bytes = 0;
};
struct Round {
  std::string label;
  std::vector<Message> msgs;          // in the order the executor posts them (never merged)
  std::vector<std::int64_t> shm_out;  // per rank: bytes it writes into its segment for on-node peers
  std::vector<std::int64_t> shm_in;   // per rank: bytes it reads from on-node peers' segments
  std::vector<std::int64_t> self;     // per rank: bytes copied locally (its own leaves of its roots)
};

// The rounds of one direction of an op: one for direct and shm, three (gather on node,
// inter-node, redistribute) for the node-aware strategies. dedup: root -> leaf values by index.
std::vector<Round> direction_rounds(const std::vector<core::RankLists>& rank_lists, core::Direction d, std::int64_t value_bytes,
                                    const RankLayout& p, Transport t, const RouteParams& prm, bool dedup);
// Every direction of the op, in its order (fetch_and_op: there, then the fetched values back).
std::vector<Round> op_rounds(const std::vector<core::RankLists>& rank_lists, const core::OpSpec& op, const RankLayout& p, Transport t,
                             const RouteParams& prm);

struct Totals {
  std::int64_t messages = 0, bytes = 0, shm_bytes = 0;
};
Totals totals(const std::vector<Round>& rounds);

// The nearest-neighbour send schedule of the GPU-aware neighborhood-collectives paper (its
// Algorithms 2 and 3), which the neighbor backend uses for device buffers: the order in which
// `rank` starts its sends to `dsts` (ascending ranks), as positions into dsts. A rank above all its
// destinations sends from the nearest down; one below all of them sends in ascending order; any
// other starts at its nearest destination (the greater one on a tie) and alternates upwards and
// downwards from there, so that the ranks of a dense pattern do not all send to the same rank at
// the same step.
std::vector<std::size_t> nearest_neighbor_order(int rank, std::span<const int> dsts);

}  // namespace sfr::plan
