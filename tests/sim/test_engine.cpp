// Closed-form checks of the engine: every expected value is worked out from the model's formula.
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <tuple>

#include "sim/engine.hpp"
#include "sim/render.hpp"
#include "sim_support.hpp"
#include "support/sample_traces.hpp"
#include "trace/reader.hpp"

using namespace sfr_simtest;
using core::OpKind;
using sim::ModelKind;

namespace {
constexpr double kTol = 1e-11;  // picosecond rounding, a few messages
}

TEST(SimEngine, SingleMessagePostal) {
  core::Graph g(2);
  link(g, 0, 1, 125);  // 125 float64 = 1000 bytes
  const auto bt = make_trace(g, {op(OpKind::bcast)});
  EXPECT_NEAR(one(bt, flat(ModelKind::postal)), 1e-6 + 1e-9 * 1000, kTol);
  EXPECT_NEAR(one(bt, flat(ModelKind::max_rate)), 2e-6, kTol);  // no injection limit set
}

TEST(SimEngine, SingleMessageLogGP) {
  core::Graph g(2);
  link(g, 0, 1, 125);
  auto m = flat(ModelKind::loggp);
  m.o_send = 0.2e-6, m.o_recv = 0.3e-6, m.gap = 0.1e-6;
  // o_send + G*s + L + o_recv
  EXPECT_NEAR(one(make_trace(g, {op(OpKind::bcast)}), m), 0.2e-6 + 1e-6 + 1e-6 + 0.3e-6, kTol);
}

TEST(SimEngine, RingAllInParallel) {
  const int P = 8;
  core::Graph g(P);
  for (int r = 0; r < P; ++r) link(g, r, (r + 1) % P, 50);  // 400 bytes each
  const auto m = flat(ModelKind::postal);
  EXPECT_NEAR(one(make_trace(g, {op(OpKind::bcast)}), m), 1e-6 + 400e-9, kTol);
  EXPECT_NEAR(one(make_trace(g, {op(OpKind::reduce)}), m), 1e-6 + 400e-9, kTol);
}

TEST(SimEngine, FanInAndFanOut) {
  const int k = 5;
  core::Graph g(k + 1);
  for (int r = 1; r <= k; ++r) link(g, 0, r, 125, 0);  // every rank holds leaves of rank 0's roots
  // Flow engine: latency overlaps; the k flows share rank 0's receive link (reduce) or send link
  // (bcast): L + k*beta*s.
  EXPECT_NEAR(one(make_trace(g, {op(OpKind::reduce)}), flat(ModelKind::postal)), 1e-6 + k * 1e-6, kTol);
  EXPECT_NEAR(one(make_trace(g, {op(OpKind::bcast)}), flat(ModelKind::postal)), 1e-6 + k * 1e-6, kTol);
  // The study's postal form: arrivals pass the receive stream in turn; the sender's port pays
  // alpha + beta*s per message.
  EXPECT_NEAR(one(make_trace(g, {op(OpKind::reduce)}), flat(ModelKind::study_postal)), 1e-6 + k * 1e-6, kTol);
  EXPECT_NEAR(one(make_trace(g, {op(OpKind::bcast)}), flat(ModelKind::study_postal)), k * 2e-6, kTol);
}

TEST(SimEngine, InjectionLimitedFanOut) {
  const int k = 6;
  core::Graph g(k + 1);
  for (int r = 1; r <= k; ++r) link(g, 0, r, 125);
  const auto bt = make_trace(g, {op(OpKind::bcast)});
  for (auto model : {ModelKind::max_rate, ModelKind::study_max_rate}) {
    auto m = flat(model);
    m.injection_beta = 4e-9;  // the NIC is 4x slower than one process
    const bool study = model == ModelKind::study_max_rate;
    // study: alpha*m + max(s/R_N, s*beta) with ppn = 1, s = k*1000 bytes; flows: the k flows share
    // the NIC, which is slower than the link: L + k*1000*R_N^-1.
    const double expect = study ? k * 1e-6 + k * 1000 * 4e-9 : 1e-6 + k * 1000 * 4e-9;
    EXPECT_NEAR(one(bt, m), expect, kTol) << sim::model_name(model);
    const auto res = sim::simulate(bt, m, {sim::BackendVariant{}});
    // study: the sender waited k*3 us for the NIC; flows: the last flow's slow-down by the NIC.
    EXPECT_NEAR(res.backends[0].ops[0].breakdown.injection_wait, study ? k * 3e-6 : k * 4e-6 - 1e-6, kTol) << sim::model_name(model);
    m.injection_beta = 0.5e-9;  // faster NIC: the postal cost again
    EXPECT_NEAR(one(bt, m), study ? k * 2e-6 : 1e-6 + k * 1e-6, kTol) << sim::model_name(model);
    // Two senders on one node share the NIC: alpha*m + max(ppn*s/R_N, s*beta).
    core::Graph g2(4);
    link(g2, 0, 2, 125);
    link(g2, 1, 3, 125);
    m.injection_beta = 4e-9;
    EXPECT_NEAR(one(make_trace(g2, {op(OpKind::bcast)}), m, {}), 1e-6 + 1000 * 4e-9, kTol);  // every rank its own node
    EXPECT_NEAR(one(make_trace(g2, {op(OpKind::bcast)}, trace::Machine{2, 2, 0}), m), 1e-6 + 2 * 1000 * 4e-9, kTol);
    // A NIC at least as fast as the node's sending links together never limits (flows only).
    m.injection_beta = 0.5e-9;
    EXPECT_NEAR(one(make_trace(g2, {op(OpKind::bcast)}, trace::Machine{2, 2, 0}), m), 2e-6, kTol);
  }
}

