// The device terms of a machine file (sim::MachineModel's copy and kernels), measured on this
// process's device: what `calibrate` runs on rank 0 where the ranks have a device (the CUDA
// runtime's GPU, or the emulated device under SFR_EMULATE_DEVICE, whose delays it then measures).
// Alone on the device: the other ranks wait.
#pragma once

#include "core/calibration_data.hpp"

namespace sfr::exec::cuda {

// Copies of 8 B to 8 MiB each way (pinned host memory), a one-value pack kernel, a 16 MiB
// device-to-device copy: each the least of 5 trials' means.
core::CalibrationData::Device measure_device_terms();

}  // namespace sfr::exec::cuda
