// The trace of `calibrate`'s measurement of the executor's own cost per op: one bcast of one
// float64 per leaf on core::calibration_ring. The executor runs it (exec/mpi/calibrate.cpp) and
// the simulator predicts it (sim/calibration.cpp).
#pragma once

#include <memory>
#include <optional>

#include "core/calibration_data.hpp"
#include "trace/trace.hpp"

namespace sfr::trace {

// `permuted` false: the ring in order (core::calibration_ring).
inline Trace calibration_ring_trace(int nranks, std::optional<Machine> machine = std::nullopt, bool permuted = true) {
  Trace t;
  t.name = "calibrate-ring";
  t.nranks = nranks;
  t.machine = machine;
  t.sfs.push_back({"R", ExplicitSF{std::make_shared<const core::Graph>(core::calibration_ring(nranks, permuted))}});
  OpSpec op;
  op.op = OpKind::bcast;
  op.sf = "R";
  op.unit = core::Unit::float64;
  t.ops = {op};
  return t;
}

}  // namespace sfr::trace