TEST(SimEngine, RendezvousHandshake) {
  core::Graph g(2);
  link(g, 0, 1, 125);  // 1000 bytes > eager_max
  auto m = flat(ModelKind::postal);
  m.eager_max = 512, m.short_max = 64;
  for (auto& tier : m.p2p[0]) tier[0] = {0.5e-6, 1e-9}, tier[2] = {3e-6, 0.5e-9};
  m.handshake_legs = 2;  // RTS + CTS, each a short-message latency
  const auto bt = make_trace(g, {op(OpKind::bcast)});
  EXPECT_NEAR(one(bt, m), 2 * 0.5e-6 + 3e-6 + 1000 * 0.5e-9, kTol);
  m.handshake_legs = 0;
  EXPECT_NEAR(one(bt, m), 3e-6 + 1000 * 0.5e-9, kTol);
  // An eager message below the threshold pays no handshake.
  core::Graph small(2);
  link(small, 0, 1, 50);  // 400 bytes
  m.handshake_legs = 2;
  EXPECT_NEAR(one(make_trace(small, {op(OpKind::bcast)}), m), 1e-6 + 400e-9, kTol);
}

TEST(SimEngine, RepeatOverlapAndOrder) {
  core::Graph g(2);
  link(g, 0, 1, 125);
  const auto m = flat(ModelKind::postal);
  // Eager sends complete locally, so rank 0 posts the three at once; their bytes queue on the link
  // behind the earlier ones: L + 3*beta*s. The study's form: 3 x (alpha + beta*s).
  EXPECT_NEAR(one(make_trace(g, {op(OpKind::bcast, core::Unit::float64, 1, 3)}), m), 1e-6 + 3e-6, kTol);
  EXPECT_NEAR(one(make_trace(g, {op(OpKind::bcast, core::Unit::float64, 1, 3)}), flat(ModelKind::study_postal)), 3 * 2e-6, kTol);
  // 10 us of compute between begin and end hides the 2 us message.
  const auto r = sim::simulate(make_trace(g, {op(OpKind::bcast, core::Unit::float64, 1, 3, 10.0)}), m, {sim::BackendVariant{}});
  EXPECT_NEAR(r.backends[0].total_s, 3 * 10e-6, kTol);
  EXPECT_NEAR(r.backends[0].ops[0].per_call_s, 10e-6, kTol);
  // Ops run in order: bcast then reduce (each 2 us), and fetch_and_op is both ways.
  EXPECT_NEAR(one(make_trace(g, {op(OpKind::bcast), op(OpKind::reduce)}), m), 4e-6, kTol);
  EXPECT_NEAR(one(make_trace(g, {op(OpKind::fetch_and_op, core::Unit::int64)}), m), 4e-6, kTol);
}

TEST(SimEngine, StagedAndDeviceAwareCopies) {
  core::Graph g(2);
  link(g, 0, 1, 125);
  auto m = flat(ModelKind::postal);
  m.d2h[0] = {10e-6, 2e-9}, m.h2d[0] = {12e-6, 3e-9};
  for (auto& tier : m.p2p[1])
    for (auto& p : tier) p = {5e-6, 0.1e-9};
  auto o = op(OpKind::bcast);
  o.root_mem = o.leaf_mem = core::MemType::device;
  const auto bt = make_trace(g, {o});
  EXPECT_NEAR(one(bt, m, {core::BackendId::basic, false}), (10e-6 + 2e-6) + 2e-6 + (12e-6 + 3e-6), kTol);
  EXPECT_NEAR(one(bt, m, {core::BackendId::basic, true}), 5e-6 + 0.1e-6, kTol);
  // Four ranks sharing one GPU copy concurrently: the four-process parameters apply.
  m.d2h[1] = {20e-6, 4e-9}, m.h2d[1] = {22e-6, 5e-9};
  const auto shared = make_trace(g, {o}, trace::Machine{2, 2, 1});
  EXPECT_NEAR(one(shared, m, {core::BackendId::basic, false}), (20e-6 + 4e-6) + 2e-6 + (22e-6 + 5e-6), kTol);
  // The GPU's kernels: one pack at the sender, one unpack at the receiver, each its launch plus
  // the 1000-byte block read and written at the device's bandwidth; staged or aware alike.
  m.kernels = {3e-6, 1e12};
  const double kernel = 3e-6 + 2 * 1000 / 1e12;
  EXPECT_NEAR(one(bt, m, {core::BackendId::basic, false}), (10e-6 + 2e-6) + kernel + 2e-6 + (12e-6 + 3e-6) + kernel, kTol);
  EXPECT_NEAR(one(bt, m, {core::BackendId::basic, true}), kernel + 5e-6 + 0.1e-6 + kernel, kTol);
  // Host data runs no kernel.
  EXPECT_NEAR(one(make_trace(g, {op(OpKind::bcast)}), m, {core::BackendId::basic, false}), 2e-6, kTol);
}

