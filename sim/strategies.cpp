#include "sim/strategies.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <span>
#include <tuple>

#include "core/error.hpp"
#include "core/names.hpp"

namespace sfr::sim {

namespace {
constexpr std::array<core::Named<BackendKind>, 8> kKindNames{{{BackendKind::basic, "basic"},
                                                              {BackendKind::neighbor, "neighbor"},
                                                              {BackendKind::window, "window"},
                                                              {BackendKind::alltoallv, "alltoallv"},
                                                              {BackendKind::three_step, "3step"},
                                                              {BackendKind::two_step, "2step"},
                                                              {BackendKind::split_md, "split-md"},
                                                              {BackendKind::split_dd, "split-dd"}}};
bool is_split(BackendKind k) { return k == BackendKind::split_md || k == BackendKind::split_dd; }
bool is_node_aware(BackendKind k) { return static_cast<int>(k) >= static_cast<int>(BackendKind::three_step); }
}  // namespace

const char* backend_kind_name(BackendKind k) { return core::name_of(k, kKindNames); }
// The executor's names; the GPU path is named only when device-aware (staged is the default).
std::string Backend::name() const { return std::string(backend_kind_name(kind)) + (aware ? ":aware" : ""); }

Backend parse_backend(const std::string& s, const std::string& where) {
  const auto colon = s.find(':');
  const std::string kind = s.substr(0, colon), path = colon == std::string::npos ? "staged" : s.substr(colon + 1);
  Backend b;
  if (!core::parse_name(kind, kKindNames, b.kind))
    throw InputError(where,
                     "unknown backend '" + kind +
                         "' (expected basic, neighbor, window, alltoallv, 3step, 2step, split-md, split-dd, optionally :staged or :aware)");
  if (path != "staged" && path != "aware") throw InputError(where, "unknown GPU path '" + path + "' (expected staged or aware)");
  b.aware = path == "aware";
  if (b.aware && is_split(b.kind))
    throw InputError(where, std::string(kind) + " has no device-aware form (it stages through host processes)");
  return b;
}

std::vector<Backend> all_backends(bool with_aware) {
  std::vector<Backend> v;
  for (int i = 0; i < 8; ++i) {
    const auto k = static_cast<BackendKind>(i);
    v.push_back({k, false});
    if (with_aware && !is_split(k)) v.push_back({k, true});
  }
  return v;
}

int Layout::ranks_on_node(int k) const { return std::min(ranks_per_node, nranks - k * ranks_per_node); }

Traffic traffic_from_plans(const std::vector<core::RankPlan>& plans, bool root_to_leaf, std::int64_t value_bytes, bool send_device,
                           bool recv_device) {
  Traffic t;
  t.value_bytes = value_bytes;
  t.dedupable = root_to_leaf;
  t.send_device = send_device;
  t.recv_device = recv_device;
  t.self_count.resize(plans.size());
  std::size_t total = 0;
  for (const auto& p : plans) total += (root_to_leaf ? p.root_side : p.leaf_side).npeers();
  t.flows.reserve(total);
  for (const auto& p : plans) {
    const auto& side = root_to_leaf ? p.root_side : p.leaf_side;
    for (std::size_t q = 0; q < side.npeers(); ++q) t.flows.push_back({p.rank, side.peers[q], side.count(q), side.list(q)});
    t.self_count[static_cast<std::size_t>(p.rank)] = static_cast<std::int64_t>(p.self_roots.size());
  }
  return t;
}

Schedule make_schedule(const Layout& lay, const MachineModel& m, Backend b) {
  Schedule s;
  const int helpers = is_split(b.kind) ? std::max(0, m.procs_per_node - lay.ranks_per_node) : 0;
  s.endpoints = lay.nranks + lay.nnodes() * helpers;
  s.node.resize(static_cast<std::size_t>(s.endpoints));
  s.socket.resize(static_cast<std::size_t>(s.endpoints));
  for (int r = 0; r < lay.nranks; ++r) s.node[r] = lay.node(r), s.socket[r] = lay.socket(r);
  const int spn = std::max(1, lay.ranks_per_node / lay.ranks_per_socket);
  for (int k = 0; k < lay.nnodes(); ++k)
    for (int h = 0; h < helpers; ++h) {
      const std::size_t e = static_cast<std::size_t>(lay.nranks + k * helpers + h);
      s.node[e] = k;
      // Helpers spread evenly over the node's sockets; socket ids continue the ranks' numbering.
      s.socket[e] = k * spn + h * spn / helpers;
    }
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
  std::vector<Time> pre, post, copy, sync, lat;
  StepBuilder(const Schedule& sc, const MachineModel& mm, bool dev) : s(sc), m(mm), device(dev) {
    const auto n = static_cast<std::size_t>(s.endpoints);
    pre.assign(n, 0), post.assign(n, 0), copy.assign(n, 0), sync.assign(n, 0);
  }
  void add_sync(std::int32_t e, Time t) {
    pre[e] += t;
    sync[e] += t;
  }
  void send(std::int32_t a, std::int32_t b, std::int64_t bytes) {
    if (a != b && bytes > 0) msgs.push_back({a, b, bytes, Tier::network, device});
  }
  void add_pre(std::int32_t e, Time t, bool is_copy) {
    pre[e] += t;
    if (is_copy) copy[e] += t;
  }
  void add_post(std::int32_t e, Time t, bool is_copy) {
    post[e] += t;
    if (is_copy) copy[e] += t;
  }
  Step finish(std::string label) {
    std::stable_sort(msgs.begin(), msgs.end(), [](const Msg& x, const Msg& y) { return x.src != y.src ? x.src < y.src : x.dst < y.dst; });
    std::size_t w = 0;
    for (std::size_t i = 0; i < msgs.size(); ++i) {
      if (w > 0 && msgs[w - 1].src == msgs[i].src && msgs[w - 1].dst == msgs[i].dst)
        msgs[w - 1].bytes += msgs[i].bytes;
      else
        msgs[w++] = msgs[i];
    }
    msgs.resize(w);
    for (auto& msg : msgs) {
      msg.tier = core::tier_between({s.node[msg.src], s.socket[msg.src]}, {s.node[msg.dst], s.socket[msg.dst]});
      if (!device) {
        const Time pk = to_ps(m.pack.at(static_cast<double>(msg.bytes)));
        add_pre(msg.src, pk, true);
        add_post(msg.dst, pk, true);
      }
    }
    Step st;
    st.label = std::move(label);
    st.msgs = std::move(msgs);
    st.pre = std::move(pre), st.post = std::move(post), st.copy = std::move(copy), st.sync = std::move(sync);
    if (!lat.empty()) st.extra_latency = std::move(lat);
    return st;
  }
};

Time copy_cost(const MachineModel& m, bool to_device, std::int64_t bytes, int concurrent) {
  return bytes > 0 ? to_ps(m.copy(to_device, concurrent).at(static_cast<double>(bytes))) : 0;
}

// Staged paths: device data is copied to the host before the first step and back after the last.
void staged_copies(StepBuilder& first, StepBuilder& last, const Layout& lay, const MachineModel& m, const Traffic& t, bool aware,
                   const std::vector<std::int64_t>& send_bytes, const std::vector<std::int64_t>& recv_bytes) {
  if (aware) return;
  const int c = lay.ranks_per_gpu();
  for (int r = 0; r < lay.nranks; ++r) {
    if (t.send_device) first.add_pre(r, copy_cost(m, false, send_bytes[r], c), true);
    if (t.recv_device) last.add_post(r, copy_cost(m, true, recv_bytes[r], c), true);
  }
}

void self_copies(StepBuilder& sb, const MachineModel& m, const Traffic& t) {
  for (std::size_t r = 0; r < t.self_count.size(); ++r)
    if (t.self_count[r] > 0)
      sb.add_pre(static_cast<std::int32_t>(r), to_ps(m.pack.at(static_cast<double>(t.self_count[r] * t.value_bytes))), true);
}

}  // namespace

