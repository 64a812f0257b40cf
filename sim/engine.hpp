// Discrete-event core with integer time (picoseconds: the study's beta values are fractions of a
// nanosecond per byte, so nanoseconds would round every small message) and deterministic ties.
// The engine sees only messages of one step; strategies (strategies.hpp) turn a plan into steps.
//
// Two engines, chosen by the machine's model (machine.hpp):
//
// Flow engine (postal, max-rate, loggp: the default). Every endpoint starts the step at its
// ready time plus its `pre` work and posts all its receives then. Its CPU posts its sends in
// order, each costing o_send and spaced by at least the gap g (LogGP; each message its tier's);
// nothing else serialises at a rank. A message's transfer starts when it is posted (eager), or
// when the matching receive is posted too (rendezvous, after `handshake_legs` short latencies;
// eager too when the machine says so), then waits its wire latency L, then moves its bytes as a
// flow. Flows share the sender's link, the receiver's link and (off-node, max-rate and loggp) the
// sending node's NIC: each resource is a processor-sharing server (n active flows progress at 1/n
// of its speed each), and a flow is done when it has passed all of its resources (the latest of
// its per-resource completions: each resource is evaluated on its own, a decoupled approximation
// of max-min sharing that is exact when one resource limits a flow throughout, e.g. every ring).
// A NIC that is at least as fast as its node's sending links together cannot limit and is
// skipped. Data of an earlier step still on a resource goes first. The receiver's CPU then pays
// o_recv (its tier's) per message in completion order; a rendezvous send completes with its
// transfer, an eager one when posted. Cost: a sender whose messages never wait for their receiver
// activates them at offsets from its start fixed per step (Step::send_rel); runs of a sender's messages with one
// activation are radix-sorted as one (not message by message); then each resource's flows, in
// activation order, are swept in virtual time (closed forms for batches that arrive together and
// leave before the next). A send link needs no sweep, nor a sorted list, when its departures are
// known in advance: all its flows arrive together (then only their works decide, sorted once per
// step: Step::send_batch), or it is idle and they arrive as in an earlier run, whose departures
// relative to the sender's start were recorded (Step::send_off).
//
// Serial engine (study-postal, study-max-rate): the node-aware study's forms. The sender's port
// is busy alpha + beta*s per message; with max-rate an off-node message's bytes also pass the
// node's NIC first come first served; the receiver's stream takes arrivals one at a time in
// (time, sequence) order. Senders interact only through their node's NIC and never wait on a
// receive, so one small tournament per node (loser_tree.hpp) orders its senders' events, then one
// radix sort of all arrivals by (time, sequence) feeds every receiver's stream: the same schedule as
// one global queue.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/loser_tree.hpp"
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
  bool mate = false;    // a host message between two ranks of one core (MachineModel::CoreSharing)
  // A one-sided access through memory the ranks share (window on one node: Open MPI's osc/sm
  // reads or updates the target's window with plain loads and stores): no latency and no
  // handshake, only its bytes on the wire; the epoch's fences are its synchronisation.
  bool load_store = false;
};

// One communication step. Every endpoint starts it when it finished the previous step; `pre` runs
// before its first send (pack, device->host copy), `post` after its last receive (unpack, copy).
struct Step {
  std::string label;
  std::vector<Msg> msgs;            // grouped by src; within a src, in send order
  std::vector<Time> pre, post;      // empty or one per endpoint
  // Empty or one per endpoint: work after its sends are posted, while they fly (the self part in
  // PetscSF's order); the step ends for it no earlier than its start plus this.
  std::vector<Time> mid;
  std::vector<Time> copy;           // part of pre+mid+post spent packing/copying (breakdown only)
  std::vector<Time> sync;           // part of pre spent in synchronisation (collective start-up)
  std::vector<Time> extra_latency;  // part of pre that is latency (alltoallv empty messages)
  bool barrier_before = false;      // all trace ranks synchronise (fence) before the step
  Time barrier_cost = 0;
  bool one_sided = false;  // no receive matching overhead (window backend)

