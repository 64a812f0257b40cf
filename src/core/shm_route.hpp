// Which on-node pairs the shm backend leaves to MPI: the executor (exec/mpi/shm.cpp) and the plan
// (plan/rounds.cpp, which the simulator and inspect read) ask this one rule, so that they agree
// message for message.
//
// Why: shm moves a pair's values in two copies (the sender packs into its segment, the receiver
// unpacks from it), the second across cores. Where the sender's values are one contiguous run of
// its array, MPI needs no pack and Open MPI's single-copy path (CMA) moves a large message in one
// copy, straight into the leaves for a REPLACE bcast. Measured at 2 ranks on this machine
// (tests/bench/large_messages.sh, contiguous runs both ways): 32 KiB per message, shm 4.8 us and
// MPI 4.8-5.2; 128 KiB, shm 18.3 and MPI 11.7. Scattered senders keep the segment at every size
// (MPI would pack too: three copies against two; 128 KiB strided bcast, shm 24 us and MPI 34).
#pragma once

#include <cstdint>

#include "core/peer_lists.hpp"

namespace sfr::core {

inline constexpr std::int64_t kShmToMpiBytes = std::int64_t{64} << 10;

// Whether shm sends `bytes` to an on-node peer through MPI, the sender's index list being `sender`.
inline bool shm_leaves_to_mpi(std::int64_t bytes, const IndexShape& sender) {
  return bytes >= kShmToMpiBytes && sender.kind == IndexShape::contiguous;
}

}  // namespace sfr::core
