// Closed-form checks of the engine: every expected value is worked out from the model's formula.
#include <gtest/gtest.h>

#include "sim/engine.hpp"
#include "sim_support.hpp"

using namespace sfr_simtest;
using sim::ModelKind;
using trace::OpKind;

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

TEST(SimEngine, FanInSerialisesAtTheReceiver) {
  const int k = 5;
  core::Graph g(k + 1);
  for (int r = 1; r <= k; ++r) link(g, 0, r, 125, 0);  // every rank holds leaves of rank 0's roots
  // reduce: k messages of 1000 bytes arrive together at rank 0 and pass its receive stream in turn
  EXPECT_NEAR(one(make_trace(g, {op(OpKind::reduce)}), flat(ModelKind::postal)), 1e-6 + k * 1e-6, kTol);
  // bcast fans out from one sender instead: its port serialises alpha + beta*s per message
  EXPECT_NEAR(one(make_trace(g, {op(OpKind::bcast)}), flat(ModelKind::postal)), k * 2e-6, kTol);
}

TEST(SimEngine, InjectionLimitedFanOut) {
  const int k = 6;
  core::Graph g(k + 1);
  for (int r = 1; r <= k; ++r) link(g, 0, r, 125);
  auto m = flat(ModelKind::max_rate);
  m.injection_beta = 4e-9;  // the NIC is 4x slower than one process
  const auto bt = make_trace(g, {op(OpKind::bcast)});
  // max-rate with ppn = 1: alpha*m + max(s/R_N, s*beta), s = k*1000 bytes
  EXPECT_NEAR(one(bt, m), k * 1e-6 + std::max(k * 1000 * 4e-9, k * 1000 * 1e-9), kTol);
  const auto res = sim::simulate(bt, m, {sim::Backend{}});
  EXPECT_NEAR(res.backends[0].ops[0].breakdown.injection_wait, k * 3e-6, kTol);
  m.injection_beta = 0.5e-9;  // faster NIC: the postal cost again
  EXPECT_NEAR(one(bt, m), k * 2e-6, kTol);
  // Two senders on one node share the NIC: alpha*m + max(ppn*s/R_N, s*beta).
  core::Graph g2(4);
  link(g2, 0, 2, 125);
  link(g2, 1, 3, 125);
  m.injection_beta = 4e-9;
  const double two = one(make_trace(g2, {op(OpKind::bcast)}), m, {});
  EXPECT_NEAR(two, 1e-6 + 1000 * 4e-9, kTol);  // no machine: every rank its own node
  EXPECT_NEAR(one(make_trace(g2, {op(OpKind::bcast)}, trace::Machine{2, 2, 0}), m), 1e-6 + 2 * 1000 * 4e-9, kTol);
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
  EXPECT_NEAR(one(make_trace(g, {op(OpKind::bcast, core::Unit::float64, 1, 3)}), m), 3 * 2e-6, kTol);
  // 10 us of compute between begin and end hides the 2 us message.
  const auto r = sim::simulate(make_trace(g, {op(OpKind::bcast, core::Unit::float64, 1, 3, 10.0)}), m, {sim::Backend{}});
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
  o.root_mem = o.leaf_mem = trace::MemType::device;
  const auto bt = make_trace(g, {o});
  EXPECT_NEAR(one(bt, m, {sim::BackendKind::basic, false}), (10e-6 + 2e-6) + 2e-6 + (12e-6 + 3e-6), kTol);
  EXPECT_NEAR(one(bt, m, {sim::BackendKind::basic, true}), 5e-6 + 0.1e-6, kTol);
  // Four ranks sharing one GPU copy concurrently: the four-process parameters apply.
  m.d2h[1] = {20e-6, 4e-9}, m.h2d[1] = {22e-6, 5e-9};
  const auto shared = make_trace(g, {o}, trace::Machine{2, 2, 1});
  EXPECT_NEAR(one(shared, m, {sim::BackendKind::basic, false}), (20e-6 + 4e-6) + 2e-6 + (22e-6 + 5e-6), kTol);
}

