// Locality tiers of a message between two ranks, for every part of the project (inspect, the
// simulator's machine models and schedules, calibration): one vocabulary, one computation.
#pragma once

#include <array>
#include <cstdint>

#include "core/names.hpp"

namespace sfr::core {

// socket: same socket; node: same node, other socket; network: other node. A rank's message to
// itself has no tier (it is a local copy).
enum class Tier : std::uint8_t { socket = 0, node = 1, network = 2 };
inline constexpr std::array<Named<Tier>, 3> kTierNames{{{Tier::socket, "socket"}, {Tier::node, "node"}, {Tier::network, "network"}}};
inline constexpr const char* tier_name(Tier t) { return name_of(t, kTierNames); }

// Where an endpoint runs: its node and its socket (global numbers).
struct Placement {
  std::int32_t node = 0;
  std::int32_t socket = 0;
};
inline constexpr Tier tier_between(Placement a, Placement b) {
  return a.node != b.node ? Tier::network : a.socket != b.socket ? Tier::node : Tier::socket;
}
// Ranks numbered node by node, socket by socket (consecutive blocks).
inline constexpr Placement placement_of(std::int32_t rank, std::int32_t ranks_per_node, std::int32_t ranks_per_socket) {
  return {rank / ranks_per_node, rank / ranks_per_socket};
}

}  // namespace sfr::core
