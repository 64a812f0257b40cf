#include "plan/rounds.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "core/shm_route.hpp"

namespace sfr::plan {


Transport transport_of(core::BackendId b) {
  const Transport t = core::backend(b).transport;
  return t == Transport::none ? Transport::direct : t;
}

bool node_aware(Transport t) { return t == Transport::three_step || t == Transport::two_step || t == Transport::split; }

const core::PeerLists& send_side(const std::vector<core::RankLists>& rank_lists, int s, core::Direction d) {
  const auto& pl = rank_lists[static_cast<std::size_t>(s)];
  return d == core::Direction::root_to_leaf ? pl.root_side : pl.leaf_side;
}
const core::PeerLists& recv_side(const std::vector<core::RankLists>& rank_lists, int s, core::Direction d) {
  const auto& pl = rank_lists[static_cast<std::size_t>(s)];
  return d == core::Direction::root_to_leaf ? pl.leaf_side : pl.root_side;
}

std::vector<Group> node_groups(const std::vector<core::RankLists>& rank_lists, core::Direction d, const RankLayout& p, Transport t,
                               std::int64_t value_bytes, const RouteParams& prm) {
  std::vector<Group> gs;
  for (int s = 0; s < p.nranks; ++s) {
    const auto& side = send_side(rank_lists, s, d);
    for (std::size_t q = 0; q < side.npeers();) {
      const int L = p.node(side.peers[q]);
      std::size_t e = q;
      while (e < side.npeers() && p.node(side.peers[e]) == L) ++e;
      if (L != p.node(s)) gs.push_back({s, L, q, e, 0, 0});
      q = e;
    }
  }
  if (t == Transport::three_step) {
    for (auto& g : gs) g.A = p.rank_on(p.node(g.s), g.L), g.B = p.rank_on(g.L, p.node(g.s));
  } else if (t == Transport::two_step) {
    for (auto& g : gs) g.A = g.s, g.B = p.rank_on(g.L, g.s - p.node(g.s) * p.ranks_per_node);
  } else if (t == Transport::split) {
    std::map<int, std::vector<Group*>> by_node;
    for (auto& g : gs) by_node[p.node(g.s)].push_back(&g);
    for (auto& [k, v] : by_node) {
      std::stable_sort(v.begin(), v.end(), [](const Group* a, const Group* b) { return a->L != b->L ? a->L < b->L : a->s < b->s; });
      int chunk = -1, last_L = -1;
      std::int64_t fill = 0;
      for (Group* g : v) {
        const auto& side = send_side(rank_lists, g->s, d);
        const std::int64_t bytes = (side.offsets[g->p1] - side.offsets[g->p0]) * value_bytes;
        if (g->L != last_L || fill + bytes > prm.split_cap || chunk < 0) {
          ++chunk;
          fill = 0;
          last_L = g->L;
        }
        fill += bytes;
        const int n = p.ranks_on_node(k), nl = p.ranks_on_node(g->L);
        g->A = p.rank_on(k, n - 1 - chunk % n);
        g->B = p.rank_on(g->L, chunk % nl);
      }
    }
  }
  return gs;
}

Index group_values(const core::PeerLists& side, const Group& g, bool dedup) {
  const Index base = side.offsets[g.p0], end = side.offsets[g.p1];
  if (!dedup) return end - base;
  std::set<Index> distinct(side.indices.begin() + base, side.indices.begin() + end);
  return static_cast<Index>(distinct.size());
}

namespace {

Round empty_round(std::string label, int nranks) {
  Round r;
  r.label = std::move(label);
  r.shm_out.assign(static_cast<std::size_t>(nranks), 0);
  r.shm_in = r.self = r.shm_out;
  return r;
}

// Direct and shm: one message per (sender, receiver) pair, or a shared-memory copy on a node (but
// for the large contiguous runs shm leaves to MPI, core/shm_route.hpp).
Round pairs_round(const std::vector<core::RankLists>& rank_lists, core::Direction d, std::int64_t vb, const RankLayout& p, bool shm) {
  Round r = empty_round(core::transport_name(shm ? Transport::shm : Transport::direct), p.nranks);
  for (int s = 0; s < p.nranks; ++s) {
    const auto& side = send_side(rank_lists, s, d);
    for (std::size_t q = 0; q < side.npeers(); ++q) {
      const int dst = side.peers[q];
      const std::int64_t bytes = side.count(q) * vb;
      if (shm && p.node(dst) == p.node(s) && !core::shm_leaves_to_mpi(bytes, side.shapes[q])) {
        r.shm_out[static_cast<std::size_t>(s)] += bytes;
        r.shm_in[static_cast<std::size_t>(dst)] += bytes;
      } else {
        r.msgs.push_back({s, dst, bytes});
      }
    }
    r.self[static_cast<std::size_t>(s)] = static_cast<std::int64_t>(rank_lists[static_cast<std::size_t>(s)].self_roots.size()) * vb;
  }
  return r;
}

// The node-aware strategies, message for message as src/exec/mpi/node_aware.cpp posts them.
std::vector<Round> relay_rounds(const std::vector<core::RankLists>& rank_lists, core::Direction d, std::int64_t vb, const RankLayout& p,
                                Transport t, const RouteParams& prm, bool dedup) {
  const char* name = core::transport_name(t);
  Round s1 = empty_round(std::string(name) + " step 1 (gather on node)", p.nranks);
  Round s2 = empty_round(std::string(name) + " step 2 (inter-node)", p.nranks);
  Round s3 = empty_round(std::string(name) + " step 3 (redistribute on node)", p.nranks);
  // On-node pairs through shared memory, in step 1; self copies.
  for (int s = 0; s < p.nranks; ++s) {
    const auto& side = send_side(rank_lists, s, d);
    for (std::size_t q = 0; q < side.npeers(); ++q)
      if (p.node(side.peers[q]) == p.node(s)) {
        s1.shm_out[static_cast<std::size_t>(s)] += side.count(q) * vb;
        s1.shm_in[static_cast<std::size_t>(side.peers[q])] += side.count(q) * vb;
      }
    s1.self[static_cast<std::size_t>(s)] = static_cast<std::int64_t>(rank_lists[static_cast<std::size_t>(s)].self_roots.size()) * vb;
  }
  const auto gs = node_groups(rank_lists, d, p, t, vb, prm);
  std::vector<Index> values(gs.size());
  for (std::size_t i = 0; i < gs.size(); ++i) values[i] = group_values(send_side(rank_lists, gs[i].s, d), gs[i], dedup);
  // Step 1: each group whose aggregator is not its source.
  for (std::size_t i = 0; i < gs.size(); ++i)
    if (gs[i].A != gs[i].s) s1.msgs.push_back({gs[i].s, gs[i].A, values[i] * vb});
  // Step 2: one message per (A, B), the groups' payloads together.
  std::map<std::pair<int, int>, std::int64_t> ab;
  for (std::size_t i = 0; i < gs.size(); ++i) ab[{gs[i].A, gs[i].B}] += values[i] * vb;
  for (const auto& [k, bytes] : ab) s2.msgs.push_back({k.first, k.second, bytes});
  // Step 3: per destination, one message per run of its receive peers with the same relay B.
  std::map<std::pair<int, int>, int> relay;  // (s, L) -> B
  for (const auto& g : gs) relay[{g.s, g.L}] = g.B;
  for (int dst = 0; dst < p.nranks; ++dst) {
    const auto& rs = recv_side(rank_lists, dst, d);
    relay_runs(
        rs, p, dst, [&](int s, int L) { return relay.at({s, L}); },
        [&](int B, std::size_t q, std::size_t e) {
          if (B != dst) s3.msgs.push_back({B, dst, (rs.offsets[e] - rs.offsets[q]) * vb});
        });
  }
  return {std::move(s1), std::move(s2), std::move(s3)};
}

// window: per pair of ranks its MPI calls (one_sided_calls), each a message from the side that
// sends the values; the self part as direct's.
Round one_sided_round(const std::vector<core::RankLists>& rank_lists, core::Direction d, core::Motion m, std::int64_t vb, const RankLayout& p) {
  Round r = empty_round(core::transport_name(Transport::one_sided), p.nranks);
  for (int s = 0; s < p.nranks; ++s) {
    const auto& pl = rank_lists[static_cast<std::size_t>(s)];
    for (std::size_t q = 0; q < pl.leaf_side.npeers(); ++q) {
      const int owner = pl.leaf_side.peers[q];
      const auto targets = std::span<const Index>(pl.leaf_remote)
                               .subspan(static_cast<std::size_t>(pl.leaf_side.offsets[q]), static_cast<std::size_t>(pl.leaf_side.count(q)));
      for (const Index v : one_sided_calls(targets, m))
        r.msgs.push_back(d == core::Direction::leaf_to_root ? Message{s, owner, v * vb} : Message{owner, s, v * vb});
    }
    r.self[static_cast<std::size_t>(s)] = static_cast<std::int64_t>(pl.self_roots.size()) * vb;
  }
  return r;
}

}  // namespace

std::vector<Index> one_sided_calls(std::span<const Index> targets, core::Motion m) {
  if (targets.empty()) return {};
  if (m == core::Motion::bcast) return {static_cast<Index>(targets.size())};
  if (m == core::Motion::fetch_and_op) return std::vector<Index>(targets.size(), 1);
  std::vector<Index> rounds;  // values per round
  std::map<Index, std::size_t> seen;
  for (const Index t : targets) {
    const std::size_t r = seen[t]++;
    if (r >= rounds.size()) rounds.push_back(0);
    ++rounds[r];
  }
  return rounds;
}

std::vector<Round> direction_rounds(const std::vector<core::RankLists>& rank_lists, core::Direction d, std::int64_t value_bytes,
                                    const RankLayout& p, Transport t, const RouteParams& prm, bool dedup) {
  if (node_aware(t)) return relay_rounds(rank_lists, d, value_bytes, p, t, prm, dedup);
  return {pairs_round(rank_lists, d, value_bytes, p, t == Transport::shm)};
}

std::vector<Round> op_rounds(const std::vector<core::RankLists>& rank_lists, const core::OpSpec& op, const RankLayout& p, Transport t,
                             const RouteParams& prm) {
  std::vector<Round> out;
  const auto& tr = core::op_traits(op.op);
  const std::int64_t vb = core::op_vertex_bytes(op);
  for (std::size_t k = 0; k < tr.nrounds; ++k) {
    const core::Direction d = tr.rounds[k];
    if (t == Transport::one_sided) {
      out.push_back(one_sided_round(rank_lists, d, tr.motion, vb, p));
      continue;
    }
    // Values by index, sent once per destination node: root -> leaf, except the fetched values
    // fetch_and_op returns (one per leaf).
    const bool dedup = d == core::Direction::root_to_leaf && op.op != core::OpKind::fetch_and_op;
    for (auto& r : direction_rounds(rank_lists, d, vb, p, t, prm, dedup)) out.push_back(std::move(r));
  }
  return out;
}

Totals totals(const std::vector<Round>& rounds) {
  Totals t;
  for (const auto& r : rounds) {
    t.messages += static_cast<std::int64_t>(r.msgs.size());
    for (const auto& m : r.msgs) t.bytes += m.bytes;
    for (auto b : r.shm_out) t.shm_bytes += b;
  }
  return t;
}

std::vector<std::size_t> nearest_neighbor_order(int rank, std::span<const int> dsts) {
  const std::size_t n = dsts.size();
  std::vector<std::size_t> order;
  order.reserve(n);
  if (n == 0) return order;
  if (dsts[n - 1] <= rank) {  // Algorithm 2, lines 16-20: from the nearest (highest) down
    for (std::size_t k = n; k-- > 0;) order.push_back(k);
    return order;
  }
  if (dsts[0] >= rank) {  // lines 21-25: ascending
    for (std::size_t k = 0; k < n; ++k) order.push_back(k);
    return order;
  }
  // Algorithm 3: the first destination above rank (there is one, and one below), or the one just
  // below where it is strictly nearer; a tie goes to the greater.
  const auto up = static_cast<std::size_t>(std::upper_bound(dsts.begin(), dsts.end(), rank) - dsts.begin());
  std::size_t nearest = up;
  if (dsts[up - 1] == rank) nearest = up - 1;  // rank among its own destinations: itself is nearest
  else if (rank - dsts[up - 1] < dsts[up] - rank) nearest = up - 1;
  // Lines 29-45: alternate y = nearest, nearest + 1, ... and z = nearest - 1, nearest - 2, ...
  std::size_t y = nearest;
  std::ptrdiff_t z = static_cast<std::ptrdiff_t>(nearest) - 1;
  while (order.size() < n) {
    if (y < n) order.push_back(y++);
    if (z >= 0) order.push_back(static_cast<std::size_t>(z--));
  }
  return order;
}

}  // namespace sfr::plan