TEST(SimEngine, WindowFencesAndAlltoallvEmptyMessages) {
  core::Graph g(2);
  link(g, 0, 1, 125);
  const auto m = flat(ModelKind::postal);
  // fence (log2(2) = 1 round of alpha), put, fence
  EXPECT_NEAR(one(make_trace(g, {op(OpKind::bcast)}), m, {sim::BackendKind::window, false}), 1e-6 + 2e-6 + 1e-6, kTol);
  core::Graph g4(4);
  link(g4, 0, 1, 125);
  // Rank 0 first sends 2 empty messages (alpha each), rank 1 posts after its 3 empty ones.
  EXPECT_NEAR(one(make_trace(g4, {op(OpKind::bcast)}), m, {sim::BackendKind::alltoallv, false}), 2e-6 + 2e-6, kTol);
}

TEST(SimEngine, NoEdgesMeansNoCommunicationForEveryBackend) {
  core::Graph g(8);
  for (int r = 0; r < 8; ++r) g[r].nroots = 3;
  std::vector<trace::OpSpec> ops;
  for (auto k : {OpKind::bcast, OpKind::reduce, OpKind::fetch_and_op, OpKind::gather, OpKind::scatter, OpKind::degree}) {
    auto o = op(k, core::Unit::int32, 2);
    if (k == OpKind::bcast) o.root_mem = o.leaf_mem = trace::MemType::device;
    ops.push_back(o);
  }
  const auto bt = make_trace(g, ops, trace::Machine{4, 2, 4});
  for (const char* name : {"lassen", "generic"}) {
    const auto res = sim::simulate(bt, *sim::preset(name), sim::all_backends(true));
    ASSERT_EQ(res.backends.size(), 14u);
    for (const auto& b : res.backends) {
      EXPECT_EQ(b.total_s, 0.0) << name << " " << b.backend.name();
      EXPECT_EQ(b.messages, 0u) << name << " " << b.backend.name();
    }
  }
}

TEST(SimEngine, DeterministicOutput) {
  auto g = random_graph(64, 40, 50, 7);
  auto o = op(OpKind::bcast, core::Unit::float64, 3, 2, 1.5);
  auto d = op(OpKind::reduce);
  d.root_mem = d.leaf_mem = trace::MemType::device;
  const auto bt = make_trace(g, {o, d, op(OpKind::gather, core::Unit::int32)}, trace::Machine{8, 4, 4});
  for (const char* name : {"lassen", "generic"}) {
    sim::Timeline t1, t2;
    const auto a = sim::simulate(bt, *sim::preset(name), sim::all_backends(true), &t1);
    const auto b = sim::simulate(bt, *sim::preset(name), sim::all_backends(true), &t2);
    EXPECT_EQ(sim::render_json(a), sim::render_json(b));
    EXPECT_EQ(sim::render_timeline(t1, 64), sim::render_timeline(t2, 64));
    for (const auto& br : a.backends) EXPECT_GT(br.total_s, 0) << br.backend.name();
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
  auto count = [&](sim::BackendKind k) { return sim::simulate(bt, m, {{k, false}}).backends[0].messages; };
  EXPECT_EQ(count(sim::BackendKind::basic), 4u);
  // 3-step: node 0's leader for node 1 is its local rank 1 (1 mod 2): rank 0 sends to rank 1 (1);
  // rank 1 sends one message to node 1's leader for node 0, rank 2 (0 mod 2) (1); rank 2 forwards
  // rank 3's part (1).
  EXPECT_EQ(count(sim::BackendKind::three_step), 3u);
  // 2-step: each rank sends once to its pair on node 1 (2), the pairs exchange the other half (2).
  EXPECT_EQ(count(sim::BackendKind::two_step), 4u);
  // 3-step times: rank 0 -> 1 (80 bytes), 1 -> 2 (each root once per sender: 160 bytes, not 320),
  // 2 -> 3 (rank 3's 160 bytes); each step starts when its rank finished the previous one.
  EXPECT_NEAR(sim::simulate(bt, m, {{sim::BackendKind::three_step, false}}).backends[0].total_s,
              (1e-6 + 80e-9) + (1e-6 + 160e-9) + (1e-6 + 160e-9), kTol);
}
