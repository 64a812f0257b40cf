// Random star forests for property tests.
#pragma once

#include "common.hpp"

namespace sfr::gen {

struct RandomOptions {
  int nranks = 4;
  std::uint64_t seed = 1;
  Index max_roots = 8;   // nroots of each rank: uniform in [0, max_roots]
  Index max_leaves = 8;  // attempted leaves of each rank: uniform in [0, max_leaves]
  Index max_degree = 0;  // cap on every root's degree (0: none); leaves that find no root are dropped
  double holes = 0;      // leaf space = nleaves + round(holes * nleaves); leaves at random distinct positions
  double self = 0.25;    // probability that a leaf targets its own rank (0: no self edges)
  Placement place;
};

// Each leaf picks its rank (own rank with probability `self`, else uniform among the other ranks
// that have roots), then a uniform root of it with degree < max_degree (up to 16 tries).
core::Graph random_graph(const RandomOptions& o);
// SF "random" with ops bcast/replace, reduce/sum, fetch_and_op/sum, gather, scatter, degree (int64).
trace::Trace random_trace(const RandomOptions& o);

}  // namespace sfr::gen