  // Filled by Engine::prepare (once; a step is replayed `repeat` times): per message costs and
  // the grouping of messages by sending node.
  struct Cost {
    std::int64_t alpha;      // wire latency L (picoseconds)
    std::int64_t wire;       // beta*s (picoseconds): the transfer alone on idle links
    std::int64_t inject;     // s / R_N through the NIC (picoseconds); < 0: does not pass the NIC
    std::int64_t handshake;  // one leg of the rendezvous handshake, 0 when none
    bool rendezvous;         // the transfer waits for the receive; the send completes with it
    bool waits;              // the transfer waits for the matching receive to be posted
    double work_link;        // flow engine: picoseconds of its links alone (beta*s)
    double work_nic;         // picoseconds of its node's NIC alone (0: the NIC cannot limit it)
  };
  mutable std::vector<std::uint32_t> res_off;  // flow engine: CSR offsets of the resources' lists
  // Flow engine, send links: each message's activation after its sender's start had it not waited
  // for its receiver; its departure after that start, recorded by the first run in which no
  // message of the sender waited and its link was idle (send_known[src]), and replayed after.
  mutable std::vector<double> send_batch;  // departure after the arrival, all arriving together
  mutable std::vector<Time> send_rel;
  mutable std::vector<double> send_off;
  mutable std::vector<std::uint8_t> send_known;
  // Flow engine: each message's receive link and NIC (UINT32_MAX: none; its send link is its
  // sender's) and works, packed for the per-run scatter in activation order.
  struct Route {
    std::uint32_t recv, nic;
    double work_link, work_nic;
  };
  // Each sender's run of messages [first, end); flow engine: whether any of them waits for its
  // receiver (else all activate at fixed offsets from its start, send_rel), and its last post
  // relative to its start.
  struct Sender {
    std::uint32_t first, end;
    std::int32_t src;
    bool waits;
    Time cpu_rel;
  };
  mutable std::vector<Sender> senders;
  mutable std::vector<Route> route;
  mutable std::vector<Cost> cost;
  mutable std::vector<std::uint32_t> node_groups;  // CSR over nodes of (first message of a src run)
  mutable std::vector<std::uint32_t> group_first;
  mutable std::uint64_t prepared_for = 0;  // id of the engine whose model the costs belong to
};

// Per endpoint accumulated cost components along the chain that finishes it (for breakdowns):
// latency (wire latency and handshakes of the message that completed last), bandwidth (its bytes
// at full link speed), contention (its slow-down from sharing links), injection (waiting for /
// sharing the NIC), overhead (per-message CPU costs), copies (pack, host<->device), sync
// (fences, collective start-up).
struct Accum {
  std::vector<Time> latency, bandwidth, contention, injection, overhead, copies, sync;
  void resize(std::size_t n) {
    for (auto* v : {&latency, &bandwidth, &contention, &injection, &overhead, &copies, &sync}) v->assign(n, 0);
  }
  void add(const Accum& o, std::size_t e) {
    latency[e] += o.latency[e], bandwidth[e] += o.bandwidth[e], contention[e] += o.contention[e];
    injection[e] += o.injection[e], overhead[e] += o.overhead[e], copies[e] += o.copies[e], sync[e] += o.sync[e];
  }
};

// Chrome trace events: one process per backend, one track (tid) per endpoint.
struct Timeline {
  enum Kind : std::uint8_t { send = 0, recv = 1, pre = 2, post = 3, fence = 4 };
  struct Slice {
    std::int32_t track;
    Time begin, end;
    Kind kind;
    std::int32_t backend, op, peer;  // peer < 0: none
    std::int64_t bytes;
  };
  std::vector<Slice> slices;
  std::size_t limit = 500000;
  std::int32_t backend = 0, op = 0;  // set by the caller before each op
  std::vector<std::string> backend_names;
  std::vector<std::string> op_labels;
  std::int32_t nranks = 0;
  void add(std::int32_t track, Time b, Time e, Kind kind, std::int32_t peer = -1, std::int64_t bytes = 0) {
    if (slices.size() < limit && e > b) slices.push_back({track, b, e, kind, backend, op, peer, bytes});
  }
};

class Engine {
public:
  // node of every endpoint (trace ranks first, then helper processes). `busy`, when
  // given, carries the links' and NICs' occupancy from one engine to the next (the ops of one
  // replay); otherwise the engine keeps its own across the steps it runs. `wire_factor` scales
  // what a host message beyond the model's wire_factor_beyond bytes costs the wire more than one
  // of that size (its bytes, and a rendezvous's latency beyond the eager one's; a backend's,
  // MachineModel::CostTerms::wire).
  Engine(const MachineModel& m, std::vector<std::int32_t> node, std::vector<Time>* busy = nullptr, double wire_factor = 1);
  std::size_t endpoints() const { return node_.size(); }
  const std::vector<std::int32_t>& node() const { return node_; }
  // Computes the step's per-message costs and groupings (run does it when not yet done).
  void prepare(const Step& s) const;
  // Runs one step: `ready` holds each endpoint's start time and receives its finish time.
  void run(const Step& s, std::vector<Time>& ready, Accum& acc, Timeline* tl = nullptr);
  std::uint64_t messages() const { return messages_; }

private:
  struct Arrival {  // serial engine: a message's bytes at its receiver (time in act_)
    Time wire;
    std::int32_t dst;
    std::uint32_t msg;
  };
  Time next_post(Time& t, Tier k) const;
  static Time transfer_start(const Step::Cost& c, Time post, Time recv_post, int legs);
  void run_serial(const Step& s, Accum& acc, Timeline* tl);
  // prepare's parts.
  Step::Cost message_cost(const Msg& msg) const;
  void prepare_flows(const Step& s) const;
  void prepare_send_links(const Step& s) const;
  void run_flows(const Step& s, Accum& acc, Timeline* tl);
  // run_flows' steps.
  void post_sender(const Step& s, const Step::Sender& g);
  void share_resources(const Step& s);
  void share_resource(const Step& s, std::size_t r);
  void receive(const Step& s);
  void complete_sends(const Step& s, Timeline* tl);
  void attribute(const Step& s, Accum& acc);
  // The receiver's CPU for message i of a step, by its tier (none for one-sided transfers: no
  // receive is posted).
  Time recv_cpu(const Step& s, std::uint32_t i) const {
    return s.one_sided ? 0 : o_recv_[recv_by_tier_ ? static_cast<int>(s.msgs[i].tier) : 0];
  }