// The self part runs while the sends fly where the executor starts them first (PetscSF's order;
// core::BackendInfo::self_while_sending: basic) and the machine's messages move without the
// ranks' cores (MachineModel::self_overlap); before them on device data and where the cores move
// the messages.
TEST(SimEngine, SelfPartOverlapsTheMessagesInPetscsOrder) {
  auto m = flat(ModelKind::postal);
  m.pack = {0, 1e-9};  // copies at 1 ns a byte
  m.self_overlap = true;
  for (const core::Index self : {375, 125}) {
    core::Graph g(2);
    link(g, 0, 1, 125);   // 1000 bytes, contiguous at both ends: no pack, 2 us on the wire
    link(g, 0, 0, self);  // the sender's self part: 8 * self bytes
    const double copy = 8e-9 * static_cast<double>(self);
    EXPECT_NEAR(one(make_trace(g, {op(OpKind::bcast)}), m, {core::BackendId::basic, false}), std::max(copy, 2e-6), kTol) << self;
    // Device data (staged; bus copies and kernels free): the self part first, then the message
    // packed and unpacked on the host (1 us each).
    auto o = op(OpKind::bcast);
    o.root_mem = o.leaf_mem = core::MemType::device;
    EXPECT_NEAR(one(make_trace(g, {o}), m, {core::BackendId::basic, false}), copy + 1e-6 + 2e-6 + 1e-6, kTol) << self;
    // The cores move the messages: the self part adds to them.
    auto no_overlap = m;
    no_overlap.self_overlap = false;
    EXPECT_NEAR(one(make_trace(g, {op(OpKind::bcast)}), no_overlap, {core::BackendId::basic, false}), copy + 2e-6, kTol) << self;
  }
}

TEST(SimEngine, OpsApartAreEachAsAlone) {
  // Op 0 keeps rank 1 busy (rank 0 sends it 1000 doubles); op 1 is rank 2 sending to rank 0, who
  // are idle early: back to back, op 1 hides behind op 0; apart (as the executor times ops), it
  // costs what it costs alone.
  core::Graph g0(3), g1(3);
  link(g0, 0, 1, 1000);
  link(g1, 2, 0, 125);
  const auto m = flat(ModelKind::postal);
  trace::Trace t;
  t.name = "two";
  t.nranks = 3;
  t.sfs.push_back({"S", trace::ExplicitSF{std::make_shared<const core::Graph>(g0)}});
  t.sfs.push_back({"T", trace::ExplicitSF{std::make_shared<const core::Graph>(g1)}});
  auto op1 = op(OpKind::bcast);
  op1.sf = "T";
  t.ops = {op(OpKind::bcast), op1};
  const trace::BuiltTrace both(std::move(t));
  const double alone = one(make_trace(g1, {op(OpKind::bcast)}), m);
  EXPECT_NEAR(alone, 1e-6 + 1e-6, kTol);
  const auto apart = sim::simulate(both, m, {sim::BackendVariant{}}, nullptr, true);
  EXPECT_NEAR(apart.backends[0].ops[1].total_s, alone, kTol);
  EXPECT_NEAR(apart.backends[0].ops[0].total_s, 1e-6 + 8e-6, kTol);
  const auto back_to_back = sim::simulate(both, m, {sim::BackendVariant{}});
  EXPECT_LT(back_to_back.backends[0].ops[1].total_s, alone);
}

TEST(SimEngine, ExecutorOverheadPerCall) {
  // A calibrated machine's op_overhead delays every rank's start of each call. Two calls of one
  // eager message (1 us + 125*8 B * 1 ns = 2 us): rank 0 posts at 3 us (done: eager), rank 1
  // receives at 5 us; rank 0 posts again at 3 + 3 = 6 us, arriving at 8 us, when rank 1 (5 + 3)
  // has just started its second call: 8 us in all.
  core::Graph g(2);
  link(g, 0, 1, 125);
  auto m = flat(ModelKind::postal);
  m.op_overhead = 3e-6;
  EXPECT_NEAR(one(make_trace(g, {op(OpKind::bcast, core::Unit::float64, 1, 2)}), m, {core::BackendId::basic, false}), 8e-6, kTol);
}

TEST(SimEngine, WindowFencesAndAlltoallvEmptyMessages) {
  core::Graph g(2);
  link(g, 0, 1, 125);
  const auto m = flat(ModelKind::postal);
  // fence (log2(2) = 1 round of alpha), put, fence
  EXPECT_NEAR(one(make_trace(g, {op(OpKind::bcast)}), m, {core::BackendId::window, false}), 1e-6 + 2e-6 + 1e-6, kTol);
  // A calibrated machine's fence overhead is paid by each of the two fences.
  auto mf = m;
  mf.fence_overhead = 5e-6;
  EXPECT_NEAR(one(make_trace(g, {op(OpKind::bcast)}), mf, {core::BackendId::window, false}), (1e-6 + 5e-6) + 2e-6 + (1e-6 + 5e-6), kTol);
  core::Graph g4(4);
  link(g4, 0, 1, 125);
  // Rank 0 first sends 2 empty messages (alpha each), rank 1 posts after its 3 empty ones.
  EXPECT_NEAR(one(make_trace(g4, {op(OpKind::bcast)}), m, {core::BackendId::alltoallv, false}), 2e-6 + 2e-6, kTol);
}

TEST(SimEngine, NoEdgesMeansNoCommunicationForEveryBackend) {
  core::Graph g(8);
  for (int r = 0; r < 8; ++r) g[r].nroots = 3;
  std::vector<core::OpSpec> ops;
  for (auto k : {OpKind::bcast, OpKind::reduce, OpKind::fetch_and_op, OpKind::gather, OpKind::scatter, OpKind::degree}) {
    auto o = op(k, core::Unit::int32, 2);
    if (k == OpKind::bcast) o.root_mem = o.leaf_mem = core::MemType::device;
    ops.push_back(o);
  }
  const auto bt = make_trace(g, ops, trace::Machine{4, 2, 4});
  for (const char* name : {"lassen", "generic"}) {
    const auto res = sim::simulate(bt, *sim::preset(name), sim::all_backends(true));
    ASSERT_EQ(res.backends.size(), 15u);  // 9 kinds, 6 with a device-aware form
    for (const auto& b : res.backends) {
      EXPECT_EQ(b.total_s, 0.0) << name << " " << b.backend.name();
      EXPECT_EQ(b.messages, 0u) << name << " " << b.backend.name();
    }
  }
}

