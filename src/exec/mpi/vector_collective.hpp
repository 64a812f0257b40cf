// Internal: counts and displacements (in vertices) of a link's send and receive blocks, laid out
// either per neighbour (neighbourhood collectives) or per rank of the communicator (alltoallv).
#pragma once

#include "exec/mpi/link.hpp"

namespace sfr::exec::mpi {

inline void fill_counts(const core::PeerLists& lists, std::vector<int>& counts, std::vector<int>& displs, int nranks_dense) {
  const std::size_t n = nranks_dense > 0 ? static_cast<std::size_t>(nranks_dense) : lists.npeers();
  counts.assign(n == 0 ? 1 : n, 0);  // never empty: some MPIs reject null arrays
  displs.assign(n == 0 ? 1 : n, 0);
  for (std::size_t p = 0; p < lists.npeers(); ++p) {
    const std::size_t slot = nranks_dense > 0 ? static_cast<std::size_t>(lists.peers[p]) : p;
    counts[slot] = static_cast<int>(lists.count(p));
    displs[slot] = static_cast<int>(lists.offsets[p]);
  }
}

// A link's counts and displacements as its backend keeps them (in vertices, with Link::vtype).
struct VectorCounts : LinkState {
  std::vector<int> scounts, sdispls, rcounts, rdispls;
};
// Made for the link (as the backend's own state, VectorCounts or a type derived from it): per rank
// of `nranks_dense` ranks, or per neighbour (0).
template <class State = VectorCounts>
State& make_counts(Link& l, int nranks_dense) {
  auto& c = l.make_state<State>();
  fill_counts(*l.send, c.scounts, c.sdispls, nranks_dense);
  fill_counts(*l.recv, c.rcounts, c.rdispls, nranks_dense);
  return c;
}

// Non-null buffer pointer even when the buffer is empty.
inline std::byte* buf_or_dummy(std::vector<std::byte>& v) {
  static std::byte dummy[16];
  return v.empty() ? dummy : v.data();
}

}  // namespace sfr::exec::mpi
