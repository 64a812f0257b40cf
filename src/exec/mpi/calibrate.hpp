// The measurements behind `sf-replay calibrate`: ping-pong per locality tier, LogGP overheads
// and gap, a node's injection limit, synchronisation per backend and pack costs (see
// core/calibration_data.hpp). Collective over `comm`; the result is complete on rank 0.
#pragma once

#include <mpi.h>

#include <functional>
#include <string>

#include "core/calibration_data.hpp"

namespace sfr::exec::mpi {

struct CalibrateOptions {
  int ranks_per_node = 0;                            // > 0: emulated nodes of this many consecutive ranks; 0: real nodes
  int ranks_per_socket = 0;                          // > 0: sockets of this many consecutive ranks of a node; 0: one
  std::function<void(const std::string&)> progress;  // rank 0: called before each part
  // > 0: the host's cores, which its ranks outnumber (placed round robin): the ring between core
  // mates is measured too (core::CalibrationData::sf_mate_ring).
  int cores = 0;
  // The executor's rounds (calibrate's step 5) stop once they have taken this many seconds (rank
  // 0's clock; core::kMinExecutorRounds to core::kMaxExecutorRounds of them).
  double executor_seconds = core::kExecutorSeconds;
};

core::CalibrationData calibrate(MPI_Comm comm, const CalibrateOptions& o);

}  // namespace sfr::exec::mpi