// Two runs of every backend, both presets, give the same bytes (4 nodes of 8 ranks, 2 sockets
// each, device data: every engine path; 32 ranks keep it under a minute with ASan).
TEST(SimEngine, DeterministicOutput) {
  auto g = random_graph(32, 24, 50, 7);
  auto o = op(OpKind::bcast, core::Unit::float64, 3, 2, 1.5);
  auto d = op(OpKind::reduce);
  d.root_mem = d.leaf_mem = core::MemType::device;
  const auto bt = make_trace(g, {o, d, op(OpKind::gather, core::Unit::int32)}, trace::Machine{8, 4, 4});
  for (const char* name : {"lassen", "generic"}) {
    sim::Timeline t1, t2;
    const auto a = sim::simulate(bt, *sim::preset(name), sim::all_backends(true), &t1);
    const auto b = sim::simulate(bt, *sim::preset(name), sim::all_backends(true), &t2);
    EXPECT_EQ(sim::render_json(a, {}), sim::render_json(b, {}));
    EXPECT_EQ(sim::render_timeline(t1), sim::render_timeline(t2));
    for (const auto& br : a.backends) EXPECT_GT(br.total_s, 0) << br.backend.name();
  }
}

// Every model's timeline names, for each message, its peer and bytes on both sides: the receive
// slices are the send slices seen from the other end.
TEST(SimEngine, TimelineSlicesCarryPeerAndBytes) {
  const auto bt =
      make_trace(random_graph(24, 12, 10, 3), {op(OpKind::bcast), op(OpKind::reduce, core::Unit::int32, 2)}, trace::Machine{4, 2, 4});
  for (const auto model : {ModelKind::postal, ModelKind::max_rate, ModelKind::loggp, ModelKind::study_postal, ModelKind::study_max_rate}) {
    auto m = *sim::preset("lassen");
    m.model = model;
    for (const auto& b : {sim::BackendVariant{}, sim::BackendVariant{core::BackendId::three_step, false}}) {
      sim::Timeline tl;
      const auto res = sim::simulate(bt, m, {b}, &tl);
      std::multiset<std::tuple<int, int, std::int64_t>> sent, received;
      for (const auto& sl : tl.slices) {
        if (sl.kind != sim::Timeline::send && sl.kind != sim::Timeline::recv) continue;
        EXPECT_GE(sl.peer, 0) << sim::model_name(model) << " " << b.name();
        EXPECT_GT(sl.bytes, 0) << sim::model_name(model) << " " << b.name();
        (sl.kind == sim::Timeline::send ? sent : received)
            .insert(sl.kind == sim::Timeline::send ? std::tuple{sl.track, sl.peer, sl.bytes} : std::tuple{sl.peer, sl.track, sl.bytes});
      }
      EXPECT_EQ(sent.size(), res.backends[0].messages) << sim::model_name(model) << " " << b.name();
      EXPECT_EQ(sent, received) << sim::model_name(model) << " " << b.name();
    }
  }
}

TEST(SimEngine, NodeAwareMessageCounts) {
  // Two nodes of two ranks; every rank of node 0 sends to both ranks of node 1 (the same roots:
  // duplicates across destination ranks).
  core::Graph g(4);
  for (int s = 0; s < 2; ++s)
    for (int d = 2; d < 4; ++d) link(g, s, d, 10, 0);
  const auto bt = make_trace(g, {op(OpKind::bcast)}, trace::Machine{2, 2, 2});
  auto m = flat(ModelKind::postal);
  auto count = [&](core::BackendId k) { return sim::simulate(bt, m, {{k, false}}).backends[0].messages; };
  EXPECT_EQ(count(core::BackendId::basic), 4u);
  // 3-step: node 0's leader for node 1 is its local rank 1 (1 mod 2): rank 0 sends to rank 1 (1);
  // rank 1 sends one message to node 1's leader for node 0, rank 2 (0 mod 2) (1); rank 2 forwards
  // rank 3's part (1).
  EXPECT_EQ(count(core::BackendId::three_step), 3u);
  // 2-step: each rank sends once to its pair on node 1 (2), the pairs exchange the other half (2).
  EXPECT_EQ(count(core::BackendId::two_step), 4u);
  // 3-step times: rank 0 -> 1 (80 bytes), 1 -> 2 (each root once per sender: 160 bytes, not 320),
  // 2 -> 3 (rank 3's 160 bytes); each step starts when its rank finished the previous one.
  EXPECT_NEAR(sim::simulate(bt, m, {{core::BackendId::three_step, false}}).backends[0].total_s,
              (1e-6 + 80e-9) + (1e-6 + 160e-9) + (1e-6 + 160e-9), kTol);
}

// ---- the flow engine on single steps, against processor sharing worked by hand ----------------
namespace {
struct StepRun {
  sim::MachineModel m;
  std::vector<std::int32_t> node;
  std::vector<sim::Time> ready;
  sim::Accum acc;
  void run(const sim::Step& s) {
    sim::Engine e(m, node);
    acc.resize(node.size());
    e.run(s, ready, acc);
  }
};
sim::Msg msg(int a, int b, std::int64_t bytes, sim::Tier t = sim::Tier::socket) { return {a, b, bytes, t, false}; }
constexpr double kPs = 1e-12;
}  // namespace

