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
  std::int32_t nnodes = 0;
  for (auto n : node_) nnodes = std::max(nnodes, n + 1);
  nic_free_.assign(static_cast<std::size_t>(nnodes), 0);
  start_.resize(node_.size());
  send_free_.resize(node_.size());
  recv_free_.resize(node_.size());
}

// Binary heap ordered by (t, seq): equal times leave in push order, so runs are bit-identical.
void Engine::push(Time t, std::uint32_t code) {
  heap_.push_back({t, seq_++, code});
  std::size_t i = heap_.size() - 1;
  const Ev e = heap_[i];
  while (i > 0) {
    const std::size_t p = (i - 1) / 2;
    const Ev& q = heap_[p];
    if (q.t < e.t || (q.t == e.t && q.seq < e.seq)) break;
    heap_[i] = q;
    i = p;
  }
  heap_[i] = e;
}

Engine::Ev Engine::pop() {
  const Ev top = heap_[0];
  const Ev last = heap_.back();
  heap_.pop_back();
  const std::size_t n = heap_.size();
  if (n == 0) return top;
  std::size_t i = 0;
  for (;;) {
    std::size_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && (heap_[c + 1].t < heap_[c].t || (heap_[c + 1].t == heap_[c].t && heap_[c + 1].seq < heap_[c].seq))) ++c;
    if (last.t < heap_[c].t || (last.t == heap_[c].t && last.seq < heap_[c].seq)) break;
    heap_[i] = heap_[c];
    i = c;
  }
  heap_[i] = last;
  return top;
}

void Engine::run(const Step& s, std::vector<Time>& ready, Accum& acc, Timeline* tl) {
  const std::size_t n = node_.size();
  if (ready.size() != n) throw std::logic_error("Engine::run: ready has the wrong size");
  if (s.msgs.size() >= (1u << 31)) throw std::logic_error("Engine::run: too many messages in one step");
  if (s.barrier_before) {
    Time t = 0;
    for (Time r : ready) t = std::max(t, r);
    for (auto& r : ready) {
      if (tl) tl->add(static_cast<std::int32_t>(&r - ready.data()), r, t + s.barrier_cost, 4);
      r = t + s.barrier_cost;
    }
  }
  for (std::size_t e = 0; e < n; ++e) {
    Time pre = s.pre.empty() ? 0 : s.pre[e];
    if (!s.copy.empty()) acc.copies[e] += s.copy[e];
    if (!s.extra_latency.empty()) acc.latency[e] += s.extra_latency[e];
    if (tl && pre > 0) tl->add(static_cast<std::int32_t>(e), ready[e], ready[e] + pre, 2);
    start_[e] = send_free_[e] = recv_free_[e] = ready[e] + pre;
  }
  std::fill(nic_free_.begin(), nic_free_.end(), Time{0});
  // Group boundaries: the last message index (exclusive) of each run of equal src.
  end_of_src_.resize(s.msgs.size());
  for (std::size_t i = s.msgs.size(); i-- > 0;) {
    if (s.msgs[i].src < 0 || s.msgs[i].dst < 0 || static_cast<std::size_t>(s.msgs[i].src) >= n ||
        static_cast<std::size_t>(s.msgs[i].dst) >= n)
      throw std::logic_error("Engine::run: endpoint out of range");
    end_of_src_[i] = (i + 1 < s.msgs.size() && s.msgs[i + 1].src == s.msgs[i].src) ? end_of_src_[i + 1]
                                                                                     : static_cast<std::uint32_t>(i + 1);
  }
  heap_.clear();
  seq_ = 0;
  for (std::size_t i = 0; i < s.msgs.size(); i = end_of_src_[i]) push(start_[s.msgs[i].src], static_cast<std::uint32_t>(i));

  const bool maxrate = m_.model == ModelKind::max_rate;
  const bool loggp = m_.model == ModelKind::loggp;
  const Time o_recv = s.one_sided ? 0 : o_recv_;
  const int legs = m_.handshake_legs;
  while (!heap_.empty()) {
    const Ev ev = pop();
    const std::uint32_t i = ev.code & 0x7fffffffu;
    const Msg& msg = s.msgs[i];
    const int d = msg.device ? 1 : 0, k = static_cast<int>(msg.tier);
    const int p = static_cast<int>(m_.proto_of(msg.bytes));
    const Time wire = static_cast<Time>(std::llround(beta_[d][k][p] * static_cast<double>(msg.bytes)));
    if (ev.code & 0x80000000u) {  // arrival: the receive stream takes the data one message at a time
      const Time done = std::max(ev.t, recv_free_[msg.dst] + wire) + o_recv;
      recv_free_[msg.dst] = done;
      if (tl) tl->add(msg.dst, done - wire - o_recv, done, 1);
      continue;
    }
    Time t = ev.t;
    if (p == 2 && legs > 0) {  // rendezvous: RTS posted at step start, CTS once the receive is posted
      const Time a = alpha_[0][k][0];
      const Time rts = start_[msg.src] + a * ((legs + 1) / 2);
      const Time cts = std::max(rts, start_[msg.dst]) + a * (legs / 2);
      if (cts > t) {
        push(cts, ev.code);  // the port waits for the handshake
        continue;
      }
    }
    ++messages_;
    const Time alpha = alpha_[d][k][p];
    Time port_end, leave, arrive;
    if (loggp) {  // L = alpha, G = beta: overhead o, then the bytes; next send no earlier than g
      port_end = t + std::max(o_send_ + wire, gap_);
      leave = t + o_send_ + wire;
      arrive = leave + alpha;
    } else {  // postal: the sender is busy alpha + beta*s per message (so m messages cost m*alpha + s*beta)
      leave = t + alpha + wire;
      if (maxrate && k == 2 && !msg.device) {
        // Max-rate: after the latency, the bytes also pass the node's NIC at R_N, first come first
        // served; the sender waits until its bytes are injected (alpha*m + max(ppn*s/R_N, s*beta)).
        Time& nic = nic_free_[node_[msg.src]];
        const Time nic_end = std::max(t + alpha, nic) + static_cast<Time>(std::llround(inj_beta_ * static_cast<double>(msg.bytes)));
        nic = nic_end;
        if (nic_end > leave) {
          acc.injection[msg.src] += nic_end - leave;
          leave = nic_end;
        }
      }
      port_end = leave;
      arrive = leave;
    }
    acc.latency[msg.src] += alpha;
    acc.bandwidth[msg.src] += wire;
    send_free_[msg.src] = std::max(send_free_[msg.src], leave);
    if (tl) tl->add(msg.src, t, leave, 0);
    push(arrive, i | 0x80000000u);
    if (i + 1 < end_of_src_[i]) push(port_end, i + 1);
  }
  for (std::size_t e = 0; e < n; ++e) {
    const Time done = std::max({start_[e], send_free_[e], recv_free_[e]});
    const Time post = s.post.empty() ? 0 : s.post[e];
    if (tl && post > 0) tl->add(static_cast<std::int32_t>(e), done, done + post, 3);
    ready[e] = done + post;
  }
}

}  // namespace sfr::sim
