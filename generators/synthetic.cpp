#include "synthetic.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.hpp"

namespace sfr::gen {

namespace {
constexpr std::array<Choice<SyntheticPattern>, 3> kPatterns{
    {{SyntheticPattern::diagonal, "diagonal"}, {SyntheticPattern::quasi_diagonal, "quasi-diagonal"}, {SyntheticPattern::random, "random"}}};
constexpr std::array<Choice<Direction>, 2> kDirections{
    {{Direction::block_to_part, "block-to-part"}, {Direction::part_to_block, "part-to-block"}}};
const char* pattern_name(SyntheticPattern p) { return choice_name(p, kPatterns); }
}  // namespace

SyntheticPattern parse_synthetic_pattern(const std::string& s) { return parse_choice("--pattern", "pattern", s, kPatterns); }
Direction parse_direction(const std::string& s) { return parse_choice("--direction", "direction", s, kDirections); }

core::Graph synthetic_graph(const SyntheticOptions& o) {
  require_positive("--ranks", o.nranks);
  require_positive("--per-rank", o.per_rank);
  require_fraction("--fraction", o.fraction);
  if (o.pattern == SyntheticPattern::quasi_diagonal && o.nranks < 2 && o.fraction > 0)
    throw InputError("--ranks", "quasi-diagonal needs at least 2 ranks");
  const Index n = o.per_rank, total = n * o.nranks;
  Rng rng(o.seed);
  core::Graph g(o.nranks);
  const int width = std::max(1, static_cast<int>(std::lround(o.fraction * o.nranks)));
  for (int p = 0; p < o.nranks; ++p) {
    std::vector<Index> part(static_cast<std::size_t>(n));
    if (o.pattern == SyntheticPattern::random) {
      for (Index& x : part) x = rng.below(total);
    } else {
      std::iota(part.begin(), part.end(), p * n);
      if (o.pattern == SyntheticPattern::quasi_diagonal) {
        std::vector<Index> slots(static_cast<std::size_t>(n));
        std::iota(slots.begin(), slots.end(), Index{0});
        rng.shuffle(slots);
        const Index moved = std::llround(o.fraction * static_cast<double>(n));
        const int lo = std::max(0, p - width), hi = std::min(o.nranks - 1, p + width);
        for (Index s = 0; s < moved; ++s) {
          int q = p;
          while (q == p) q = lo + static_cast<int>(rng.below(hi - lo + 1));
          part[static_cast<std::size_t>(slots[static_cast<std::size_t>(s)])] = q * n + rng.below(n);
        }
      }
    }
    core::RankGraph& rg = g[p];
    rg.nroots = n;
    for (Index x : part) {
      rg.remote_rank.push_back(static_cast<int>(x / n));
      rg.remote_index.push_back(x % n);
    }
  }
  return g;
}

trace::Trace synthetic_trace(const SyntheticOptions& o) {
  core::Graph g = synthetic_graph(o);
  const bool b2p = o.direction == Direction::block_to_part;
  nlohmann::json params = {{"pattern", pattern_name(o.pattern)},
                           {"per_rank", o.per_rank},
                           {"ranks", o.nranks},
                           {"direction", b2p ? "block-to-part" : "part-to-block"}};
  if (o.pattern == SyntheticPattern::quasi_diagonal) params["fraction"] = o.fraction;
  trace::Trace t =
      make_trace(std::string("synthetic-") + pattern_name(o.pattern) + (b2p ? "-b2p" : "-p2b") + "-p" + std::to_string(o.nranks), o.nranks,
                 o.place, "synthetic", std::move(params), o.seed);
  t.sfs.push_back(explicit_sf("frames", std::move(g)));
  t.ops.push_back(b2p ? make_op(core::OpKind::bcast, "frames", core::MpiOp::replace, core::Unit::int32)
                      : make_op(core::OpKind::reduce, "frames", core::MpiOp::sum, core::Unit::int32));
  return t;
}

}  // namespace sfr::gen
