#include "sim/engine.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace sfr::sim {
namespace {
std::uint64_t next_engine_id() {
  static std::atomic<std::uint64_t> next{1};
  return next++;
}
}  // namespace

Time to_ps(double seconds) { return static_cast<Time>(std::llround(seconds * 1e12)); }

Engine::Engine(const MachineModel& m, std::vector<std::int32_t> node, std::vector<Time>* busy, double wire_factor)
    : m_(m), id_(next_engine_id()), node_(std::move(node)), wire_factor_(wire_factor), busy_(busy ? *busy : own_busy_) {
  for (int d = 0; d < 2; ++d)
    for (int k = 0; k < 3; ++k)
      for (int p = 0; p < 3; ++p) {
        const auto& ab = m.ab(d != 0, static_cast<Tier>(k), static_cast<Proto>(p));
        // Without LogGP's CPU costs a message's latency is the closed forms' (MachineModel::latency).
        alpha_[d][k][p] = to_ps(m.model == ModelKind::loggp ? ab.alpha : m.latency(d != 0, static_cast<Tier>(k), static_cast<Proto>(p)));
        beta_[d][k][p] = ab.beta * 1e12;
      }
  inj_beta_ = m.injection_beta * 1e12;
  for (int k = 0; k < 3; ++k) {
    const auto o = m.model == ModelKind::loggp ? m.loggp(static_cast<Tier>(k)) : MachineModel::LogGP{};
    o_send_[k] = to_ps(o.o_send), o_recv_[k] = to_ps(o.o_recv), gap_[k] = to_ps(o.gap);
  }
  recv_by_tier_ = o_recv_[1] != o_recv_[0] || o_recv_[2] != o_recv_[0];
  serial_ = is_study(m.model);
  nic_ = (m.model == ModelKind::max_rate || m.model == ModelKind::loggp || m.model == ModelKind::study_max_rate) && inj_beta_ > 0;
  for (auto n : node_) nnodes_ = std::max(nnodes_, n + 1);
  start_.resize(node_.size());
  send_free_.resize(node_.size());
  recv_free_.resize(node_.size());
}

namespace {
// Brings [p, p + bytes) into the cache ahead of use (bytes <= 64: at most two lines).
inline void prefetch_range(const void* p, std::size_t bytes) {
  const auto* c = static_cast<const char*>(p);
  __builtin_prefetch(c);
  __builtin_prefetch(c + bytes - 1);
}
}  // namespace

// The sender's CPU posts its next send, of tier k, at t + o_send; the one after may follow g later
// (both the tier's).
Time Engine::next_post(Time& t, Tier k) const {
  const auto i = static_cast<int>(k);
  const Time post = t + o_send_[i];
  t = post + std::max<Time>(0, gap_[i] - o_send_[i]);
  return post;
}

// When a message's transfer starts: at its post (eager), once the matching receive is posted
// (`waits`), or after the rendezvous handshake's legs around the receive's posting.
Time Engine::transfer_start(const Step::Cost& c, Time post, Time recv_post, int legs) {
  if (c.rendezvous && legs > 0) return std::max(post + c.handshake * ((legs + 1) / 2), recv_post) + c.handshake * (legs / 2);
  if (c.waits) return std::max(post, recv_post);
  return post;
}

void Engine::prepare(const Step& s) const {
  if (s.prepared_for == id_) return;
  const std::size_t n = node_.size(), nm = s.msgs.size();
  if (nm >= (1u << 31)) throw std::logic_error("Engine: too many messages in one step");
  s.cost.resize(nm);
  s.senders.clear();
  for (std::size_t i = 0; i < nm; ++i) {
    const Msg& msg = s.msgs[i];
    if (msg.src < 0 || msg.dst < 0 || static_cast<std::size_t>(msg.src) >= n || static_cast<std::size_t>(msg.dst) >= n)
      throw std::logic_error("Engine: endpoint out of range");
    if (i > 0 && msg.src < s.msgs[i - 1].src) throw std::logic_error("Engine: messages not grouped by sender");
    if (i == 0 || msg.src != s.msgs[i - 1].src) s.senders.push_back({static_cast<std::uint32_t>(i), 0, msg.src, false, 0});
    s.senders.back().end = static_cast<std::uint32_t>(i + 1);
    s.cost[i] = message_cost(msg);
  }
  if (!serial_) prepare_flows(s);
  // The senders' first messages, grouped by the sender's node (stable: node, then src order).
  s.node_groups.assign(static_cast<std::size_t>(nnodes_) + 1, 0);
  for (const auto& g : s.senders) ++s.node_groups[static_cast<std::size_t>(node_[g.src]) + 1];
  for (std::size_t k = 0; k < static_cast<std::size_t>(nnodes_); ++k) s.node_groups[k + 1] += s.node_groups[k];
  s.group_first.resize(s.senders.size());
  std::vector<std::uint32_t> fill(s.node_groups.begin(), s.node_groups.end() - 1);
  for (const auto& g : s.senders) s.group_first[fill[static_cast<std::size_t>(node_[g.src])]++] = g.first;
  s.prepared_for = id_;
}

