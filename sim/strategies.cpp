#include "sim/strategies.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <span>
#include <string_view>
#include <tuple>

#include "core/backends.hpp"
#include "core/error.hpp"
#include "core/shm_route.hpp"

namespace sfr::sim {

// The executor's names; the GPU path is named only when device-aware (staged is the default).
std::string BackendVariant::name() const { return std::string(core::backend_name(kind)) + (aware ? ":aware" : ""); }

std::vector<BackendVariant> all_backends(bool with_aware) {
  std::vector<BackendVariant> v;
  for (const auto& c : core::kBackends) {
    if (!c.simulated) continue;
    v.push_back({c.id, false});
    if (with_aware && !c.host_buffers_only) v.push_back({c.id, true});
  }
  return v;
}


Traffic traffic_from_plans(const std::vector<core::RankLists>& rank_lists, bool root_to_leaf, std::int64_t value_bytes, bool send_device,
                           bool recv_device, bool dedupable) {
  Traffic t;
  t.value_bytes = value_bytes;
  t.dedupable = root_to_leaf && dedupable;
  t.rank_lists = &rank_lists;
  t.dir = root_to_leaf ? core::Direction::root_to_leaf : core::Direction::leaf_to_root;
  t.send_device = send_device;
  t.recv_device = recv_device;
  t.self_count.resize(rank_lists.size());
  std::size_t total = 0;
  for (const auto& p : rank_lists) total += (root_to_leaf ? p.root_side : p.leaf_side).npeers();
  t.flows.reserve(total);
  for (const auto& p : rank_lists) {
    const auto& side = root_to_leaf ? p.root_side : p.leaf_side;
    for (std::size_t q = 0; q < side.npeers(); ++q) t.flows.push_back({p.rank, side.peers[q], side.count(q), side.list(q)});
    t.self_count[static_cast<std::size_t>(p.rank)] = static_cast<std::int64_t>(p.self_roots.size());
  }
  return t;
}

Schedule make_schedule(const RankLayout& lay, const MachineModel& m, BackendVariant b) {
  Schedule s;
  // The trace's ranks only: the split strategies have no helper processes, as in the executor
  // (machine files' split.procs_per_node serves the node-aware study's closed forms only).
  (void)m;
  (void)b;
  s.endpoints = lay.nranks;
  s.node.resize(static_cast<std::size_t>(s.endpoints));
  s.socket.resize(static_cast<std::size_t>(s.endpoints));
  for (int r = 0; r < lay.nranks; ++r) s.node[r] = lay.node(r), s.socket[r] = lay.socket(r);
  return s;
}

namespace {

// Builds one step: messages are sorted by (src, dst) and merged, self and empty ones dropped;
// host transfers pay packing at the sender and unpacking at the receiver.
struct StepBuilder {
  const Schedule& s;
  const MachineModel& m;
  bool device;  // transfers of this step are device-aware
  std::vector<Msg> msgs;
  std::vector<Time> pre, post, copy, sync, lat, mid;
  StepBuilder(const Schedule& sc, const MachineModel& mm, bool dev) : s(sc), m(mm), device(dev) {
    const auto n = static_cast<std::size_t>(s.endpoints);
    pre.assign(n, 0), post.assign(n, 0), copy.assign(n, 0), sync.assign(n, 0);
  }
  // A copy while e's sends fly (Step::mid).
  void add_mid(std::int32_t e, Time t) {
    if (mid.empty()) mid.assign(pre.size(), 0);
    mid[e] += t;
    copy[e] += t;
  }
  void add_sync(std::int32_t e, Time t) {
    pre[e] += t;
    sync[e] += t;
  }
  void send(std::int32_t a, std::int32_t b, std::int64_t bytes) {
    if (a != b && bytes > 0) msgs.push_back({a, b, bytes, Tier::network, device});
  }
  // A pair whose sender hands its block to MPI unpacked (`pack` false) or whose receiver's lands
  // in place (`unpack` false): no copy charged there.
  std::set<std::pair<std::int32_t, std::int32_t>> no_pack, no_unpack;
  void direct(std::int32_t a, std::int32_t b, bool pack, bool unpack) {
    if (!pack) no_pack.insert({a, b});
    if (!unpack) no_unpack.insert({a, b});
  }
  void add_pre(std::int32_t e, Time t, bool is_copy) {
    pre[e] += t;
    if (is_copy) copy[e] += t;
  }
  void add_post(std::int32_t e, Time t, bool is_copy) {
    post[e] += t;
    if (is_copy) copy[e] += t;
  }
  // merge: one message per (src, dst) (the direct backends' pairs); otherwise every message as the
  // plan lists it (a relay may send one sender several), grouped by sender in send order.
  Step finish(std::string label, bool merge = true) {
    if (merge) {
      std::stable_sort(msgs.begin(), msgs.end(), [](const Msg& x, const Msg& y) { return x.src != y.src ? x.src < y.src : x.dst < y.dst; });
      std::size_t w = 0;
      for (std::size_t i = 0; i < msgs.size(); ++i) {
        if (w > 0 && msgs[w - 1].src == msgs[i].src && msgs[w - 1].dst == msgs[i].dst)
          msgs[w - 1].bytes += msgs[i].bytes;
        else
          msgs[w++] = msgs[i];
      }
      msgs.resize(w);
    } else {
      std::stable_sort(msgs.begin(), msgs.end(), [](const Msg& x, const Msg& y) { return x.src < y.src; });
    }
    for (auto& msg : msgs) {
      msg.tier = core::tier_between({s.node[msg.src], s.socket[msg.src]}, {s.node[msg.dst], s.socket[msg.dst]});
      if (!device) {
        msg.mate = m.core_sharing.mates(msg.src, msg.dst);
        const Time pk = to_ps(m.pack.at(static_cast<double>(msg.bytes)) * m.core_sharing.factor(msg.src, msg.dst));
        if (!no_pack.count({msg.src, msg.dst})) add_pre(msg.src, pk, true);
        if (!no_unpack.count({msg.src, msg.dst})) add_post(msg.dst, pk, true);
      }
    }
    Step st;
    st.label = std::move(label);
    st.msgs = std::move(msgs);
    st.pre = std::move(pre), st.post = std::move(post), st.copy = std::move(copy), st.sync = std::move(sync);
    if (!lat.empty()) st.extra_latency = std::move(lat);
    st.mid = std::move(mid);
    return st;
  }
};

// The shape of `side`'s list for `peer` (empty where it has none).
core::IndexShape list_shape(const core::PeerLists& side, int peer) {
  const auto it = std::lower_bound(side.peers.begin(), side.peers.end(), peer);
  return it != side.peers.end() && *it == peer ? side.shapes[static_cast<std::size_t>(it - side.peers.begin())] : core::IndexShape{};
}
// Whether `side`'s list for `peer` is one contiguous block.
bool contiguous_list(const core::PeerLists& side, int peer) { return list_shape(side, peer).kind == core::IndexShape::contiguous; }
// The shape of flow f's list on its sender.
core::IndexShape sender_shape(const Traffic& t, const Flow& f) {
  const auto& from = (*t.rank_lists)[static_cast<std::size_t>(f.src)];
  return list_shape(t.dir == core::Direction::root_to_leaf ? from.root_side : from.leaf_side, f.dst);
}
// Whether flow f's list on its receiver is one contiguous block.
bool receiver_contiguous(const Traffic& t, const Flow& f) {
  const auto& to = (*t.rank_lists)[static_cast<std::size_t>(f.dst)];
  return contiguous_list(t.dir == core::Direction::root_to_leaf ? to.leaf_side : to.root_side, f.src);
}
// A direct-capable backend's flow: its sender packs unless its list is contiguous and may go
// unpacked, its receiver unpacks unless its list is contiguous and may take it in place.
void direct_flow(StepBuilder& sb, const Traffic& t, const Flow& f) {
  if (!t.send_direct || !t.rank_lists) return;
  const bool pack = sender_shape(t, f).kind != core::IndexShape::contiguous;
  sb.direct(f.src, f.dst, pack, !t.recv_direct || !receiver_contiguous(t, f));
}

// window's flow (the executor's window.cpp): the root side copies its roots into the window and
// back in runs, and MPI reads or updates them through an indexed datatype, a block per run (the
// executor's cost per run), never value by value; the leaf side packs (reduce) or unpacks (bcast)
// through its list unless that is one contiguous block (then one memcpy, which the cost per byte
// covers).
void window_flow(StepBuilder& sb, const Traffic& t, const Flow& f) {
  if (!t.rank_lists) return;
  const bool r2l = t.dir == core::Direction::root_to_leaf;  // the leaves receive: their list is the receiver's
  sb.direct(f.src, f.dst, !r2l && sender_shape(t, f).kind != core::IndexShape::contiguous, r2l && !receiver_contiguous(t, f));
}

Time copy_cost(const MachineModel& m, bool to_device, std::int64_t bytes, int concurrent) {
  return bytes > 0 ? to_ps(m.copy(to_device, concurrent).at(static_cast<double>(bytes))) : 0;
}

// Device data: each rank with device data to send runs one pack kernel before the first step and
// each with device data to receive one unpack kernel after the last (MachineModel::kernels); on
// staged paths the packed data are copied device-to-host after the pack and host-to-device before
// the unpack.
void device_work(StepBuilder& first, StepBuilder& last, const RankLayout& lay, const MachineModel& m, const Traffic& t, bool aware,
                 const std::vector<std::int64_t>& send_bytes, const std::vector<std::int64_t>& recv_bytes) {
  const int c = lay.ranks_per_gpu();
  for (int r = 0; r < lay.nranks; ++r) {
    if (t.send_device && send_bytes[r] > 0)
      first.add_pre(r, to_ps(m.kernels.at(static_cast<double>(send_bytes[r]))) + (aware ? 0 : copy_cost(m, false, send_bytes[r], c)), true);
    if (t.recv_device && recv_bytes[r] > 0)
      last.add_post(r, to_ps(m.kernels.at(static_cast<double>(recv_bytes[r]))) + (aware ? 0 : copy_cost(m, true, recv_bytes[r], c)), true);
  }
}

// The self part: before the sends, or while they fly where the backend does it after starting
// them on host data (core::BackendInfo::self_while_sending; the executor's order) and the
// machine's messages move without the ranks' cores (MachineModel::self_overlap).
void self_copies(StepBuilder& sb, const MachineModel& m, const Traffic& t, core::BackendId b) {
  const bool mid = m.self_overlap && core::backend(b).self_while_sending && !t.send_device && !t.recv_device;
  for (std::size_t r = 0; r < t.self_count.size(); ++r) {
    if (t.self_count[r] == 0) continue;
    const Time copy = to_ps(m.pack.at(static_cast<double>(t.self_count[r] * t.value_bytes)));
    if (mid)
      sb.add_mid(static_cast<std::int32_t>(r), copy);
    else
      sb.add_pre(static_cast<std::int32_t>(r), copy, true);
  }
}

}  // namespace

// A dissemination barrier over all ranks: ceil(log2 P) rounds of the slowest tier's short-message
// latency, plus the machine's fence overhead.
Time fence_cost(const MachineModel& m, const RankLayout& lay, bool dev) {
  const int rounds = lay.nranks > 1 ? static_cast<int>(std::ceil(std::log2(static_cast<double>(lay.nranks)))) : 0;
  const Tier worst = lay.nnodes() > 1 ? Tier::network : lay.ranks_per_socket < lay.nranks ? Tier::node : Tier::socket;
  return rounds * to_ps(m.latency(dev, worst, Proto::short_)) + to_ps(m.fence_overhead);
}

namespace {
// The root indices a flow's values go to or come from, as its leaf rank lists them.
std::span<const core::Index> leaf_targets(const Traffic& t, const Flow& f) {
  const bool l2r = t.dir == core::Direction::leaf_to_root;
  const auto& pl = (*t.rank_lists)[static_cast<std::size_t>(l2r ? f.src : f.dst)];
  const int owner = l2r ? f.dst : f.src;
  const auto q = static_cast<std::size_t>(std::find(pl.leaf_side.peers.begin(), pl.leaf_side.peers.end(), owner) - pl.leaf_side.peers.begin());
  return std::span<const core::Index>(pl.leaf_remote)
      .subspan(static_cast<std::size_t>(pl.leaf_side.offsets[q]), static_cast<std::size_t>(pl.leaf_side.count(q)));
}

// basic, neighbor, alltoallv: one message per (sender, receiver) pair of the plan; window: one
// per MPI call of a pair (plan::one_sided_calls).
void add_direct(Schedule& s, const RankLayout& lay, const MachineModel& m, BackendVariant b, const Traffic& t) {
  const bool dev = b.aware && (t.send_device || t.recv_device);
  const core::BackendInfo& info = core::backend(b.kind);
  const bool one_sided = info.transport == core::Transport::one_sided;
  StepBuilder sb(s, m, dev);
  std::vector<std::int64_t> sent(static_cast<std::size_t>(lay.nranks)), recvd(sent.size());
  for (const auto& f : t.flows) {
    sb.send(f.src, f.dst, f.count * t.value_bytes);
    if (info.user_buffers && !dev) direct_flow(sb, t, f);
    if (one_sided && !dev) window_flow(sb, t, f);
    sent[f.src] += f.count * t.value_bytes;
    recvd[f.dst] += f.count * t.value_bytes;
  }
  self_copies(sb, m, t, b.kind);
  device_work(sb, sb, lay, m, t, b.aware, sent, recvd);
  if (info.collective_overhead)
    for (int r = 0; r < lay.nranks; ++r) sb.add_sync(r, to_ps(m.collective_overhead));
  if (info.every_pair) {
    // MPI_Alltoallv also sends the empty messages: one short-protocol latency per non-peer,
    // counted per tier from the topology (no O(P^2) message list).
    sb.lat.assign(static_cast<std::size_t>(s.endpoints), 0);
    std::vector<std::array<std::int64_t, 3>> peers(static_cast<std::size_t>(lay.nranks), {0, 0, 0});
    for (const auto& f : t.flows) {
      const int k = lay.node(f.src) != lay.node(f.dst) ? 2 : lay.socket(f.src) != lay.socket(f.dst) ? 1 : 0;
      ++peers[f.src][k];
    }
    for (int r = 0; r < lay.nranks; ++r) {
      const std::int64_t on_socket = std::min(lay.ranks_per_socket, lay.nranks - lay.socket(r) * lay.ranks_per_socket) - 1;
      const std::int64_t on_node = lay.ranks_on_node(lay.node(r)) - 1 - on_socket;
      const std::int64_t off = lay.nranks - 1 - on_socket - on_node;
      const std::int64_t cnt[3] = {on_socket, on_node, off};
      Time extra = 0;
      for (int k = 0; k < 3; ++k)
        extra += std::max<std::int64_t>(0, cnt[k] - peers[r][k]) * to_ps(m.latency(dev, static_cast<Tier>(k), Proto::short_));
      sb.add_pre(r, extra, false);
      sb.lat[r] = extra;
    }
  }
  Step st = sb.finish(info.name);
  if (one_sided) {
    // Each pair's values in its MPI calls (packed once per pair, as the executor packs its block).
    std::map<std::pair<std::int32_t, std::int32_t>, const Flow*> flow;
    for (const auto& f : t.flows) flow[{f.src, f.dst}] = &f;
    // On one node the MPI reads and writes the window's memory itself (Msg::load_store).
    const bool load_store = lay.nnodes() == 1 && !dev;
    std::vector<Msg> calls;
    for (const Msg& msg : st.msgs)
      for (const core::Index v : plan::one_sided_calls(leaf_targets(t, *flow.at({msg.src, msg.dst})), t.motion)) {
        calls.push_back(msg);
        calls.back().bytes = v * t.value_bytes;
        calls.back().load_store = load_store;
      }
    st.msgs = std::move(calls);
    // Fence, puts, fence.
    const Time fence = fence_cost(m, lay, dev);
    st.barrier_before = true;
    st.barrier_cost = fence;
    st.one_sided = true;
    s.steps.push_back(std::move(st));
    Step close;
    close.label = "window fence";
    close.barrier_before = true;
    close.barrier_cost = fence;
    s.steps.push_back(std::move(close));
    return;
  }
  s.steps.push_back(std::move(st));
}

// shm: on-node pairs through the sender's shared segment and the flag handshake (the pair's
// short-message latency), off-node pairs, and the large contiguous runs shm leaves to MPI
// (core/shm_route.hpp), as basic. The executor's shm.cpp, on the plan's nodes. Its copies into and
// out of the segment are the executor's costs, not the packing rate: shm copies every on-node
// value, block or list, once each way (no extra copy of a list, as basic's pack is); the cost per
// byte (the rings in order) prices those copies, the costs per run and per scattered value (the
// permuted rings) what a list costs beyond a block. A list packed at the packing rate (a random
// list's, local) priced bcspwr10's bcast (15.7 KiB of long runs) 1.5x what it took and calibrate's
// permuted 16 KiB ring 1.3x its ring in order, which it took as long as.
void add_shm(Schedule& s, const RankLayout& lay, const MachineModel& m, BackendVariant b, const Traffic& t) {
  StepBuilder sb(s, m, false);
  std::vector<std::int64_t> sent(static_cast<std::size_t>(lay.nranks)), recvd(sent.size());
  for (const auto& f : t.flows) {
    const std::int64_t bytes = f.count * t.value_bytes;
    sent[f.src] += bytes;
    recvd[f.dst] += bytes;
    if (lay.node(f.src) != lay.node(f.dst) || (t.rank_lists && core::shm_leaves_to_mpi(bytes, sender_shape(t, f)))) {
      sb.send(f.src, f.dst, bytes);
      direct_flow(sb, t, f);
      continue;
    }
    // Between two ranks of one core, the mates' share of the handshake.
    const Tier tier = lay.socket(f.src) == lay.socket(f.dst) ? Tier::socket : Tier::node;
    sb.add_post(f.dst, to_ps(m.latency(false, tier, Proto::short_) * m.core_sharing.factor(f.src, f.dst)), false);
  }
  self_copies(sb, m, t, b.kind);
  device_work(sb, sb, lay, m, t, false, sent, recvd);
  s.steps.push_back(sb.finish(core::transport_name(plan::Transport::shm)));
}

// 3-step, 2-step, Split+MD, Split+DD: the plan's rounds (plan::direction_rounds, the routes the
// executor posts), message for message; on-node pairs through shared memory as in shm.
void add_node_aware(Schedule& s, const RankLayout& lay, const MachineModel& m, BackendVariant b, const Traffic& t) {
  const bool dev = b.aware && (t.send_device || t.recv_device);
    const auto rounds = plan::direction_rounds(*t.rank_lists, t.dir, t.value_bytes, lay, core::backend(b.kind).transport, {m.message_cap}, t.dedupable);
  std::vector<StepBuilder> steps;
  for (std::size_t k = 0; k < rounds.size(); ++k) steps.emplace_back(s, m, dev);
  for (std::size_t k = 0; k < rounds.size(); ++k) {
    const auto& r = rounds[k];
    for (const auto& msg : r.msgs) steps[k].send(msg.src, msg.dst, msg.bytes);
    for (std::size_t e = 0; e < r.shm_out.size(); ++e) {
      const auto ep = static_cast<std::int32_t>(e);
      if (r.shm_out[e] > 0) steps[k].add_pre(ep, to_ps(m.pack.at(static_cast<double>(r.shm_out[e]))), true);
      if (r.shm_in[e] > 0)
        steps[k].add_post(ep, to_ps(m.pack.at(static_cast<double>(r.shm_in[e])) + m.latency(false, Tier::node, Proto::short_)), true);
    }
  }
  std::vector<std::int64_t> sent(static_cast<std::size_t>(lay.nranks)), recvd(sent.size());
  for (const auto& f : t.flows) sent[f.src] += f.count * t.value_bytes, recvd[f.dst] += f.count * t.value_bytes;
  self_copies(steps.front(), m, t, b.kind);
  device_work(steps.front(), steps.back(), lay, m, t, b.aware, sent, recvd);
  for (std::size_t k = 0; k < rounds.size(); ++k) s.steps.push_back(steps[k].finish(rounds[k].label, false));
}

}  // namespace

void add_round(Schedule& s, const RankLayout& lay, const MachineModel& m, BackendVariant b, const Traffic& t) {
  // A graph without remote edges communicates nothing under any backend (PetscSF knows it at
  // setup and skips the transport: no collective call, no fence, no copies).
  if (t.flows.empty()) {
    StepBuilder sb(s, m, false);
    self_copies(sb, m, t, b.kind);
    s.steps.push_back(sb.finish("local copies"));
    return;
  }
  if (core::backend(b.kind).node_aware)
    add_node_aware(s, lay, m, b, t);
  else if (core::backend(b.kind).transport == core::Transport::shm)
    add_shm(s, lay, m, b, t);
  else
    add_direct(s, lay, m, b, t);
}

}  // namespace sfr::sim
