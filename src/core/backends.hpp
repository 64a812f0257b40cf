// The executor's point-to-point backends that the simulator models too, in order of preference
// on ties: what `run --backend all` runs, validate-model compares, `--backend auto` chooses from
// and calibrate measures the executor's own cost on.
#pragma once

namespace sfr::core {

inline constexpr const char* kModelledBackends[] = {"basic", "neighbor", "window", "alltoallv"};

}  // namespace sfr::core