// One message's costs: its latency and wire time on its tier and protocol, its handshake, its
// time through the NIC, and whether it waits for its receive.
Step::Cost Engine::message_cost(const Msg& msg) const {
  const int d = msg.device ? 1 : 0, k = static_cast<int>(msg.tier);
  const int p = static_cast<int>(m_.proto_of(msg.bytes));
  const auto bytes = static_cast<double>(msg.bytes);
  Step::Cost c{};
  c.alpha = alpha_[d][k][p];
  double wire = beta_[d][k][p] * bytes;
  // The backend's wire factor (fitted on host messages; device ones keep the wire's) on a host
  // message beyond `beyond` bytes: on what its bytes cost beyond one of `beyond` (on its tier,
  // each in its protocol), and where it is a rendezvous and that one is not, on its latency beyond
  // the eager one's (with calibrate's handshake_legs 0, the handshake, which an exchange both ways
  // overlaps and a ping-pong waits for). Only an excess is scaled: a message never costs more for
  // it.
  if (const std::int64_t beyond = m_.wire_factor_beyond; wire_factor_ != 1 && d == 0 && msg.bytes > beyond) {
    const int p0 = static_cast<int>(m_.proto_of(beyond)), eager = static_cast<int>(Proto::eager);
    const double w0 = beta_[d][k][p0] * static_cast<double>(beyond);
    if (wire > w0) wire = w0 + wire_factor_ * (wire - w0);
    const auto a0 = static_cast<double>(alpha_[d][k][eager]), a = static_cast<double>(c.alpha);
    if (p == static_cast<int>(Proto::rendezvous) && p0 != p && a > a0) c.alpha = static_cast<Time>(std::llround(a0 + wire_factor_ * (a - a0)));
  }
  c.handshake = p == 2 && m_.handshake_legs > 0 ? alpha_[0][k][0] : 0;
  if (msg.load_store) c.alpha = 0, c.handshake = 0;
  // Between two ranks of one core: the mates' share of its latency, bytes and handshake
  // (MachineModel::CoreSharing).
  if (msg.mate) {
    const double f = m_.core_sharing.mate_factor;
    for (Time* t : {&c.alpha, &c.handshake}) *t = static_cast<Time>(std::llround(static_cast<double>(*t) * f));
    wire *= f;
  }
  c.wire = static_cast<Time>(std::llround(wire));
  c.inject = nic_ && k == 2 && !msg.device ? static_cast<Time>(std::llround(inj_beta_ * bytes)) : -1;
  c.rendezvous = p == 2;
  c.waits = p == 2 || m_.eager_waits_for_receive;
  c.work_link = wire;
  c.work_nic = c.inject >= 0 ? inj_beta_ * bytes : 0;
  return c;
}

// The flow engine's part of a step: a node's NIC can only limit its flows when its sending links
// together can exceed it (senders x link rate > NIC rate, as in the study's max(ppn*s/R_N,
// s*beta)); otherwise its flows skip the NIC. Then the CSR sizes of every resource's flow list
// (send links, receive links, NICs), which only the order within each list changes between runs,
// and each message's route through them.
void Engine::prepare_flows(const Step& s) const {
  const std::size_t n = node_.size(), nm = s.msgs.size();
  std::vector<std::uint32_t> senders(static_cast<std::size_t>(nnodes_), 0);
  std::vector<double> min_beta(static_cast<std::size_t>(nnodes_), std::numeric_limits<double>::infinity());
  for (std::size_t i = 0; i < nm; ++i) {
    if (s.cost[i].work_nic <= 0) continue;
    const auto k = static_cast<std::size_t>(node_[s.msgs[i].src]);
    if (i == 0 || s.msgs[i - 1].src != s.msgs[i].src || s.cost[i - 1].work_nic <= 0) ++senders[k];
    min_beta[k] = std::min(min_beta[k], s.cost[i].work_link / static_cast<double>(s.msgs[i].bytes));
  }
  for (std::size_t i = 0; i < nm; ++i) {
    const auto k = static_cast<std::size_t>(node_[s.msgs[i].src]);
    if (s.cost[i].work_nic > 0 && static_cast<double>(senders[k]) * inj_beta_ <= min_beta[k]) s.cost[i].work_nic = 0;
  }
  const std::size_t nres = 2 * n + static_cast<std::size_t>(nnodes_);
  s.res_off.assign(nres + 1, 0);
  for (std::size_t i = 0; i < nm; ++i) {
    const Msg& msg = s.msgs[i];
    ++s.res_off[static_cast<std::size_t>(msg.src) + 1];
    ++s.res_off[n + static_cast<std::size_t>(msg.dst) + 1];
    if (s.cost[i].work_nic > 0) ++s.res_off[2 * n + static_cast<std::size_t>(node_[msg.src]) + 1];
  }
  for (std::size_t r = 0; r < nres; ++r) s.res_off[r + 1] += s.res_off[r];
  s.route.resize(nm);
  for (std::size_t i = 0; i < nm; ++i) {
    const Msg& msg = s.msgs[i];
    const auto& c = s.cost[i];
    s.route[i] = {static_cast<std::uint32_t>(n + static_cast<std::size_t>(msg.dst)),
                  c.work_nic > 0 ? static_cast<std::uint32_t>(2 * n + static_cast<std::size_t>(node_[msg.src])) : UINT32_MAX, c.work_link,
                  c.work_nic};
  }
  prepare_send_links(s);
}