// A dissemination barrier over all ranks: ceil(log2 P) rounds of the slowest tier's short-message
// latency, plus the machine's fence overhead.
Time fence_cost(const MachineModel& m, const Layout& lay, bool dev) {
  const int rounds = lay.nranks > 1 ? static_cast<int>(std::ceil(std::log2(static_cast<double>(lay.nranks)))) : 0;
  const Tier worst = lay.nnodes() > 1 ? Tier::network : lay.ranks_per_socket < lay.nranks ? Tier::node : Tier::socket;
  return rounds * to_ps(m.ab(dev, worst, Proto::short_).alpha) + to_ps(m.fence_overhead);
}

namespace {
// basic, neighbor, window, alltoallv: one message per (sender, receiver) pair of the plan.
void add_direct(Schedule& s, const Layout& lay, const MachineModel& m, Backend b, const Traffic& t) {
  const bool dev = b.aware && (t.send_device || t.recv_device);
  StepBuilder sb(s, m, dev);
  std::vector<std::int64_t> sent(static_cast<std::size_t>(lay.nranks)), recvd(sent.size());
  for (const auto& f : t.flows) {
    sb.send(f.src, f.dst, f.count * t.value_bytes);
    sent[f.src] += f.count * t.value_bytes;
    recvd[f.dst] += f.count * t.value_bytes;
  }
  self_copies(sb, m, t);
  staged_copies(sb, sb, lay, m, t, b.aware, sent, recvd);
  if (b.kind == BackendKind::neighbor || b.kind == BackendKind::alltoallv)
    for (int r = 0; r < lay.nranks; ++r) sb.add_sync(r, to_ps(m.collective_overhead));
  if (b.kind == BackendKind::alltoallv) {
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
        extra += std::max<std::int64_t>(0, cnt[k] - peers[r][k]) * to_ps(m.ab(dev, static_cast<Tier>(k), Proto::short_).alpha);
      sb.add_pre(r, extra, false);
      sb.lat[r] = extra;
    }
  }
  Step st = sb.finish(backend_kind_name(b.kind));
  if (b.kind == BackendKind::window) {
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

// Per (sender rank, destination node): values after removing duplicates (root -> leaf only).
struct NodeFlow {
  std::int32_t src;
  std::int32_t node;
  std::int64_t unique_bytes;
};
std::vector<NodeFlow> node_flows(const Layout& lay, const Traffic& t) {
  std::vector<NodeFlow> out;
  std::vector<core::Index> buf;
  for (std::size_t i = 0; i < t.flows.size();) {
    const auto& f = t.flows[i];
    const int l = lay.node(f.dst);
    std::size_t j = i;
    std::int64_t total = 0;
    buf.clear();
    while (j < t.flows.size() && t.flows[j].src == f.src && lay.node(t.flows[j].dst) == l) {
      total += t.flows[j].count;
      if (t.dedupable) buf.insert(buf.end(), t.flows[j].idx.begin(), t.flows[j].idx.end());
      ++j;
    }
    if (t.dedupable && j - i > 1) {
      std::sort(buf.begin(), buf.end());
      total = std::unique(buf.begin(), buf.end()) - buf.begin();
    }
    if (lay.node(f.src) != l) out.push_back({f.src, l, total * t.value_bytes});
    i = j;
  }
  return out;
}

// Destination bytes per (source node k, destination node l), pairs in (k, l) order; within a
// pair, each destination rank once, in the order of its first flow, with its bytes summed
// (3-step and split). Sorting, not a map of vectors: one allocation, no per-flow search.
struct PairDests {
  struct Pair {
    int k, l;
    std::size_t begin, end;  // into dest
  };
  std::vector<Pair> pairs;
  std::vector<std::pair<int, std::int64_t>> dest;  // (d, bytes)
  std::span<const std::pair<int, std::int64_t>> of(int k, int l) const {
    const auto it = std::lower_bound(pairs.begin(), pairs.end(), std::pair{k, l}, [](const Pair& p, const std::pair<int, int>& kl) {
      return std::pair{p.k, p.l} < kl;
    });
    if (it == pairs.end() || it->k != k || it->l != l) return {};
    return {dest.data() + it->begin, it->end - it->begin};
  }
};
PairDests pair_dests(const Layout& lay, const Traffic& t) {
  struct E {
    int k, l, d;
    std::uint32_t first;  // the flow's index (unique: the sorts below are total orders)
    std::int64_t bytes;
  };
  std::vector<E> e;
  e.reserve(t.flows.size());
  for (std::size_t i = 0; i < t.flows.size(); ++i) {
    const auto& f = t.flows[i];
    const int k = lay.node(f.src), l = lay.node(f.dst);
    if (k != l) e.push_back({k, l, f.dst, static_cast<std::uint32_t>(i), f.count * t.value_bytes});
  }
  std::sort(e.begin(), e.end(), [](const E& a, const E& b) { return std::tie(a.k, a.l, a.d, a.first) < std::tie(b.k, b.l, b.d, b.first); });
  std::size_t w = 0;  // one entry per (k, l, d): its first flow, the summed bytes
  for (std::size_t i = 0; i < e.size(); ++i)
    if (w > 0 && e[w - 1].k == e[i].k && e[w - 1].l == e[i].l && e[w - 1].d == e[i].d)
      e[w - 1].bytes += e[i].bytes;
    else
      e[w++] = e[i];
  e.resize(w);
  std::sort(e.begin(), e.end(), [](const E& a, const E& b) { return std::tie(a.k, a.l, a.first) < std::tie(b.k, b.l, b.first); });
  PairDests out;
  out.dest.reserve(e.size());
  for (std::size_t i = 0; i < e.size(); ++i) {
    if (i == 0 || e[i].k != e[i - 1].k || e[i].l != e[i - 1].l) out.pairs.push_back({e[i].k, e[i].l, i, i});
    out.dest.push_back({e[i].d, e[i].bytes});
    out.pairs.back().end = i + 1;
  }
  return out;
}

// 3-step, 2-step, Split+MD, Split+DD.
void add_node_aware(Schedule& s, const Layout& lay, const MachineModel& m, Backend b, const Traffic& t) {
  const bool dev = b.aware && (t.send_device || t.recv_device);
  const auto n = static_cast<std::size_t>(lay.nranks);
  StepBuilder s1(s, m, dev), s2(s, m, dev), s3(s, m, dev);
  std::vector<std::int64_t> sent(n), recvd(n);
  // On-node flows go directly in the first step; off-node flows take the strategy's route.
  for (const auto& f : t.flows) {
    const std::int64_t bytes = f.count * t.value_bytes;
    recvd[f.dst] += bytes;
    if (lay.node(f.src) == lay.node(f.dst)) s1.send(f.src, f.dst, bytes), sent[f.src] += bytes;
  }
  const auto nf = node_flows(lay, t);
  for (const auto& x : nf) sent[x.src] += x.unique_bytes;
  auto rank_on = [&](int node, int local) { return node * lay.ranks_per_node + local % lay.ranks_on_node(node); };
  const PairDests dests = b.kind != BackendKind::two_step ? pair_dests(lay, t) : PairDests{};
  if (b.kind == BackendKind::three_step) {
    // Step 2: one message per (source node, destination node) pair, (k, l) ascending.
    std::vector<std::tuple<int, int, std::int64_t>> volume;  // (k, l, bytes)
    volume.reserve(nf.size());
    for (const auto& x : nf) {
      const int k = lay.node(x.src);
      s1.send(x.src, rank_on(k, x.node), x.unique_bytes);
      volume.emplace_back(k, x.node, x.unique_bytes);
    }
    std::sort(volume.begin(), volume.end());
    for (std::size_t i = 0; i < volume.size();) {
      const int k = std::get<0>(volume[i]), l = std::get<1>(volume[i]);
      std::int64_t v = 0;
      for (; i < volume.size() && std::get<0>(volume[i]) == k && std::get<1>(volume[i]) == l; ++i) v += std::get<2>(volume[i]);
      s2.send(rank_on(k, l), rank_on(l, k), v);
    }
    for (const auto& p : dests.pairs)
      for (std::size_t i = p.begin; i < p.end; ++i) s3.send(rank_on(p.l, p.k), dests.dest[i].first, dests.dest[i].second);
  } else if (b.kind == BackendKind::two_step) {
    for (const auto& x : nf) s1.send(x.src, rank_on(x.node, x.src % lay.ranks_per_node), x.unique_bytes);
    // The paired rank on node l forwards what each source rank sent it.
    for (const auto& f : t.flows) {
      const int k = lay.node(f.src), l = lay.node(f.dst);
      if (k != l) s2.send(rank_on(l, f.src % lay.ranks_per_node), f.dst, f.count * t.value_bytes);
    }
  } else {  // split: chunks of at most message_cap spread over all processes of the node
    const int helpers = (s.endpoints - lay.nranks) / std::max(1, lay.nnodes());
    auto proc = [&](int node, int q) {
      const int nk = lay.ranks_on_node(node);
      return q < nk ? node * lay.ranks_per_node + q : lay.nranks + node * helpers + (q - nk);
    };
    const bool dd = b.kind == BackendKind::split_dd && t.send_device;
    const bool dd_recv = b.kind == BackendKind::split_dd && t.recv_device;
    std::map<std::pair<int, int>, std::vector<std::pair<int, std::int64_t>>> sources;  // (k,l) -> (r, bytes)
    for (const auto& x : nf) sources[{lay.node(x.src), x.node}].push_back({x.src, x.unique_bytes});
    std::vector<std::int64_t> node_total(static_cast<std::size_t>(lay.nnodes())), node_max(node_total.size());
    for (const auto& [kl, v] : sources) {
      std::int64_t vol = 0;
      for (auto& p : v) vol += p.second;
      node_total[kl.first] += vol;
      node_max[kl.first] = std::max(node_max[kl.first], vol);
    }
    std::vector<int> next_chunk(node_total.size(), 0);
    for (const auto& [kl, v] : sources) {
      const auto [k, l] = kl;
      const int ppn = lay.ranks_on_node(k) + helpers, ppn_l = lay.ranks_on_node(l) + helpers;
      std::int64_t vol = 0;
      for (auto& p : v) vol += p.second;
      std::int64_t cap = m.message_cap;
      if (node_max[k] <= cap)
        cap = vol;  // every node's data in one message
      else if (node_total[k] / cap > ppn)
        cap = (node_total[k] + ppn - 1) / ppn;
      const auto dv = dests.of(k, l);
      std::int64_t dest_total = 0;
      for (auto& p : dv) dest_total += p.second;
      for (std::int64_t lo = 0; lo < vol; lo += cap) {
        const std::int64_t hi = std::min(vol, lo + cap);
        const int c = next_chunk[k]++;
        const int sender = proc(k, ppn - 1 - c % ppn), receiver = proc(l, c % ppn_l);
        // Step 1: the source ranks' bytes in [lo, hi) go to the sending process.
        std::int64_t at = 0;
        for (const auto& [r, bytes] : v) {
          const std::int64_t a = std::max(lo, at), z = std::min(hi, at + bytes);
          if (z > a && !dd) s1.send(r, sender, z - a);
          at += bytes;
        }
        if (dd) s1.add_pre(sender, copy_cost(m, false, hi - lo, 4), true);  // duplicate device pointer
        s2.send(sender, receiver, hi - lo);
        // Step 3: the chunk maps proportionally onto the destinations' (undeduplicated) bytes.
        if (dd_recv) {
          s3.add_post(receiver, copy_cost(m, true, hi - lo, 4), true);
          continue;
        }
        const double scale = static_cast<double>(dest_total) / static_cast<double>(vol);
        const auto dlo = static_cast<std::int64_t>(std::llround(static_cast<double>(lo) * scale));
        const auto dhi = static_cast<std::int64_t>(std::llround(static_cast<double>(hi) * scale));
        at = 0;
        for (const auto& [d, bytes] : dv) {
          const std::int64_t a = std::max(dlo, at), z = std::min(dhi, at + bytes);
          if (z > a) s3.send(receiver, d, z - a);
          at += bytes;
        }
      }
    }
    if (dd)
      for (const auto& x : nf) sent[x.src] -= x.unique_bytes;  // copied by the helpers instead
    if (dd_recv)
      for (const auto& [d, bytes] : dests.dest) recvd[d] -= bytes;
  }
  self_copies(s1, m, t);
  staged_copies(s1, s3, lay, m, t, b.aware, sent, recvd);
  const std::string name = backend_kind_name(b.kind);
  s.steps.push_back(s1.finish(name + " step 1 (gather on node)"));
  s.steps.push_back(s2.finish(name + " step 2 (inter-node)"));
  s.steps.push_back(s3.finish(name + " step 3 (redistribute on node)"));
}

}  // namespace

void add_round(Schedule& s, const Layout& lay, const MachineModel& m, Backend b, const Traffic& t) {
  // A graph without remote edges communicates nothing under any backend (PetscSF knows it at
  // setup and skips the transport: no collective call, no fence, no copies).
  if (t.flows.empty()) {
    StepBuilder sb(s, m, false);
    self_copies(sb, m, t);
    s.steps.push_back(sb.finish("local copies"));
    return;
  }
  if (is_node_aware(b.kind))
    add_node_aware(s, lay, m, b, t);
  else
    add_direct(s, lay, m, b, t);
}

}  // namespace sfr::sim
