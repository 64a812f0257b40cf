// Discrete-event core, LogGOPSim-style: small plain events with integer time (picoseconds: the
// study's beta values are fractions of a nanosecond per byte, so nanoseconds would round every
// small message) and a sequence number for deterministic ties; resources (send port, receive
// stream, node NIC) are arrays of next-free times; a busy resource pushes the event back.
// The engine sees only messages of one step; strategies (strategies.hpp) turn a plan into steps.
//
// Within a step, senders interact only through their node's NIC, and nothing a sender does
// depends on a receive completing (receives are posted at the step's start; a rendezvous
// handshake needs only the receiver's start). So the event queue is partitioned: one small heap
// per node orders that node's send events (time, then sequence number); each arrival gets its
// time and a sequence number; then every receiver takes its arrivals in (time, sequence) order
// through its receive stream. This is the same schedule a single global queue would produce, with
// heaps of at most ranks-per-node entries (the reason the engine reaches tens of millions of
// messages per second).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/machine.hpp"

namespace sfr::sim {

using Time = std::int64_t;  // picoseconds
Time to_ps(double seconds);
inline double to_seconds(Time t) { return static_cast<double>(t) * 1e-12; }

struct Msg {
  std::int32_t src = 0, dst = 0;
  std::int64_t bytes = 0;
  Tier tier = Tier::network;
  bool device = false;  // device-aware transfer (GPU parameters)
};

// One communication step. Every endpoint starts it when it finished the previous step; `pre` runs
// before its first send (pack, device->host copy), `post` after its last receive (unpack, copy).
struct Step {
  std::string label;
  std::vector<Msg> msgs;        // grouped by src; within a src, in send order
  std::vector<Time> pre, post;  // empty or one per endpoint
  std::vector<Time> copy;       // part of pre+post spent packing/copying (breakdown only)
  std::vector<Time> extra_latency;  // part of pre that is latency (alltoallv empty messages)
  bool barrier_before = false;  // all trace ranks synchronise (fence) before the step
  Time barrier_cost = 0;
  bool one_sided = false;       // no receive matching overhead (window backend)

  // Filled by Engine::prepare (once; a step is replayed `repeat` times): per message costs and
  // the grouping of messages by sending node and by receiver.
  struct Cost {
    std::int64_t alpha, wire, inject;  // picoseconds; inject < 0: does not pass the NIC
    std::int64_t handshake;            // one leg of the rendezvous handshake, 0 when none
  };
  mutable std::vector<Cost> cost;
  mutable std::vector<std::uint32_t> node_groups;  // CSR over nodes of (first message of a src run)
  mutable std::vector<std::uint32_t> group_first;
  mutable std::vector<std::uint32_t> dst_offsets, dst_slot;
  mutable const void* prepared_for = nullptr;  // the engine whose model the costs belong to
};

// Per endpoint accumulated cost components (for breakdowns).
struct Accum {
  std::vector<Time> latency, bandwidth, injection, copies;
  void resize(std::size_t n) { latency.assign(n, 0); bandwidth.assign(n, 0); injection.assign(n, 0); copies.assign(n, 0); }
};

// Chrome trace events, one track (tid) per endpoint.
struct Timeline {
  struct Slice { std::int32_t track; Time begin, end; std::uint8_t kind; };  // kind: 0 send,1 recv,2 pre,3 post,4 wait
  std::vector<Slice> slices;
  std::size_t limit = 500000;
  void add(std::int32_t track, Time b, Time e, std::uint8_t kind) {
    if (slices.size() < limit && e > b) slices.push_back({track, b, e, kind});
  }
};

class Engine {
public:
  // node and socket of every endpoint (trace ranks first, then helper processes).
  Engine(const MachineModel& m, std::vector<std::int32_t> node, std::vector<std::int32_t> socket);
  std::size_t endpoints() const { return node_.size(); }
  Tier tier(std::int32_t a, std::int32_t b) const {
    return node_[a] != node_[b] ? Tier::network : socket_[a] != socket_[b] ? Tier::node : Tier::socket;
  }
  const std::vector<std::int32_t>& node() const { return node_; }
  // Computes the step's per-message costs and groupings (run does it when not yet done).
  void prepare(const Step& s) const;
  // Runs one step: `ready` holds each endpoint's start time and receives its finish time.
  void run(const Step& s, std::vector<Time>& ready, Accum& acc, Timeline* tl = nullptr);
  std::uint64_t messages() const { return messages_; }

private:
  struct Ev {
    Time t;
    std::uint32_t seq;
    std::uint32_t code;  // message index of the sender's next message
  };
  struct Arrival {
    Time t;
    std::uint32_t seq;
    Time wire;
  };
  void push(Time t, std::uint32_t code);
  void pop();
  void replace_top(Time t, std::uint32_t code);
  void sift_down(Ev e);

  const MachineModel& m_;
  std::vector<std::int32_t> node_, socket_;
  std::vector<Ev> heap_;
  std::uint32_t seq_ = 0;
  std::vector<Time> start_, send_free_, recv_free_;
  std::vector<Arrival> inbox_;
  std::int32_t nnodes_ = 0;
  std::uint64_t messages_ = 0;
  // Per (device, tier, proto): alpha in picoseconds, beta in picoseconds per byte.
  Time alpha_[2][3][3];
  double beta_[2][3][3];
  double inj_beta_;
  Time o_send_, o_recv_, gap_;
};

}  // namespace sfr::sim