// A send link's flows are its sender's messages. Their activations relative to the sender's start
// are fixed unless a message waited for its receiver (`send_rel`: the activation had it not
// waited); then, on a link idle when they arrive, so are their departures: the first run records
// them (`send_off`), later runs of the step replay them. Per sender: whether any of its messages
// waits, and when its CPU posts the last. When all of a sender's messages arrive together (one
// activation, or all queued behind earlier data), its link shares them as one batch, whose
// departures only the works decide: sorted once here, not per run.
void Engine::prepare_send_links(const Step& s) const {
  const std::size_t n = node_.size(), nm = s.msgs.size();
  s.send_rel.resize(nm);
  for (auto& g : s.senders) {
    Time t = 0;
    for (auto i = g.first; i < g.end; ++i) {
      const auto& c = s.cost[i];
      const Time post = next_post(t, s.msgs[i].tier);
      s.send_rel[i] = transfer_start(c, post, std::numeric_limits<Time>::min(), m_.handshake_legs) + c.alpha;
      g.waits = g.waits || c.waits;
      g.cpu_rel = post;
    }
  }
  s.send_off.assign(nm, 0);
  s.send_known.assign(n, 0);
  s.send_batch.resize(nm);
  std::vector<std::pair<double, std::uint32_t>> by_work;
  for (const auto& g : s.senders) {
    by_work.clear();
    for (auto e = g.first; e < g.end; ++e) by_work.push_back({s.cost[e].work_link, e});
    std::sort(by_work.begin(), by_work.end());
    const std::size_t b = by_work.size();
    double sum = 0, at = 0;
    for (std::size_t q = 0; q < b; ++q) {
      if (q == 0 || by_work[q].first != by_work[q - 1].first) at = sum + static_cast<double>(b - q) * by_work[q].first;
      sum += by_work[q].first;
      s.send_batch[by_work[q].second] = at;
    }
  }
}

void Engine::run(const Step& s, std::vector<Time>& ready, Accum& acc, Timeline* tl) {
  const std::size_t n = node_.size();
  if (ready.size() != n) throw std::logic_error("Engine::run: ready has the wrong size");
  prepare(s);
  if (s.barrier_before) {
    Time t = 0;
    for (Time r : ready) t = std::max(t, r);
    for (std::size_t e = 0; e < n; ++e) {
      if (tl) tl->add(static_cast<std::int32_t>(e), ready[e], t + s.barrier_cost, Timeline::fence);
      acc.sync[e] += s.barrier_cost;
      ready[e] = t + s.barrier_cost;
    }
  }
  for (std::size_t e = 0; e < n; ++e) {
    const Time pre = s.pre.empty() ? 0 : s.pre[e];
    if (!s.copy.empty()) acc.copies[e] += s.copy[e];
    if (!s.sync.empty()) acc.sync[e] += s.sync[e];
    if (!s.extra_latency.empty()) acc.latency[e] += s.extra_latency[e];
    if (tl && pre > 0) tl->add(static_cast<std::int32_t>(e), ready[e], ready[e] + pre, Timeline::pre);
    start_[e] = send_free_[e] = recv_free_[e] = ready[e] + pre;
  }
  if (serial_)
    run_serial(s, acc, tl);
  else
    run_flows(s, acc, tl);
  for (std::size_t e = 0; e < n; ++e) {
    const Time done = std::max({start_[e] + (s.mid.empty() ? 0 : s.mid[e]), send_free_[e], recv_free_[e]});
    const Time post = s.post.empty() ? 0 : s.post[e];
    if (tl && post > 0) tl->add(static_cast<std::int32_t>(e), done, done + post, Timeline::post);
    ready[e] = done + post;
  }
}

// ---- the study's serial forms -------------------------------------------------------------------
void Engine::run_serial(const Step& s, Accum& acc, Timeline* tl) {
  const std::size_t nm = s.msgs.size();
  act_.resize(nm);  // arrival times, in arrival-sequence order
  inbox_.resize(nm);
  std::uint32_t aseq = 0;
  const int legs = m_.handshake_legs;

  // Phase 1: senders, node by node; a tournament over the node's senders (one slot each) orders
  // their events by (time, sequence).
  for (std::int32_t node = 0; node < nnodes_; ++node) {
    const auto g0 = s.node_groups[static_cast<std::size_t>(node)], g1 = s.node_groups[static_cast<std::size_t>(node) + 1];
    if (g0 == g1) continue;
    const std::size_t k = g1 - g0;
    next_msg_.resize(k);
    keys_init_.resize(k);
    for (std::size_t g = 0; g < k; ++g) {
      next_msg_[g] = s.group_first[g0 + g];
      keys_init_[g] = {static_cast<std::uint64_t>(start_[s.msgs[next_msg_[g]].src]), g};
    }
    tree_.reset(keys_init_.data(), k);
    std::uint64_t seq = k;
    Time nic = 0;  // the node's NIC: next free time
    while (!tree_.empty()) {
      const std::uint32_t slot = tree_.top();
      const std::uint32_t i = next_msg_[slot];
      const Msg& msg = s.msgs[i];
      const auto& c = s.cost[i];
      const auto t = static_cast<Time>(tree_.top_key().hi);
      if (c.handshake > 0) {  // rendezvous: RTS posted at step start, CTS once the receive is posted
        const Time rts = start_[msg.src] + c.handshake * ((legs + 1) / 2);
        const Time cts = std::max(rts, start_[msg.dst]) + c.handshake * (legs / 2);
        if (cts > t) {
          tree_.replace_top({static_cast<std::uint64_t>(cts), seq++});  // the port waits for the handshake
          continue;
        }
      }
      ++messages_;
      // The sender is busy alpha + beta*s per message (m messages: m*alpha + s*beta).
      Time leave = t + c.alpha + c.wire;
      if (c.inject >= 0) {
        // Max-rate: after the latency the bytes also pass the node's NIC at R_N, first come first
        // served; the sender waits until they are injected (alpha*m + max(ppn*s/R_N, s*beta)).
        const Time nic_end = std::max(t + c.alpha, nic) + c.inject;
        nic = nic_end;
        if (nic_end > leave) {
          acc.injection[msg.src] += nic_end - leave;
          leave = nic_end;
        }
      }
      acc.latency[msg.src] += c.alpha;
      acc.bandwidth[msg.src] += c.wire;
      send_free_[msg.src] = std::max(send_free_[msg.src], leave);
      if (tl) tl->add(msg.src, t, leave, Timeline::send, msg.dst, msg.bytes);
      act_[aseq] = leave;
      inbox_[aseq++] = {c.wire, msg.dst, i};
      if (i + 1 < nm && s.msgs[i + 1].src == msg.src) {
        next_msg_[slot] = i + 1;
        tree_.replace_top({static_cast<std::uint64_t>(leave), seq++});
        // The sender's next message comes up after the node's other senders: fetch its costs now
        // (with many senders per node, their interleaved streams defeat the hardware prefetcher).
        prefetch_range(&s.cost[i + 1], 4 * sizeof(Time));
        if (i + 2 < nm) __builtin_prefetch(&s.msgs[i + 2]);
      } else {
        tree_.replace_top({LoserTree::kNone, LoserTree::kNone});
      }
    }
  }
  // Phase 2: every receiver's stream takes its arrivals in (time, sequence) order: one stable
  // radix sort of all arrivals by time (they are in sequence order), then one pass.
  sort_by_time(act_.data(), nm);
  for (std::size_t j = 0; j < nm; ++j) {
    const Arrival& a = inbox_[order_[j]];
    const auto e = static_cast<std::size_t>(a.dst);
    const Time free = std::max(sorted_act_[j], recv_free_[e] + a.wire);
    recv_free_[e] = free;
    if (tl) tl->add(a.dst, free - a.wire, free, Timeline::recv, s.msgs[a.msg].src, s.msgs[a.msg].bytes);
  }
}

