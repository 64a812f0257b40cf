// A 2-rank trace whose messages sit on both sides of the size where shm leaves an on-node pair to
// MPI (core/shm_route.hpp: 64 KiB from a contiguous sender). Each rank's two leaves read the
// other rank's
//   runs  roots 0 and 1 (contiguous on both sides),
//   gaps  roots 0 and 2 (strided roots, contiguous leaves),
// with blocks of 4096 float64 (a 64 KiB message, the limit itself) or 4095 (just under it). So a
// runs bcast and reduce, the fetch-and-op both ways, and a gaps reduce (its leaves send) go
// through MPI; the 4095 bcast and the gaps bcast (strided sender) through the segment.
#pragma once

#include <memory>

#include "support/graphs.hpp"
#include "trace/trace.hpp"

namespace sfr_test {

inline trace::Trace large_runs_trace() {
  trace::Trace t;
  t.name = "large-runs-2";
  t.nranks = 2;
  const Graph runs = make_graph({{2, {{0, 1, 0}, {1, 1, 1}}}, {2, {{0, 0, 0}, {1, 0, 1}}}});
  const Graph gaps = make_graph({{3, {{0, 1, 0}, {1, 1, 2}}}, {3, {{0, 0, 0}, {1, 0, 2}}}});
  t.sfs.push_back({"runs", trace::ExplicitSF{std::make_shared<const Graph>(runs)}});
  t.sfs.push_back({"gaps", trace::ExplicitSF{std::make_shared<const Graph>(gaps)}});
  using core::MpiOp, core::OpKind, core::Unit;
  auto op = [&](OpKind k, const char* sf, Unit u, int bs, MpiOp m) {
    t.ops.push_back({k, sf, u, bs, m, core::MemType::host, core::MemType::host, 1, 0});
  };
  op(OpKind::bcast, "runs", Unit::float64, 4096, MpiOp::replace);
  op(OpKind::bcast, "runs", Unit::float64, 4095, MpiOp::replace);
  op(OpKind::reduce, "runs", Unit::float64, 4096, MpiOp::sum);
  op(OpKind::fetch_and_op, "runs", Unit::int64, 4096, MpiOp::sum);
  op(OpKind::bcast, "gaps", Unit::float64, 4096, MpiOp::sum);
  op(OpKind::reduce, "gaps", Unit::float64, 4096, MpiOp::sum);
  return t;
}

}  // namespace sfr_test