TEST(SimFlows, SenderLinkSharedFairly) {
  // Rank 0 sends 1000 B to rank 1 and 3000 B to rank 2 at once (L = 1 us, beta = 1 ns/B): both
  // flows share its link, the small one leaves at L + 2*1 us, the big one at L + 1 + 3 us. The
  // study's serial form: 2 us, then 2 + 4 us.
  StepRun r{flat(ModelKind::postal), {0, 0, 0}, {0, 0, 0}, {}};
  sim::Step s;
  s.msgs = {msg(0, 1, 1000), msg(0, 2, 3000)};
  r.run(s);
  EXPECT_NEAR(sim::to_seconds(r.ready[1]), 3e-6, kPs);
  EXPECT_NEAR(sim::to_seconds(r.ready[2]), 5e-6, kPs);
  EXPECT_EQ(r.ready[0], 0);  // eager sends complete locally
  StepRun st{flat(ModelKind::study_postal), {0, 0, 0}, {0, 0, 0}, {}};
  st.run(s);
  EXPECT_NEAR(sim::to_seconds(st.ready[1]), 2e-6, kPs);
  EXPECT_NEAR(sim::to_seconds(st.ready[2]), 6e-6, kPs);
}

TEST(SimFlows, StaggeredArrivalsShareTheReceiveLink) {
  // Rank 1 receives 2000 B from rank 0 (same socket, L = 1 us) and 2000 B from rank 2 (other node,
  // L = 2 us), rendezvous so that the senders wait for their transfer. Rank 1's link: flow A alone
  // from 1 to 2 us (half done), then both at half speed: A leaves at 4 us, B at 5 us.
  auto m = flat(ModelKind::postal);
  for (auto& mem : m.p2p) mem[2] = {{{2e-6, 1e-9}, {2e-6, 1e-9}, {2e-6, 1e-9}}};  // network tier
  m.short_max = 0, m.eager_max = 100;                                             // 2000 B: rendezvous, no handshake legs
  StepRun r{m, {0, 0, 1}, {0, 0, 0}, {}};
  sim::Step s;
  s.msgs = {msg(0, 1, 2000), msg(2, 1, 2000, sim::Tier::network)};
  r.run(s);
  EXPECT_NEAR(sim::to_seconds(r.ready[0]), 4e-6, kPs);
  EXPECT_NEAR(sim::to_seconds(r.ready[2]), 5e-6, kPs);
  EXPECT_NEAR(sim::to_seconds(r.ready[1]), 5e-6, kPs);
  // First come first served (the study's receive stream) would finish A at 3 us.
  StepRun st{m, {0, 0, 1}, {0, 0, 0}, {}};
  st.m.model = ModelKind::study_postal;
  st.run(s);
  EXPECT_NEAR(sim::to_seconds(st.ready[1]), 5e-6, kPs);
}

TEST(SimFlows, EagerWaitsForTheReceiveOnlyWhenTheMachineSaysSo) {
  // Rank 1 starts the step at 5 us. An eager message leaves at once (arrives at 2 us, received at
  // 5 us); with SMPI's matching semantics it starts when the receive is posted: 5 + 1 + 1 us.
  auto m = flat(ModelKind::postal);
  sim::Step s;
  s.msgs = {msg(0, 1, 1000)};
  StepRun a{m, {0, 0}, {0, sim::to_ps(5e-6)}, {}};
  a.run(s);
  EXPECT_NEAR(sim::to_seconds(a.ready[1]), 5e-6, kPs);
  m.eager_waits_for_receive = true;
  StepRun b{m, {0, 0}, {0, sim::to_ps(5e-6)}, {}};
  b.run(s);
  EXPECT_NEAR(sim::to_seconds(b.ready[1]), 7e-6, kPs);
  EXPECT_EQ(b.ready[0], 0);  // the send still completes locally (below eager_max)
}

TEST(SimFlows, LogGPOverheadsSerialiseOnlyTheCpu) {
  // 4 messages of 1000 B to 4 ranks, o_send = 0.5 us, gap 1 us, o_recv = 0.2 us: posts at 0.5,
  // 1.5, 2.5, 3.5 us; each alone on its links (its flow is done before the next one starts).
  auto m = flat(ModelKind::loggp);
  m.o_send = 0.5e-6, m.gap = 1e-6, m.o_recv = 0.2e-6;
  StepRun r{m, {0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}, {}};
  sim::Step s;
  s.msgs = {msg(0, 1, 1000), msg(0, 2, 1000), msg(0, 3, 1000), msg(0, 4, 1000)};
  r.run(s);
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(sim::to_seconds(r.ready[k + 1]), 0.5e-6 + k * 1e-6 + 2e-6 + 0.2e-6, kPs) << k;
  EXPECT_NEAR(sim::to_seconds(r.ready[0]), 3.5e-6, kPs);  // the CPU posted its last send
  EXPECT_NEAR(sim::to_seconds(r.acc.overhead[0]), 3.5e-6, kPs);
  // The breakdown of a receiver: latency 1 us, bandwidth 1 us, overhead o_recv.
  EXPECT_NEAR(sim::to_seconds(r.acc.latency[4]), 1e-6, kPs);
  EXPECT_NEAR(sim::to_seconds(r.acc.bandwidth[4]), 1e-6, kPs);
  EXPECT_NEAR(sim::to_seconds(r.acc.overhead[4]), 0.2e-6, kPs);
}