  // Flow engine state, reused between steps.
  struct PsEntry {
    double f;  // virtual finish time
    std::uint32_t msg;
  };
  struct ResItem {
    Time act;     // activation
    double work;  // picoseconds of the resource alone
    std::uint32_t msg;
  };
  struct FlowClass {  // the active flows of one work value, in arrival order (= finish order)
    double w = 0;
    std::vector<PsEntry> q;
    std::size_t head = 0;
  };
  struct SortedQueue;
  struct ClassQueues;
  struct SendCache {  // where to record a send link's departures relative to its sender's start
    double* off;
    double base;
  };
  void share(const ResItem* items, std::size_t k, std::uint8_t kind, Time& busy_until, const SendCache* sc);
  template <class Queue>
  void share_with(Queue& q, const ResItem* items, std::size_t k, std::uint8_t kind, Time& busy_until, const SendCache* sc);
  void sort_by_time(const Time* t, std::size_t nm);
  // A resource lets flow i go at tc: its completion is the latest of its resources' (ties: the
  // NIC's, so that injection is charged). done_[i] = completion << 2 | the resource kind that set
  // it: one branch-free max.
  void raise_done(std::uint32_t i, Time tc, std::uint8_t kind) { done_[i] = std::max(done_[i], tc << 2 | kind); }
  Time done_time(std::uint32_t i) const { return done_[i] >> 2; }
  std::uint8_t done_by(std::uint32_t i) const { return static_cast<std::uint8_t>(done_[i] & 3); }

  const MachineModel& m_;
  std::uint64_t id_;  // unique per engine (a new engine may reuse an old one's address)
  std::vector<std::int32_t> node_;
  LoserTree tree_;                         // serial engine: one node's senders
  std::vector<LoserTree::Key> keys_init_;  // their first events
  std::vector<std::uint32_t> next_msg_;    // per sender slot: its next message
  std::vector<Time> start_, send_free_, recv_free_;
  std::vector<Arrival> inbox_;
  std::int32_t nnodes_ = 0;
  std::uint64_t messages_ = 0;
  // Per (device, tier, proto): alpha in picoseconds, beta in picoseconds per byte.
  Time alpha_[2][3][3];
  double beta_[2][3][3];
  double inj_beta_;
  double wire_factor_ = 1;
  Time o_send_[3], o_recv_[3], gap_[3];  // LogGP per tier, picoseconds
  bool recv_by_tier_ = false;            // o_recv differs between tiers (else one load, no tier lookup)
  bool serial_, nic_;

  std::vector<Time> act_;
  std::vector<Time> done_;               // flow engine: completion << 2 | kind (0: activation, kLink, kNic)
  std::vector<std::uint8_t> send_mode_;  // per endpoint: how its send link is evaluated (kSweep, ...)
  std::vector<std::uint32_t> order_, order_tmp_, count_;
  std::vector<std::uint64_t> keys_, keys_tmp_;
  std::vector<Time> sorted_act_;          // the sorted times (sort_by_time)
  std::vector<std::uint32_t> run_first_;  // flow engine: runs of a sender's messages with one activation
  std::vector<std::int32_t> run_src_;
  std::vector<Time> run_act_;
  std::vector<std::uint32_t> res_fill_;
  std::vector<ResItem> res_items_;
  std::vector<PsEntry> ps_heap_;
  std::vector<FlowClass> classes_;
  std::vector<PsEntry> batch_;  // a batch of flows arriving together, sorted by work
  // Per endpoint e: the message whose completion last advanced its receive side ([e]) and, for
  // rendezvous sends, its send side ([n + e]); UINT32_MAX: none.
  std::vector<std::uint32_t> crit_msg_;
  std::vector<Time> recv_spent_;    // per endpoint: its CPU's time on the step's receives
  std::vector<Time> cpu_end_;       // per endpoint: its CPU posted its last send
  std::vector<Time> own_busy_;
  std::vector<Time>& busy_;  // per resource: when the data of earlier steps has left it
};

}  // namespace sfr::sim