// ---- the flow engine ------------------------------------------------------------------------------
namespace {
constexpr std::uint32_t kNil = UINT32_MAX;
// Resource kinds, as recorded in done_: which resource finished a flow last.
constexpr std::uint8_t kLink = 1, kNic = 2;
// How a send link is evaluated in a run: swept in activation order, done in message order from
// known departures, or swept while its departures are recorded.
constexpr std::uint8_t kSweep = 0, kDirect = 1, kRecord = 2;
}  // namespace

namespace {
// Sorts entries by f: insertion sort for small runs (batches are mostly small), else std::sort.
template <class Entry>
void sort_by_f(Entry* e, std::size_t b) {
  auto less = [](const Entry& x, const Entry& y) { return x.f < y.f; };
  if (b > 24) {
    std::sort(e, e + b, less);
    return;
  }
  for (std::size_t q = 1; q < b; ++q) {
    const Entry x = e[q];
    std::size_t r = q;
    for (; r > 0 && less(x, e[r - 1]); --r) e[r] = e[r - 1];
    e[r] = x;
  }
}

// Processor sharing of b flows arriving together at an idle resource at time a: sorted by work
// w_0 <= w_1 <= ..., flow q leaves at a + (w_0 + ... + w_{q-1}) + (b - q) w_q (flows of equal work
// leave together), the last at a + the sum of all works (the resource never idles); b equal works
// all leave at a + b*w. Returns false, doing nothing, when the last would leave after `next` (the
// next arrival), before sorting anything.
template <class Entry, class Item, class Leave>
bool batch_closed_form(const Item* items, std::size_t b, double a, double next, std::vector<Entry>& sorted, double& last, Leave&& leave) {
  bool equal = true;
  double total = 0;
  for (std::size_t q = 0; q < b; ++q) total += items[q].work, equal = equal && items[q].work == items[0].work;
  if (equal) {
    last = a + static_cast<double>(b) * items[0].work;
    if (next < last) return false;
    for (std::size_t q = 0; q < b; ++q) leave(items[q].msg, last);
    return true;
  }
  if (next < a + total) return false;
  // A resource sees few distinct works (message sizes): then, for large batches, counts per work
  // replace the sort (the same sums, added in the same order).
  constexpr std::size_t kMaxWorks = 8;
  double wv[kMaxWorks], at_w[kMaxWorks];
  std::size_t cnt[kMaxWorks], nw = 0;
  auto find = [&](double w) {
    std::size_t c = 0;
    while (c < nw && wv[c] != w) ++c;
    return c;
  };
  std::size_t q = b <= 24 ? b + 1 : 0;  // small batches: the insertion sort below is cheaper
  for (; q < b; ++q) {
    const std::size_t c = find(items[q].work);
    if (c == nw) {
      if (nw == kMaxWorks) break;
      wv[nw] = items[q].work, cnt[nw++] = 0;
    }
    ++cnt[c];
  }
  if (q == b) {
    for (std::size_t c = 1; c < nw; ++c)  // by work
      for (std::size_t r = c; r > 0 && wv[r] < wv[r - 1]; --r) std::swap(wv[r], wv[r - 1]), std::swap(cnt[r], cnt[r - 1]);
    double sum = 0;
    std::size_t before = 0;
    for (std::size_t c = 0; c < nw; ++c) {
      at_w[c] = a + sum + static_cast<double>(b - before) * wv[c];
      for (std::size_t r = 0; r < cnt[c]; ++r) sum += wv[c];
      before += cnt[c];
    }
    for (q = 0; q < b; ++q) leave(items[q].msg, at_w[find(items[q].work)]);
    last = at_w[nw - 1];
    return true;
  }
  sorted.resize(b);
  for (std::size_t q = 0; q < b; ++q) sorted[q] = {items[q].work, items[q].msg};
  sort_by_f(sorted.data(), b);
  double sum = 0, at = a;
  for (std::size_t q = 0; q < b; ++q) {
    if (q == 0 || sorted[q].f != sorted[q - 1].f) at = a + sum + static_cast<double>(b - q) * sorted[q].f;
    sum += sorted[q].f;
    leave(sorted[q].msg, at);
  }
  last = at;
  return true;
}
}  // namespace

