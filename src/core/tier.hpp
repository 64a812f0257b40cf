// Where ranks sit (RankLayout) and the locality tier of a message between two of them, for every
// part of the project (plan, inspect, the simulator, calibration): one vocabulary, one computation.
#pragma once

#include <algorithm>
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
struct Location {
  std::int32_t node = 0;
  std::int32_t socket = 0;
};
inline constexpr Tier tier_between(Location a, Location b) {
  return a.node != b.node ? Tier::network : a.socket != b.socket ? Tier::node : Tier::socket;
}

// Where the ranks of a run sit: numbered node by node, socket by socket (consecutive blocks; the
// last node may hold fewer). The plan's rounds read the nodes, the simulator sockets and GPUs too.
struct RankLayout {
  int nranks = 1;
  int ranks_per_node = 1;
  int ranks_per_socket = 1;
  int gpus_per_node = 0;
  constexpr int node(int r) const { return r / ranks_per_node; }
  constexpr int socket(int r) const { return r / ranks_per_socket; }
  constexpr Location location(int r) const { return {node(r), socket(r)}; }
  constexpr int nnodes() const { return (nranks + ranks_per_node - 1) / ranks_per_node; }
  constexpr int ranks_on_node(int k) const { return std::min(ranks_per_node, nranks - k * ranks_per_node); }
  // The local-th rank of node k (wrapping round a node that holds fewer).
  constexpr int rank_on(int k, int local) const { return k * ranks_per_node + local % ranks_on_node(k); }
  constexpr int ranks_per_gpu() const { return gpus_per_node > 0 ? (ranks_per_node + gpus_per_node - 1) / gpus_per_node : 1; }
};

}  // namespace sfr::core
