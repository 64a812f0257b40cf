// calibrate's executor fit, after the network's (sim/calibration.cpp): per calibrated backend
// (core::kCalibratedBackends), the executor's own work per call, fitted term by term from what
// the executor measured on calibrate's patterns (rings and fans) less what the network model
// alone predicts for them (sim/README.md, "Calibration").
#pragma once

#include "core/calibration_data.hpp"
#include "sim/calibration.hpp"

namespace sfr::sim {

// Bounds the collective overhead by the collectives' rings, then fits every calibrated backend
// that was measured into c.machine's executor costs, with one line per term in c.lines. Needs the
// network fit done (c.machine's tiers, overheads and gap) and calibrate's ring measured.
void fit_executor(const core::CalibrationData& d, Calibration& c);

}  // namespace sfr::sim