// Nodes {0, 1} and {2, 3}; L = 1 us, 1 ns/B on every tier. A node mate's messages cost o_send
// 0.5 us, gap 1 us, o_recv 0.2 us; a message across the network o_send 2, gap 4, o_recv 3 (TCP's
// CPU work). Rank 0 posts to 1 at 0.5 us, to 2 at 1 + 2 = 3 us, to 3 at 3 + 4 = 7 us; rank 2
// posts to 1 at 2 us. Each flow of 1000 B takes 1 us alone on its links and none overlap. The
// same when every send waits for its receive (posted at 0): the sender's posts one by one.
TEST(SimFlows, EachMessagePaysItsTiersOverheads) {
  for (const bool waits : {false, true}) {
    auto m = flat(ModelKind::loggp);
    m.o_send = 0.5e-6, m.gap = 1e-6, m.o_recv = 0.2e-6;
    m.loggp_tier[static_cast<std::size_t>(sim::Tier::network)] = sim::MachineModel::LogGP{2e-6, 3e-6, 4e-6};
    m.eager_waits_for_receive = waits;
    StepRun r{m, {0, 0, 1, 1}, {0, 0, 0, 0}, {}};
    sim::Step s;
    s.msgs = {msg(0, 1, 1000), msg(0, 2, 1000, sim::Tier::network), msg(0, 3, 1000, sim::Tier::network),
              msg(2, 1, 1000, sim::Tier::network)};
    r.run(s);
    EXPECT_NEAR(sim::to_seconds(r.ready[0]), 7e-6, kPs) << waits;                // its CPU posted its last send
    EXPECT_NEAR(sim::to_seconds(r.ready[2]), 3e-6 + 2e-6 + 3e-6, kPs) << waits;  // o_recv 3 us after 0's data
    EXPECT_NEAR(sim::to_seconds(r.ready[3]), 7e-6 + 2e-6 + 3e-6, kPs) << waits;
    // Rank 1 takes its node mate's message at 2.5 us (o_recv 0.2), rank 2's at 2 + 2 = 4 us (3).
    EXPECT_NEAR(sim::to_seconds(r.ready[1]), 4e-6 + 3e-6, kPs) << waits;
    EXPECT_NEAR(sim::to_seconds(r.acc.overhead[1]), 0.2e-6 + 3e-6, kPs) << waits;
  }
}

// Without LogGP's CPU costs (postal) a network message's latency is the closed forms': the wire's
// 1 us plus what its tier's overheads (2 + 3 us) exceed the model's (0.5 + 0.2 us).
TEST(SimFlows, WithoutCpuCostsATiersOverheadsStayInItsLatency) {
  auto m = flat(ModelKind::postal);
  m.o_send = 0.5e-6, m.o_recv = 0.2e-6;
  m.loggp_tier[static_cast<std::size_t>(sim::Tier::network)] = sim::MachineModel::LogGP{2e-6, 3e-6, 4e-6};
  StepRun r{m, {0, 1}, {0, 0}, {}};
  sim::Step s;
  s.msgs = {msg(0, 1, 1000, sim::Tier::network)};
  r.run(s);
  EXPECT_NEAR(sim::to_seconds(r.ready[1]), 1e-6 + 4.3e-6 + 1e-6, kPs);
  EXPECT_NEAR(m.latency(false, sim::Tier::network, sim::Proto::eager), 1e-6 + 4.3e-6, 1e-18);
  EXPECT_EQ(m.latency(false, sim::Tier::socket, sim::Proto::eager), 1e-6);  // no tiers of its own: the wire's
}

// ---- the flow engine against exact processor sharing, event by event -------------------------
namespace {
// Exact processor sharing at one resource: flows (arrival, work) in any order; n active flows each
// progress at 1/n. Advances from event to event (next arrival or next departure), O(k^2).
std::vector<double> processor_sharing(const std::vector<std::pair<double, double>>& flows) {
  const std::size_t k = flows.size();
  std::vector<std::size_t> by_arrival(k);
  for (std::size_t i = 0; i < k; ++i) by_arrival[i] = i;
  std::stable_sort(by_arrival.begin(), by_arrival.end(), [&](auto a, auto b) { return flows[a].first < flows[b].first; });
  std::vector<double> leave(k, 0), left(k, 0);
  std::vector<std::size_t> active;
  double t = 0;
  std::size_t next = 0;
  while (next < k || !active.empty()) {
    if (active.empty()) t = std::max(t, flows[by_arrival[next]].first);
    while (next < k && flows[by_arrival[next]].first <= t)
      active.push_back(by_arrival[next]), left[by_arrival[next]] = flows[by_arrival[next]].second, ++next;
    double least = std::numeric_limits<double>::infinity();
    for (auto i : active) least = std::min(least, left[i]);
    const auto n = static_cast<double>(active.size());
    const double arrive = next < k ? flows[by_arrival[next]].first : std::numeric_limits<double>::infinity();
    const double dt = std::min(least * n, arrive - t);
    for (auto i : active) left[i] -= dt / n;
    t += dt;
    std::vector<std::size_t> still;
    for (auto i : active) (left[i] <= 1e-9 * flows[i].second ? leave[i] = t : (still.push_back(i), 0.0));
    active.swap(still);
  }
  return leave;
}
}  // namespace

