#include "sim/engine.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace sfr::sim {

Time to_ps(double seconds) { return static_cast<Time>(std::llround(seconds * 1e12)); }

Engine::Engine(const MachineModel& m, std::vector<std::int32_t> node, std::vector<std::int32_t> socket)
    : m_(m), node_(std::move(node)), socket_(std::move(socket)) {
  for (int d = 0; d < 2; ++d)
    for (int k = 0; k < 3; ++k)
      for (int p = 0; p < 3; ++p) {
        const auto& ab = m.ab(d != 0, static_cast<Tier>(k), static_cast<Proto>(p));
        alpha_[d][k][p] = to_ps(ab.alpha);
        beta_[d][k][p] = ab.beta * 1e12;
      }
  inj_beta_ = m.injection_beta * 1e12;
  o_send_ = m.model == ModelKind::loggp ? to_ps(m.o_send) : 0;
  o_recv_ = m.model == ModelKind::loggp ? to_ps(m.o_recv) : 0;
  gap_ = m.model == ModelKind::loggp ? to_ps(m.gap) : 0;
  for (auto n : node_) nnodes_ = std::max(nnodes_, n + 1);
  start_.resize(node_.size());
  send_free_.resize(node_.size());
  recv_free_.resize(node_.size());
}

namespace {
// (t, seq) order as one 128-bit comparison (times are never negative).
inline unsigned __int128 key(std::int64_t t, std::uint32_t seq) {
  return (static_cast<unsigned __int128>(static_cast<std::uint64_t>(t)) << 32) | seq;
}
}  // namespace

// Binary heap ordered by (t, seq): equal times leave in push order, so runs are bit-identical.
void Engine::push(Time t, std::uint32_t code) {
  heap_.push_back({t, seq_++, code});
  std::size_t i = heap_.size() - 1;
  const Ev e = heap_[i];
  while (i > 0) {
    const std::size_t p = (i - 1) / 2;
    const Ev& q = heap_[p];
    if (key(q.t, q.seq) < key(e.t, e.seq)) break;
    heap_[i] = q;
    i = p;
  }
  heap_[i] = e;
}

// Replaces the top event by (t, code) (a sender's next message) in one sift-down.
void Engine::replace_top(Time t, std::uint32_t code) {
  const Ev e{t, seq_++, code};
  sift_down(e);
}

void Engine::sift_down(const Ev e) {
  const std::size_t n = heap_.size();
  std::size_t i = 0;
  for (;;) {
    std::size_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && key(heap_[c + 1].t, heap_[c + 1].seq) < key(heap_[c].t, heap_[c].seq)) ++c;
    if (key(e.t, e.seq) < key(heap_[c].t, heap_[c].seq)) break;
    heap_[i] = heap_[c];
    i = c;
  }
  heap_[i] = e;
}

void Engine::pop() {
  const Ev last = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) sift_down(last);
}

void Engine::prepare(const Step& s) const {
  if (s.prepared_for == this) return;
  const std::size_t n = node_.size(), nm = s.msgs.size();
  if (nm >= (1u << 31)) throw std::logic_error("Engine: too many messages in one step");
  s.cost.resize(nm);
  const bool maxrate = m_.model == ModelKind::max_rate;
  for (std::size_t i = 0; i < nm; ++i) {
    const Msg& msg = s.msgs[i];
    if (msg.src < 0 || msg.dst < 0 || static_cast<std::size_t>(msg.src) >= n || static_cast<std::size_t>(msg.dst) >= n)
      throw std::logic_error("Engine: endpoint out of range");
    if (i > 0 && msg.src < s.msgs[i - 1].src) throw std::logic_error("Engine: messages not grouped by sender");
    const int d = msg.device ? 1 : 0, k = static_cast<int>(msg.tier);
    const int p = static_cast<int>(m_.proto_of(msg.bytes));
    const auto bytes = static_cast<double>(msg.bytes);
    auto& c = s.cost[i];
    c.alpha = alpha_[d][k][p];
    c.wire = static_cast<Time>(std::llround(beta_[d][k][p] * bytes));
    c.inject = maxrate && k == 2 && !msg.device ? static_cast<Time>(std::llround(inj_beta_ * bytes)) : -1;
    c.handshake = p == 2 && m_.handshake_legs > 0 ? alpha_[0][k][0] : 0;
  }
  // Runs of equal src, grouped by the sender's node (stable: node, then src order).
  std::vector<std::uint32_t> firsts;
  for (std::size_t i = 0; i < nm; ++i)
    if (i == 0 || s.msgs[i].src != s.msgs[i - 1].src) firsts.push_back(static_cast<std::uint32_t>(i));
  s.node_groups.assign(static_cast<std::size_t>(nnodes_) + 1, 0);
  for (auto f : firsts) ++s.node_groups[static_cast<std::size_t>(node_[s.msgs[f].src]) + 1];
  for (std::size_t k = 0; k < static_cast<std::size_t>(nnodes_); ++k) s.node_groups[k + 1] += s.node_groups[k];
  s.group_first.resize(firsts.size());
  std::vector<std::uint32_t> fill(s.node_groups.begin(), s.node_groups.end() - 1);
  for (std::size_t g = 0; g < firsts.size(); ++g) {
    const auto f = firsts[g];
    const auto at = fill[static_cast<std::size_t>(node_[s.msgs[f].src])]++;
    s.group_first[at] = f;
  }
  // Each message's slot among its receiver's arrivals (CSR by receiver, in message order).
  s.dst_offsets.assign(n + 1, 0);
  for (const auto& msg : s.msgs) ++s.dst_offsets[static_cast<std::size_t>(msg.dst) + 1];
  for (std::size_t e = 0; e < n; ++e) s.dst_offsets[e + 1] += s.dst_offsets[e];
  s.dst_slot.resize(nm);
  std::vector<std::uint32_t> pos(s.dst_offsets.begin(), s.dst_offsets.end() - 1);
  for (std::size_t i = 0; i < nm; ++i) s.dst_slot[i] = pos[static_cast<std::size_t>(s.msgs[i].dst)]++;
  s.prepared_for = this;
}

