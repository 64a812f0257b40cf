// Synthetic data-movement patterns of the ParaDiGM paper: a block-distributed frame (roots) and a
// partitioned frame (leaves) of the same global ids.
#pragma once

#include <string>

#include "common.hpp"

namespace sfr::gen {

enum class SyntheticPattern { diagonal, quasi_diagonal, random };
enum class Direction { block_to_part, part_to_block };
SyntheticPattern parse_synthetic_pattern(const std::string& s);
Direction parse_direction(const std::string& s);

struct SyntheticOptions {
  SyntheticPattern pattern = SyntheticPattern::diagonal;
  double fraction = 0.1;  // quasi-diagonal: fraction of each part taken from other ranks
  Index per_rank = 1000;  // block and part size per rank
  int nranks = 4;
  Direction direction = Direction::block_to_part;
  std::uint64_t seed = 1;
  Placement place;
};

// Global ids 0..P*n-1; rank p's block holds ids p*n..(p+1)*n-1 (roots). Rank p's part has n elements
// (leaves, positions 0..n-1): diagonal: its own block; quasi-diagonal: its own block with exactly
// round(fraction*n) seeded-random positions replaced by a random id of the block of another rank q
// with 1 <= |q-p| <= max(1, round(fraction*P)) (the thick diagonal of Fig. 10); random: n uniformly
// random ids. Parts may hold an id more than once (a root with several leaves).
core::Graph synthetic_graph(const SyntheticOptions& o);
// SF "frames"; block-to-part is bcast/replace, part-to-block is reduce/sum; unit int32.
trace::Trace synthetic_trace(const SyntheticOptions& o);

}  // namespace sfr::gen