TEST(SimFlows, ManyFlowsEachOvertakingTheOthers) {
  // 200 ranks send to rank 0, one every nanosecond, each a little smaller than the one before: all
  // share rank 0's link at once and every new flow finishes before those already there (it joins
  // the front of a long queue of active flows). Rendezvous, so that each sender finishes with its
  // transfer; every completion is compared with exact processor sharing.
  const int P = 201;
  auto m = flat(ModelKind::postal, 1e-6, 1e-10);
  m.short_max = 0, m.eager_max = 100;  // rendezvous, no handshake legs
  StepRun r{m, std::vector<std::int32_t>(P, 0), std::vector<sim::Time>(P, 0), {}};
  sim::Step s;
  std::vector<std::pair<double, double>> flows;  // (arrival, work) in picoseconds
  for (int e = 1; e < P; ++e) {
    r.ready[static_cast<std::size_t>(e)] = 1000 * e;
    const std::int64_t bytes = 200000 - 500 * e;
    s.msgs.push_back(msg(e, 0, bytes));
    flows.push_back({1000.0 * e + 1e6, 100.0 * static_cast<double>(bytes)});
  }
  r.run(s);
  const auto leave = processor_sharing(flows);
  for (int e = 1; e < P; ++e)
    ASSERT_NEAR(static_cast<double>(r.ready[static_cast<std::size_t>(e)]), leave[static_cast<std::size_t>(e - 1)], 2.0) << "sender " << e;
  EXPECT_NEAR(static_cast<double>(r.ready[0]), *std::max_element(leave.begin(), leave.end()), 2.0);
}

TEST(SimFlows, RandomStepsMatchExactProcessorSharing) {
  // Random steps on 2-3 nodes: senders with up to 40 messages (batches past the engine's small-
  // batch limits), few or many distinct sizes, start times drawn from a few values (flows that
  // arrive together) or spread out; links only (postal) and a NIC that limits (max-rate, the NIC
  // as slow per byte as a link); off-node latency longer than on-node; sends spaced by LogGP's o
  // and g (a sender's flows then reach its link one by one); eager messages that wait for the
  // receive. One engine runs the step four times: at once, again 2 ns later (the first run's data
  // still on the links goes first), 1 s later with every start moved by up to 3 ns (other
  // messages wait for their receive), and 2 s later as at first (links idle). Every message's completion is
  // compared with exact processor sharing at each of its resources (the engine's decoupled model:
  // the latest departure).
  std::mt19937_64 rng(7);
  int cases = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const bool nic = trial % 2 == 1, few_sizes = trial % 3 != 0, few_starts = trial % 4 != 0;
    const bool tiered = trial % 5 >= 3, spaced = trial % 7 >= 4, waits = trial % 11 >= 7;
    const int n = 4 + static_cast<int>(rng() % 44), nodes = 2 + static_cast<int>(rng() % 2);
    auto m = flat(spaced ? ModelKind::loggp : nic ? ModelKind::max_rate : ModelKind::postal, 1e-6, 1e-10);
    if (nic) m.injection_beta = 1e-10;
    if (tiered)
      for (auto& mem : m.p2p)
        for (auto& p : mem[2]) p.alpha = 1.5e-6;  // the network tier
    if (spaced) m.o_send = 200e-12, m.gap = 500e-12;
    m.eager_waits_for_receive = waits;
    std::vector<std::int32_t> node(static_cast<std::size_t>(n));
    for (int e = 0; e < n; ++e) node[e] = e % nodes;
    std::vector<sim::Time> start(node.size());
    for (auto& x : start) x = few_starts ? static_cast<sim::Time>(rng() % 3) * 700 : static_cast<sim::Time>(rng() % 5000);
    sim::Step s;
    for (int src = 0; src < n; ++src) {
      const int count = static_cast<int>(rng() % 41);
      for (int q = 0; q < count; ++q) {
        const int dst = static_cast<int>(rng() % n);
        const std::int64_t bytes = few_sizes ? 8 * (1 + static_cast<std::int64_t>(rng() % 3)) : 1 + static_cast<std::int64_t>(rng() % 300);
        s.msgs.push_back(msg(src, dst, bytes, node[src] == node[dst] ? sim::Tier::socket : sim::Tier::network));
      }
    }
    // The reference. Resources: send links, receive links, and a node's NIC for its off-node flows
    // when its senders together could exceed it (every link is as fast as the NIC here: two
    // senders). `busy`: per resource, when the data of the previous run left it.
    const std::size_t nm = s.msgs.size();
    std::vector<std::vector<std::size_t>> res(2 * node.size() + static_cast<std::size_t>(nodes));
    std::vector<std::set<int>> senders(static_cast<std::size_t>(nodes));
    for (std::size_t i = 0; i < nm; ++i)
      if (s.msgs[i].tier == sim::Tier::network) senders[node[s.msgs[i].src]].insert(s.msgs[i].src);
    for (std::size_t i = 0; i < nm; ++i) {
      const auto& x = s.msgs[i];
      res[x.src].push_back(i);
      res[node.size() + x.dst].push_back(i);
      if (nic && x.tier == sim::Tier::network && senders[node[x.src]].size() > 1) res[2 * node.size() + node[x.src]].push_back(i);
    }
    std::vector<double> busy(res.size(), 0);
    auto reference = [&](const std::vector<sim::Time>& start, std::vector<double>& done, std::vector<double>& ready) {
      done.assign(nm, 0);
      ready.assign(node.size(), 0);
      for (std::size_t q = 0; q < node.size(); ++q) ready[q] = static_cast<double>(start[q]);
      for (std::size_t i = 0, q = 0; i < nm; ++i) {  // post: o + q max(o, g); then the latency
        const auto& x = s.msgs[i];
        q = i > 0 && s.msgs[i - 1].src == x.src ? q + 1 : 0;
        const double post = static_cast<double>(start[x.src]) + (spaced ? 200 + static_cast<double>(q) * 500 : 0);
        const double from = waits ? std::max(post, static_cast<double>(start[x.dst])) : post;
        done[i] = from + (tiered && x.tier == sim::Tier::network ? 1.5e6 : 1e6);
        ready[x.src] = std::max(ready[x.src], post);  // the CPU posted its sends
      }
      const std::vector<double> act = done;
      for (std::size_t r = 0; r < res.size(); ++r) {
        std::vector<std::pair<double, double>> flows;
        for (auto i : res[r]) flows.push_back({std::max(act[i], busy[r]), 1e-10 * 1e12 * static_cast<double>(s.msgs[i].bytes)});
        const auto leave = processor_sharing(flows);
        double last = 0;
        for (std::size_t q = 0; q < leave.size(); ++q)
          done[res[r][q]] = std::max(done[res[r][q]], leave[q]), last = std::max(last, leave[q]);
        busy[r] = std::max(busy[r], std::floor(last + 0.5));
      }
      for (std::size_t i = 0; i < nm; ++i) ready[s.msgs[i].dst] = std::max(ready[s.msgs[i].dst], done[i]);
    };
    sim::Engine e(m, node);
    for (const sim::Time shift : {sim::Time{0}, sim::Time{2000}, sim::Time{1000000000000}, sim::Time{2000000000000}}) {
      auto ready = start;
      for (auto& x : ready) x += shift + (shift == 1000000000000 ? static_cast<sim::Time>(rng() % 3000) : 0);
      std::vector<double> done, expect;
      reference(ready, done, expect);
      sim::Accum acc;
      acc.resize(node.size());
      sim::Timeline tl;
      e.run(s, ready, acc, &tl);
      // The timeline holds, per message in order, its send slice and its receive slice
      // (activation to completion).
      std::vector<sim::Time> got;
      for (const auto& sl : tl.slices)
        if (sl.kind == sim::Timeline::recv) got.push_back(sl.end);
      ASSERT_EQ(got.size(), nm);
      for (std::size_t i = 0; i < nm; ++i)
        ASSERT_NEAR(static_cast<double>(got[i]), done[i], 2.0)
            << "trial " << trial << " shift " << shift << " message " << i << " " << s.msgs[i].src << "->" << s.msgs[i].dst;
      for (std::size_t q = 0; q < node.size(); ++q)
        ASSERT_NEAR(static_cast<double>(ready[q]), expect[q], 2.0) << "trial " << trial << " shift " << shift << " endpoint " << q;
    }
    ++cases;
  }
  EXPECT_EQ(cases, 300);
}

