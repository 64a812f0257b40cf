// Fitting a machine model to what `sf-replay calibrate` measured (core::CalibrationData): per
// tier, a three-segment alpha + beta*s fit of the ping-pong (short / eager / rendezvous, the switch
// points chosen by the data), LogGP's o_send, o_recv (measured) and gap (slope of a message
// train), the NIC's injection limit, synchronisation and pack costs; then the executor's own work
// per backend (sim/executor_fit.hpp). Every fit reports its error.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "core/calibration_data.hpp"
#include "sim/machine.hpp"

namespace sfr::sim {

// Whether a tier had a pair of ranks (its ping-pong fitted; the others copy the nearest).
using MeasuredTiers = std::array<bool, 3>;

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
// split with the least summed squared relative error, among those that cut at every step: a rise
// of a quarter or more in time from one size to the next at most 5 % larger, with two samples on
// each side, the two steepest not next to each other where there are more); with fewer than six
// samples, one segment.
ProtocolFit fit_protocols(std::vector<core::TimedSample> s);

struct Calibration {
  MachineModel machine;
  std::vector<std::string> lines;               // the fit table: one line per fitted parameter and its error
  double worst_rms = 0;                         // the largest relative fit error of the ping-pong segments
  MeasuredTiers measured{false, false, false};  // the tiers fitted from their own ping-pong
};
// Plausibility of a fitted model (pure: no MPI): one line per kind of problem, empty when none.
//  - a farther tier fitted faster than a nearer one, same protocol: its latency L below a nearer
//    measured tier's, or its beta more than kImplausibleBetaFactor times below (a network can
//    beat shared-memory copies per byte: lassen's Table 2 has it 1.7-1.9 times faster than on-node);
//  - a zero or negative term (L or beta of a measured tier, o_send, o_recv);
//  - a ping-pong fit error above kImplausibleFitError (`worst_fit_error`, relative).
inline constexpr double kImplausibleFitError = 0.25;
inline constexpr double kImplausibleBetaFactor = 2;
std::vector<std::string> implausible_fit(const MachineModel& m, const MeasuredTiers& measured, double worst_fit_error);

// The machine model (LogGP, the `generic` preset for what is not measured: device copies, split
// strategies); tiers without a pair of ranks copy the nearest measured tier (said in `lines`).
Calibration calibrate_machine(const core::CalibrationData& d);

}  // namespace sfr::sim