// The active flows of a processor-sharing resource, ordered by virtual finish time f.
//  - SortedQueue: one vector sorted by f, read from `head` (any mix of works).
//  - ClassQueues: one FIFO per distinct work w. A flow arriving at virtual time V0 finishes at
//    V0 + w and V only grows, so within a class finish times follow arrival order; the next to
//    leave is the least of the class heads (a resource sees few distinct works: message sizes).
//    Ties in f need no order (in either queue): flows that finish together leave at the same time.
struct Engine::SortedQueue {
  std::vector<PsEntry>& h;
  std::size_t head = 0;
  static bool before(const PsEntry& x, const PsEntry& y) { return x.f < y.f; }  // ties leave together
  void reset() { h.clear(), head = 0; }
  bool empty() const { return head == h.size(); }
  std::size_t size() const { return h.size() - head; }
  const PsEntry& top() { return h[head]; }
  void pop() {
    if (++head == h.size()) reset();
  }
  void push(const PsEntry& e, double /*work*/) {
    // A new flow's finish time is usually among the last (V only grows): scan from the back.
    if (empty() || !before(e, h.back())) {
      h.push_back(e);
      return;
    }
    // Before the last: shift the later ones up by one, from the back (queues are mostly short);
    // far from the back, a binary search and one move.
    h.push_back(h.back());
    const std::size_t last = h.size() - 2;
    std::size_t r = last;
    for (; r > head && last - r < 32 && before(e, h[r - 1]); --r) h[r] = h[r - 1];
    if (r > head && before(e, h[r - 1])) {
      const auto at =
          std::upper_bound(h.begin() + static_cast<std::ptrdiff_t>(head), h.begin() + static_cast<std::ptrdiff_t>(r), e, before);
      std::move_backward(at, h.begin() + static_cast<std::ptrdiff_t>(r), h.begin() + static_cast<std::ptrdiff_t>(r) + 1);
      r = static_cast<std::size_t>(at - h.begin());
    }
    h[r] = e;
  }
  // Flows arriving together: sorted among themselves, then one merge from the back (O(size + b)
  // instead of b insertions).
  void push_batch(const ResItem* items, std::size_t b, double v) {
    const std::size_t old = h.size();
    h.resize(old + b);
    PsEntry* nb = h.data() + old;
    for (std::size_t q = 0; q < b; ++q) nb[q] = {v + items[q].work, items[q].msg};
    sort_by_f(nb, b);
    if (old == head || !before(nb[0], h[old - 1])) return;
    // Merge [head, old) and [old, old + b) in place: the batch is copied out, then both runs are
    // merged from their ends into the end of the vector.
    tmp.assign(nb, nb + b);
    std::size_t x = old, y = b, out = old + b;
    while (y > 0) {
      if (x > head && before(tmp[y - 1], h[x - 1]))
        h[--out] = h[--x];
      else
        h[--out] = tmp[--y];
    }
  }
  std::vector<PsEntry>& tmp;
};

struct Engine::ClassQueues {
  std::vector<FlowClass>& cls;
  std::size_t nclasses = 0, n = 0;
  // The non-empty classes in a binary heap by their head's finish time (at most kMaxClasses).
  std::uint8_t heap[16] = {};
  std::size_t hn = 0;
  double key(std::size_t h) const { return cls[heap[h]].q[cls[heap[h]].head].f; }
  void sift_down(std::size_t h) {
    const std::uint8_t c = heap[h];
    const double f = key(h);
    for (;;) {
      std::size_t l = 2 * h + 1;
      if (l >= hn) break;
      if (l + 1 < hn && key(l + 1) < key(l)) ++l;
      if (!(key(l) < f)) break;
      heap[h] = heap[l];
      h = l;
    }
    heap[h] = c;
  }
  void reset() {
    for (std::size_t c = 0; c < nclasses; ++c) cls[c].q.clear(), cls[c].head = 0;
    n = 0, hn = 0;
  }
  bool empty() const { return n == 0; }
  std::size_t size() const { return n; }
  const PsEntry& top() const { return cls[heap[0]].q[cls[heap[0]].head]; }
  void pop() {
    auto& x = cls[heap[0]];
    if (++x.head == x.q.size()) x.q.clear(), x.head = 0, heap[0] = heap[--hn];
    if (hn > 0) sift_down(0);
    --n;
  }
  void push(const PsEntry& e, double work) {
    std::size_t c = 0;
    while (cls[c].w != work) ++c;  // every work of the resource has a class (set up by share)
    auto& x = cls[c];
    x.q.push_back(e);
    ++n;
    if (x.q.size() - x.head > 1) return;  // the class's head (its earliest finish) is unchanged
    std::size_t h = hn++;                 // a class becomes non-empty: sift it up
    for (; h > 0 && e.f < key((h - 1) / 2); h = (h - 1) / 2) heap[h] = heap[(h - 1) / 2];
    heap[h] = static_cast<std::uint8_t>(c);
  }
  void push_batch(const ResItem* items, std::size_t b, double v) {
    for (std::size_t q = 0; q < b; ++q) push({v + items[q].work, items[q].msg}, items[q].work);
  }
};

