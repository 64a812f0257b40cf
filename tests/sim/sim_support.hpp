// Small in-memory traces and a flat machine for closed-form checks of the simulator.
#pragma once

#include <memory>
#include <random>

#include "sim/simulate.hpp"
#include "support/graphs.hpp"

namespace sfr_simtest {
using namespace sfr;
using sfr_test::make_graph;

// Every tier and protocol costs alpha + beta*s; nothing else costs anything.
inline sim::MachineModel flat(sim::ModelKind k, double a = 1e-6, double b = 1e-9) {
  sim::MachineModel m = *sim::preset("generic");
  m.name = "flat";
  m.model = k;
  for (auto& mem : m.p2p)
    for (auto& tier : mem)
      for (auto& p : tier) p = {a, b};
  m.short_max = m.eager_max = std::int64_t{1} << 40;
  m.handshake_legs = 0;
  m.injection_beta = 0;
  m.h2d = m.d2h = {sim::AlphaBeta{0, 0}, sim::AlphaBeta{0, 0}};
  m.pack = {0, 0};
  m.o_send = m.o_recv = m.gap = 0;
  m.collective_overhead = 0;
  m.topology = {1, 1, 0};
  return m;
}

inline core::OpSpec op(core::OpKind k, core::Unit u = core::Unit::float64, int bs = 1, core::Index repeat = 1, double overlap_us = 0) {
  core::OpSpec o;
  o.op = k;
  o.sf = "S";
  o.unit = u;
  o.bs = bs;
  o.mpi_op = k == core::OpKind::bcast || k == core::OpKind::reduce ? core::MpiOp::replace : core::default_mpi_op(k);
  o.repeat = repeat;
  o.overlap_us = overlap_us;
  return o;
}

inline trace::BuiltTrace make_trace(core::Graph g, std::vector<core::OpSpec> ops, std::optional<trace::Machine> mach = std::nullopt) {
  trace::Trace t;
  t.name = "test";
  t.nranks = g.nranks;
  t.machine = mach;
  t.sfs.push_back({"S", trace::ExplicitSF{std::make_shared<const core::Graph>(std::move(g))}});
  t.ops = std::move(ops);
  return trace::BuiltTrace(std::move(t));
}

// Rank `dst` gets `count` leaves on roots 0..count-1 of rank `src` (bcast sends src -> dst).
inline void link(core::Graph& g, int src, int dst, core::Index count, core::Index root0 = 0) {
  g[src].nroots = std::max(g[src].nroots, root0 + count);
  for (core::Index i = 0; i < count; ++i) g[dst].add_leaf(g[dst].leafspace(), src, root0 + i);
}

inline core::Graph random_graph(int nranks, int leaves_per_rank, core::Index roots_per_rank, unsigned seed) {
  core::Graph g(nranks);
  std::mt19937_64 rng(seed);
  for (int r = 0; r < nranks; ++r) g[r].nroots = roots_per_rank;
  for (int r = 0; r < nranks; ++r)
    for (int j = 0; j < leaves_per_rank; ++j)
      g[r].add_leaf(j, static_cast<int>(rng() % static_cast<unsigned>(nranks)),
                    static_cast<core::Index>(rng() % static_cast<std::uint64_t>(roots_per_rank)));
  return g;
}

inline double one(const trace::BuiltTrace& bt, const sim::MachineModel& m, sim::BackendVariant b = {}) {
  return sim::simulate(bt, m, {b}).backends.at(0).total_s;
}

}  // namespace sfr_simtest
