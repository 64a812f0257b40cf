// Fitting a machine model to what `sf-replay calibrate` measured (core::CalibrationData): per
// tier, a three-segment alpha + beta*s fit of the ping-pong (short / eager / rendezvous, the switch
// points chosen by the data), LogGP's o_send, o_recv (measured) and gap (slope of a message
// train), the NIC's injection limit, synchronisation and pack costs. Every fit reports its error.
#pragma once

#include <string>
#include <vector>

#include "core/calibration_data.hpp"
#include "sim/machine.hpp"

namespace sfr::sim {

// Weighted least squares of seconds = alpha + beta * x, minimising relative errors (times span
// microseconds to milliseconds); alpha and beta are kept >= 0. `rms` receives the root mean square
// relative error of the fit.
AlphaBeta fit_alpha_beta(const std::vector<core::TimedSample>& s, double* rms = nullptr);

struct ProtocolFit {
  AlphaBeta seg[3];                           // short, eager, rendezvous
  double rms[3] = {0, 0, 0};                  // relative fit error per segment
  int count[3] = {0, 0, 0};                   // samples per segment
  std::int64_t short_max = 0, eager_max = 0;  // the largest size of the first two segments
};
// Samples sorted by size split into three consecutive segments of at least two samples each (the
// split with the least summed squared relative error); with fewer than six samples, one segment.
ProtocolFit fit_protocols(std::vector<core::TimedSample> s);

struct Calibration {
  MachineModel machine;
  std::vector<std::string> lines;  // the fit table: one line per fitted parameter and its error
  double worst_rms = 0;            // the largest relative fit error of the ping-pong segments
};
// The machine model (LogGP, the `generic` preset for what is not measured: device copies, split
// strategies); tiers without a pair of ranks copy the nearest measured tier (said in `lines`).
Calibration calibrate_machine(const core::CalibrationData& d);

}  // namespace sfr::sim