// Processor sharing at one resource: the flows of `items` (message indices, in activation order)
// each need `work` picoseconds of the resource alone; n active flows progress at 1/n each. Virtual
// time V advances at 1/n; a flow arriving at V0 leaves when V reaches V0 + work. Raises each
// flow's completion to the time it leaves this resource (`kind` records which resource finished it
// last). Flows that find the resource idle and leave before the next arrival, and batches that
// arrive together at an idle resource and leave before the next arrival, are done in closed form;
// the rest go through a queue of active flows (per-work FIFOs when there are few distinct works).
void Engine::share(const ResItem* items, std::size_t k, std::uint8_t kind, Time& busy_until, const SendCache* sc) {
  // Per-work FIFOs pay off where many flows are active at once (a node's NIC, shared by all its
  // senders); a link's few active flows are cheaper in one sorted vector.
  constexpr std::size_t kMaxClasses = 8;
  std::size_t nc = kind == kNic ? 0 : kMaxClasses + 1;
  for (std::size_t j = 0; j < k && nc <= kMaxClasses; ++j) {
    const double w = items[j].work;
    std::size_t c = 0;
    while (c < nc && classes_[c].w != w) ++c;
    if (c == nc) {
      if (nc == classes_.size()) classes_.emplace_back();
      classes_[nc++].w = w;
    }
  }
  if (nc <= kMaxClasses) {
    ClassQueues q{classes_, nc};
    q.reset();
    share_with(q, items, k, kind, busy_until, sc);
  } else {
    SortedQueue q{ps_heap_, 0, batch_};
    q.reset();
    share_with(q, items, k, kind, busy_until, sc);
  }
}

template <class Queue>
void Engine::share_with(Queue& q, const ResItem* items, std::size_t k, std::uint8_t kind, Time& busy_until, const SendCache* sc) {
  double t = 0, v = 0, end = 0, batch_last = 0;
  double* const record = sc ? sc->off : nullptr;
  const double base = sc ? sc->base : 0;
  auto leave = [&](std::uint32_t i, double at) {
    if (record) record[i] = at - base;
    const auto tc = static_cast<Time>(at + 0.5);  // times are never negative
    end = std::max(end, at);
    raise_done(i, tc, kind);
  };
  // Completes every flow that leaves before `until`.
  auto drain = [&](double until) {
    while (!q.empty()) {
      const PsEntry& e = q.top();
      const double tc = t + (e.f - v) * static_cast<double>(q.size());
      if (tc > until) return;
      t = tc;
      v = e.f;
      leave(e.msg, tc);
      q.pop();
    }
  };
  // Data of earlier steps still on this resource goes first: arrivals before `busy_until` wait
  // for it (order is kept: a max with a constant).
  const Time free = busy_until;
  // One pass over the batches of flows arriving together (items are in activation order, so a
  // batch is a run of items whose activation is at most its arrival time).
  constexpr double kNever = std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < k;) {
    const Time at = std::max(items[j].act, free);
    std::size_t z = j + 1;
    while (z < k && items[z].act <= at) ++z;
    const auto a = static_cast<double>(at);
    const double next = z == k ? kNever : static_cast<double>(items[z].act);
    drain(a);
    if (q.empty()) {
      // Idle resource: a flow alone from arrival to departure (the common case for small
      // messages) leaves at arrival + work; a batch shares it in closed form when it is done
      // before the next arrival.
      if (z == j + 1) {
        const double last = a + items[j].work;
        if (last <= next) {
          leave(items[j].msg, last);
          t = last;
          j = z;
          continue;
        }
      } else if (batch_closed_form(items + j, z - j, a, next, batch_, batch_last, leave)) {
        t = batch_last;
        j = z;
        continue;
      }
      v = 0;
    } else {
      v += (a - t) / static_cast<double>(q.size());
    }
    t = a;
    // Every flow arriving at `a` joins at the same virtual time.
    if (z == j + 1)
      q.push({v + items[j].work, items[j].msg}, items[j].work);
    else
      q.push_batch(items + j, z - j, v);
    j = z;
  }
  drain(std::numeric_limits<double>::infinity());
  busy_until = std::max(busy_until, static_cast<Time>(end + 0.5));
}

// order_ = indices of t[0..nm) by (time, index), sorted_act_ = their times: a stable LSD radix
// sort on the offsets from the earliest time, 11 bits a pass, only as many passes as the span needs.
// When offset and index fit in 64 bits together, the keys carry the index (offset << bits | i):
// the passes then read their digits in sequence, and all histograms come from one read.
void Engine::sort_by_time(const Time* act, std::size_t nm) {
  order_.resize(nm);
  if (nm == 0) return;
  Time lo = act[0], hi = act[0];
  for (std::size_t i = 0; i < nm; ++i) lo = std::min(lo, act[i]), hi = std::max(hi, act[i]);
  const auto span = static_cast<std::uint64_t>(hi - lo);
  constexpr int kBits = 11;
  constexpr std::size_t kBuckets = std::size_t{1} << kBits;
  auto width = [](std::uint64_t x) { return x == 0 ? 0 : 64 - __builtin_clzll(x); };
  const int ibits = std::max(1, width(nm - 1)), tbits = width(span);
  if (ibits + tbits <= 64) {
    keys_.resize(nm);
    keys_tmp_.resize(nm);
    const int passes = (tbits + kBits - 1) / kBits;
    for (std::size_t i = 0; i < nm; ++i) keys_[i] = (static_cast<std::uint64_t>(act[i] - lo) << ibits) | i;
    if (passes > 0) {
      count_.assign(static_cast<std::size_t>(passes) * kBuckets, 0);
      for (const auto key : keys_)
        for (int p = 0; p < passes; ++p) ++count_[static_cast<std::size_t>(p) * kBuckets + ((key >> (ibits + p * kBits)) & (kBuckets - 1))];
      for (int p = 0; p < passes; ++p) {
        std::uint32_t* count = count_.data() + static_cast<std::size_t>(p) * kBuckets;
        std::uint32_t sum = 0;
        for (std::size_t b = 0; b < kBuckets; ++b) {
          const auto x = count[b];
          count[b] = sum;
          sum += x;
        }
        const int shift = ibits + p * kBits;
        for (const auto key : keys_) keys_tmp_[count[(key >> shift) & (kBuckets - 1)]++] = key;
        keys_.swap(keys_tmp_);
      }
    }
    const std::uint64_t mask = (std::uint64_t{1} << ibits) - 1;
    sorted_act_.resize(nm);
    for (std::size_t j = 0; j < nm; ++j) {
      order_[j] = static_cast<std::uint32_t>(keys_[j] & mask);
      sorted_act_[j] = lo + static_cast<Time>(keys_[j] >> ibits);
    }
    return;
  }
  order_tmp_.resize(nm);
  for (std::size_t i = 0; i < nm; ++i) order_[i] = static_cast<std::uint32_t>(i);
  std::uint32_t count[kBuckets];
  for (int shift = 0; shift < 64 && (span >> shift) != 0; shift += kBits) {
    std::fill(std::begin(count), std::end(count), 0);
    auto digit = [&](std::uint32_t i) {
      return static_cast<std::size_t>((static_cast<std::uint64_t>(act[i] - lo) >> shift) & (kBuckets - 1));
    };
    for (auto i : order_) ++count[digit(i)];
    std::uint32_t sum = 0;
    for (auto& c : count) {
      const auto x = c;
      c = sum;
      sum += x;
    }
    for (auto i : order_) order_tmp_[count[digit(i)]++] = i;
    order_.swap(order_tmp_);
  }
  sorted_act_.resize(nm);
  for (std::size_t j = 0; j < nm; ++j) sorted_act_[j] = act[order_[j]];
}