// Breakdowns are breakdowns: on every sample trace, preset and backend, no term is negative and
// the terms of an op add up to its time per call (and a backend's to its total), so no share
// passes 100 %. (The last rank's own time could start before the op did: latency 183 %, other
// -1.890 us.)
TEST(SimEngine, BreakdownsAreNonNegativeAndAddUpToTheTime) {
  for (const auto& path : sfr_test::sample_traces()) {
    const auto bt = trace::read_trace_file(path.string());
    for (const char* m : {"lassen", "generic"}) {
      const auto res = sim::simulate(bt, sim::load_machine(m), sim::all_backends(false));
      for (const auto& b : res.backends) {
        auto check = [&](const sim::Breakdown& d, double total, const std::string& what) {
          double sum = 0;
          for (int k = 0; k < sim::Breakdown::kTerms; ++k) {
            EXPECT_GE(d.term(k), 0) << what << " " << sim::Breakdown::term_name(k);
            sum += d.term(k);
          }
          EXPECT_NEAR(sum, total, 1e-9 * std::max(total, 1e-12)) << what;
          const std::string shares = sim::dominant_terms(d, total);
          for (std::size_t at = shares.find('%'); at != std::string::npos; at = shares.find('%', at + 1)) {
            const std::size_t from = shares.rfind(' ', at) + 1;
            EXPECT_LE(std::stoi(shares.substr(from, at - from)), 100) << what << ": " << shares;
          }
        };
        const std::string where = path.filename().string() + " " + m + " " + b.backend.name();
        check(b.breakdown, b.total_s, where);
        for (const auto& o : b.ops) check(o.breakdown, o.per_call_s, where + " op " + std::to_string(o.index));
      }
    }
  }
}

// A tie is called a tie, not "x1.00 ... shorter waits".
TEST(SimEngine, WhyFasterCallsATieATie) {
  sim::Breakdown a;
  a.latency = 1e-6;
  const auto same = sim::why_faster("basic", a, 1e-6, 4, "neighbor", a, 1e-6, 4);
  EXPECT_EQ(same, "basic and neighbor tie: the same predicted time");
  const auto close = sim::why_faster("basic", a, 1e-6, 4, "neighbor", a, 1.001e-6, 6);
  EXPECT_EQ(close.find("beats"), std::string::npos) << close;
  EXPECT_NE(close.find("tie"), std::string::npos) << close;
  EXPECT_NE(close.find("(4 vs 6 messages)"), std::string::npos) << close;
  sim::Breakdown b = a;
  b.latency = 2e-6;
  EXPECT_EQ(sim::why_faster("basic", a, 1e-6, 4, "neighbor", b, 2e-6, 4), "basic beats neighbor by x2.00: latency -1.000 us");
}