void Engine::run(const Step& s, std::vector<Time>& ready, Accum& acc, Timeline* tl) {
  const std::size_t n = node_.size();
  if (ready.size() != n) throw std::logic_error("Engine::run: ready has the wrong size");
  prepare(s);
  if (s.barrier_before) {
    Time t = 0;
    for (Time r : ready) t = std::max(t, r);
    for (std::size_t e = 0; e < n; ++e) {
      if (tl) tl->add(static_cast<std::int32_t>(e), ready[e], t + s.barrier_cost, 4);
      ready[e] = t + s.barrier_cost;
    }
  }
  for (std::size_t e = 0; e < n; ++e) {
    const Time pre = s.pre.empty() ? 0 : s.pre[e];
    if (!s.copy.empty()) acc.copies[e] += s.copy[e];
    if (!s.extra_latency.empty()) acc.latency[e] += s.extra_latency[e];
    if (tl && pre > 0) tl->add(static_cast<std::int32_t>(e), ready[e], ready[e] + pre, 2);
    start_[e] = send_free_[e] = recv_free_[e] = ready[e] + pre;
  }
  const std::size_t nm = s.msgs.size();
  inbox_.resize(nm);
  std::uint32_t aseq = 0;
  const bool loggp = m_.model == ModelKind::loggp;
  const int legs = m_.handshake_legs;

  // Phase 1: senders, node by node; the node's heap orders its senders' events.
  for (std::int32_t node = 0; node < nnodes_; ++node) {
    const auto g0 = s.node_groups[static_cast<std::size_t>(node)], g1 = s.node_groups[static_cast<std::size_t>(node) + 1];
    if (g0 == g1) continue;
    heap_.clear();
    seq_ = 0;
    for (auto g = g0; g < g1; ++g) push(start_[s.msgs[s.group_first[g]].src], s.group_first[g] | (static_cast<std::uint32_t>(g - g0) << 0 & 0));
    Time nic = 0;  // the node's NIC: next free time
    while (!heap_.empty()) {
      const Ev ev = heap_[0];
      const std::uint32_t i = ev.code;
      const Msg& msg = s.msgs[i];
      const auto& c = s.cost[i];
      Time t = ev.t;
      if (c.handshake > 0) {  // rendezvous: RTS posted at step start, CTS once the receive is posted
        const Time rts = start_[msg.src] + c.handshake * ((legs + 1) / 2);
        const Time cts = std::max(rts, start_[msg.dst]) + c.handshake * (legs / 2);
        if (cts > t) {
          replace_top(cts, i);  // the port waits for the handshake
          continue;
        }
      }
      ++messages_;
      Time port_end, leave, arrive;
      if (loggp) {  // L = alpha, G = beta: overhead o, then the bytes; next send no earlier than g
        leave = t + o_send_ + c.wire;
        port_end = std::max(leave, t + gap_);
        arrive = leave + c.alpha;
      } else {  // postal: the sender is busy alpha + beta*s per message (m messages: m*alpha + s*beta)
        leave = t + c.alpha + c.wire;
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
        port_end = leave;
        arrive = leave;
      }
      acc.latency[msg.src] += c.alpha;
      acc.bandwidth[msg.src] += c.wire;
      send_free_[msg.src] = std::max(send_free_[msg.src], leave);
      if (tl) tl->add(msg.src, t, leave, 0);
      inbox_[s.dst_slot[i]] = {arrive, aseq++, c.wire};
      if (i + 1 < nm && s.msgs[i + 1].src == msg.src) replace_top(port_end, i + 1);
      else pop();
    }
  }
  // Phase 2: every receiver's stream takes its arrivals in (time, sequence) order.
  const Time o_recv = s.one_sided ? 0 : o_recv_;
  for (std::size_t e = 0; e < n; ++e) {
    const auto b = s.dst_offsets[e], z = s.dst_offsets[e + 1];
    if (b == z) continue;
    const auto first = inbox_.begin() + b, last = inbox_.begin() + z;
    std::sort(first, last, [](const Arrival& x, const Arrival& y) { return x.t != y.t ? x.t < y.t : x.seq < y.seq; });
    Time free = recv_free_[e];
    for (auto it = first; it != last; ++it) {
      free = std::max(it->t, free + it->wire) + o_recv;
      if (tl) tl->add(static_cast<std::int32_t>(e), free - it->wire - o_recv, free, 1);
    }
    recv_free_[e] = free;
  }
  for (std::size_t e = 0; e < n; ++e) {
    const Time done = std::max({start_[e], send_free_[e], recv_free_[e]});
    const Time post = s.post.empty() ? 0 : s.post[e];
    if (tl && post > 0) tl->add(static_cast<std::int32_t>(e), done, done + post, 3);
    ready[e] = done + post;
  }
}

}  // namespace sfr::sim