// The flow engine: every message a flow through its resources (its sender's link, its receiver's
// link, a NIC where it leaves the node), bandwidth shared at each; the steps below in order.
void Engine::run_flows(const Step& s, Accum& acc, Timeline* tl) {
  const std::size_t nm = s.msgs.size();
  act_.resize(nm);
  done_.resize(nm);
  cpu_end_.assign(start_.begin(), start_.end());
  if (busy_.size() < s.res_off.size() - 1) busy_.resize(s.res_off.size() - 1, 0);
  // 1. Posts and activations, per sender.
  send_mode_.assign(node_.size(), kSweep);
  run_first_.clear(), run_act_.clear(), run_src_.clear();
  for (const auto& g : s.senders) post_sender(s, g);
  messages_ += nm;
  run_first_.push_back(static_cast<std::uint32_t>(nm));
  sort_by_time(run_act_.data(), run_act_.size());
  // 2. Every resource but the receive links.
  share_resources(s);
  // 3. Receive links, and the send sides of rendezvous messages.
  receive(s);
  complete_sends(s, tl);
  // 4. What finished each endpoint.
  attribute(s, acc);
}

// One sender's posts (its CPU: o_send each, at least g apart) and its messages' activations
// (transfer start after the handshake or the matching receive, then the wire latency). Receives
// are posted at the receiver's start. A send link whose departures are known (its flows all arrive
// together, or in the recorded pattern on an idle link) is done here, in message order: it needs
// no sorted flow list. Runs of consecutive messages with one activation (a sender's messages of
// one tier and protocol) are sorted as one: (activation, index) order is the runs' order, expanded.
void Engine::post_sender(const Step& s, const Step::Sender& g) {
  const auto e = static_cast<std::size_t>(g.src);
  const Time t0 = start_[e];
  Time lo = std::numeric_limits<Time>::max(), hi = 0;
  bool fixed = true;  // every activation as recorded relative to the sender's start
  auto activate = [&](std::uint32_t i, Time act) {
    if (i == g.first || act != act_[i - 1]) run_first_.push_back(i), run_act_.push_back(act), run_src_.push_back(g.src);
    act_[i] = act;
    done_[i] = act << 2;
    lo = std::min(lo, act), hi = std::max(hi, act);
  };
  if (!g.waits) {  // no message waits for its receiver: activations at fixed offsets
    for (auto i = g.first; i < g.end; ++i) activate(i, t0 + s.send_rel[i]);
  } else {
    Time t = t0;
    for (auto i = g.first; i < g.end; ++i) {
      const auto& c = s.cost[i];
      const Time post = next_post(t, s.msgs[i].tier);
      const Time act = transfer_start(c, post, start_[s.msgs[i].dst], m_.handshake_legs) + c.alpha;
      activate(i, act);
      fixed = fixed && act == t0 + s.send_rel[i];
    }
  }
  cpu_end_[e] = t0 + g.cpu_rel;  // its last post: every eager send has completed by then
  send_free_[e] = std::max(send_free_[e], cpu_end_[e]);
  const Time first = std::max(lo, busy_[e]);
  const double* off = nullptr;
  double base = 0;
  if (hi <= first)  // all arrive together: a batch, whose departures only the works decide
    off = s.send_batch.data(), base = static_cast<double>(first);
  else if (busy_[e] <= lo && fixed && s.send_known[e])  // idle at the first arrival, as recorded
    off = s.send_off.data(), base = static_cast<double>(t0);
  if (!off) {
    if (busy_[e] <= lo && fixed) send_mode_[e] = kRecord;  // idle at the first arrival: record
    return;
  }
  send_mode_[e] = kDirect;
  double end = 0;
  for (auto q = g.first; q < g.end; ++q) {
    const double at = base + off[q];
    end = std::max(end, at);
    raise_done(q, static_cast<Time>(at + 0.5), kLink);
  }
  busy_[e] = std::max(busy_[e], static_cast<Time>(end + 0.5));
}

