// The traces of `calibrate`'s measurement of the executor's own costs: one bcast (or reduce) of
// one float64 per leaf on core::calibration_ring or core::calibration_fan. The executor runs them
// (exec/mpi/calibrate.cpp) and the simulator predicts them (sim/calibration.cpp, sim/executor_fit.cpp).
#pragma once

#include <algorithm>
#include <memory>
#include <optional>

#include "core/calibration_data.hpp"
#include "trace/trace.hpp"

namespace sfr::trace {

// The measurement's patterns (core/calibration_data.hpp, where calibrate's table of them names
// them).
using core::CalibrationShape;

// The large ring, in order or permuted (core::calibration_ring_both_ways).
inline bool large_ring(CalibrationShape shape) {
  return shape == CalibrationShape::ring_large || shape == CalibrationShape::ring_large_permuted;
}

// The rings between core mates.
inline bool mate_ring(CalibrationShape shape) {
  return shape == CalibrationShape::mate_ring || shape == CalibrationShape::mate_ring_small;
}

// The values each rank sends (and receives) in that pattern at `nranks` ranks.
inline int calibration_values(CalibrationShape shape, int nranks) {
  if (shape == CalibrationShape::fan_large) return core::kCalibrationLargeFanValues * std::max(1, nranks - 1);
  if (shape == CalibrationShape::fan) return core::calibration_fan_per_peer(nranks) * std::max(1, nranks - 1);
  if (shape == CalibrationShape::ring_small || shape == CalibrationShape::mate_ring_small) return core::kCalibrationSmallValues;
  return large_ring(shape) ? core::kCalibrationLargeValues : core::kCalibrationSfOpValues;
}

// One op of `kind` (bcast, or reduce with sum) on that pattern; `cores`: the host's, for the rings
// between core mates (at least 1).
inline Trace calibration_trace(int nranks, std::optional<Machine> machine, CalibrationShape shape,
                               core::OpKind kind = core::OpKind::bcast, int cores = 1) {
  Trace t;
  const bool fan = shape == CalibrationShape::fan || shape == CalibrationShape::fan_large;
  t.name = fan ? "calibrate-fan" : "calibrate-ring";
  t.nranks = nranks;
  t.machine = machine;
  const int values = calibration_values(shape, nranks);
  core::Graph g = fan                                       ? core::calibration_fan(nranks, values / std::max(1, nranks - 1))
                  : large_ring(shape)                       ? core::calibration_ring_both_ways(nranks, values, shape == CalibrationShape::ring_large_permuted)
                  : shape == CalibrationShape::ring_strided ? core::calibration_ring_strided(nranks, values)
                                                            : core::calibration_ring(nranks, shape == CalibrationShape::ring_permuted, values,
                                                                                     mate_ring(shape) ? std::max(1, cores) : 1);
  t.sfs.push_back({"R", ExplicitSF{std::make_shared<const core::Graph>(std::move(g))}});
  OpSpec op;
  op.op = kind;
  op.sf = "R";
  op.unit = core::Unit::float64;
  if (kind == core::OpKind::reduce) op.mpi_op = core::MpiOp::sum;
  t.ops = {op};
  return t;
}

// `permuted` false: the ring in order (core::calibration_ring).
inline Trace calibration_ring_trace(int nranks, std::optional<Machine> machine = std::nullopt, bool permuted = true) {
  return calibration_trace(nranks, std::move(machine), permuted ? CalibrationShape::ring_permuted : CalibrationShape::ring_in_order);
}

}  // namespace sfr::trace