// Every resource's flows in activation order (CSR: send links, receive links, NICs); processor
// sharing at each but the receive links (receive does them): a flow completes when it has left
// all of its resources.
void Engine::share_resources(const Step& s) {
  const std::size_t n = node_.size(), nres = s.res_off.size() - 1;
  const auto& res_off = s.res_off;
  res_items_.resize(res_off[nres]);
  res_fill_.assign(res_off.begin(), res_off.end() - 1);
  for (std::size_t j = 0; j < run_act_.size(); ++j) {
    const Time a = sorted_act_[j];
    const auto run = order_[j];
    const auto src = static_cast<std::size_t>(run_src_[run]);
    const bool send = send_mode_[src] != kDirect;
    for (auto i = run_first_[run]; i < run_first_[run + 1]; ++i) {
      const auto& rt = s.route[i];
      if (send) res_items_[res_fill_[src]++] = {a, rt.work_link, i};
      res_items_[res_fill_[rt.recv]++] = {a, rt.work_link, i};
      if (rt.nic != UINT32_MAX) res_items_[res_fill_[rt.nic]++] = {a, rt.work_nic, i};
    }
  }
  for (std::size_t r = 0; r < n; ++r)
    if (res_off[r] != res_off[r + 1] && send_mode_[r] != kDirect) share_resource(s, r);
  for (std::size_t r = 2 * n; r < nres; ++r)
    if (res_off[r] != res_off[r + 1]) share_resource(s, r);
}

// Processor sharing at resource r (a send link being recorded gives its departures to later steps).
void Engine::share_resource(const Step& s, std::size_t r) {
  const std::size_t n = node_.size();
  const auto b = s.res_off[r], z = s.res_off[r + 1];
  SendCache sc{}, *use = nullptr;
  if (r < n && send_mode_[r] == kRecord) sc = {s.send_off.data(), static_cast<double>(start_[r])}, use = &sc, s.send_known[r] = 1;
  share(res_items_.data() + b, z - b, r < 2 * n ? kLink : kNic, busy_[r], use);
}

// Receive links last: their flows are complete once the link is evaluated (the latest of all
// their resources), and the receiver's CPU takes them (o_recv each, in completion order).
void Engine::receive(const Step& s) {
  const std::size_t n = node_.size();
  const bool by_completion = !s.one_sided && (o_recv_[0] > 0 || o_recv_[1] > 0 || o_recv_[2] > 0);  // the CPU's order
  crit_msg_.assign(2 * n, kNil);
  recv_spent_.assign(n, 0);
  for (std::size_t e = 0; e < n; ++e) {
    const auto b = s.res_off[n + e], z = s.res_off[n + e + 1];
    if (b == z) continue;
    share_resource(s, n + e);
    auto* first = res_items_.data() + b;
    if (by_completion)
      std::sort(first, first + (z - b), [&](const ResItem& x, const ResItem& y) {
        return done_time(x.msg) != done_time(y.msg) ? done_time(x.msg) < done_time(y.msg) : x.msg < y.msg;
      });
    Time free = recv_free_[e], crit_t = 0, spent = 0;
    std::uint32_t crit = kNil;
    for (auto* it = first; it != first + (z - b); ++it) {
      const Time c = done_time(it->msg), o_recv = recv_cpu(s, it->msg);
      if (crit == kNil || c >= crit_t) crit = it->msg, crit_t = c;  // the last to complete
      free = std::max(free, c) + o_recv;
      spent += o_recv;
    }
    recv_free_[e] = free;
    recv_spent_[e] = spent;
    crit_msg_[e] = crit;
  }
}

// Rendezvous send sides: a send completes with its transfer (a rendezvous message waits); and
// the timeline's sends and receives.
void Engine::complete_sends(const Step& s, Timeline* tl) {
  const std::size_t n = node_.size();
  for (const auto& g : s.senders) {
    if (!g.waits && !tl) continue;
    const auto src = static_cast<std::size_t>(g.src);
    Time t = start_[src];
    for (auto i = g.first; i < g.end; ++i) {
      if (s.cost[i].rendezvous && done_time(i) >= send_free_[src]) send_free_[src] = done_time(i), crit_msg_[n + src] = i;
      const Time post = next_post(t, s.msgs[i].tier);
      if (tl) {
        const Msg& msg = s.msgs[i];
        tl->add(msg.src, post, done_time(i), Timeline::send, msg.dst, msg.bytes);
        tl->add(msg.dst, act_[i], done_time(i), Timeline::recv, msg.src, msg.bytes);
      }
    }
  }
}

// Attribution: what finished each endpoint (its receives, its rendezvous sends, or its CPU), and
// of its critical message the latency, the bandwidth alone, and the wait for a NIC or a link.
void Engine::attribute(const Step& s, Accum& acc) {
  const std::size_t n = node_.size();
  for (std::size_t e = 0; e < n; ++e) {
    std::uint32_t i = kNil;
    if (recv_free_[e] >= send_free_[e] && recv_free_[e] > start_[e]) {
      i = crit_msg_[e];
      acc.overhead[e] += recv_spent_[e];
    } else if (send_free_[e] > cpu_end_[e]) {
      i = crit_msg_[n + e];
    } else {
      acc.overhead[e] += cpu_end_[e] - start_[e];
    }
    if (i == kNil) continue;
    const auto& c = s.cost[i];
    const Time transfer = done_time(i) - act_[i];
    const Time alone = std::min(c.wire, transfer);
    acc.latency[e] += c.alpha + (c.rendezvous ? c.handshake * m_.handshake_legs : 0);
    acc.bandwidth[e] += alone;
    (done_by(i) == kNic ? acc.injection : acc.contention)[e] += transfer - alone;
  }
}

}  // namespace sfr::sim
