// Shared pieces of every generator: trace assembly (machine placement, meta provenance, ops),
// ownership splits and a deterministic random stream.
#pragma once

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/graph.hpp"
#include "core/names.hpp"
#include "trace/trace.hpp"

namespace sfr::gen {

using core::Index;

// PetscSplitOwnership: n items over p ranks, the first n % p ranks get one more.
// Returns the layout b_0 = 0 <= b_1 <= ... <= b_p = n.
std::vector<Index> split_ownership(Index n, int p);
// Owner of global item i under `layout` (binary search).
int owner_of(const std::vector<Index>& layout, Index i);

// Placement and provenance shared by all generators.
struct Placement {
  int ranks_per_node = 1;
  int ranks_per_socket = 0;  // 0: same as ranks_per_node (one socket per node)
};
void check_placement(const Placement& p);  // InputError on values < 1

// A trace with machine placement and meta = {"generator": generator, "params": params, "seed": seed,
// "input": input (omitted when empty)}.
trace::Trace make_trace(std::string name, int nranks, const Placement& place, const std::string& generator, nlohmann::json params,
                        std::uint64_t seed, const std::string& input = "");
trace::SFDef explicit_sf(std::string name, core::Graph g);
core::OpSpec make_op(core::OpKind kind, std::string sf, core::MpiOp mop, core::Unit unit = core::Unit::float64, int bs = 1);

// Deterministic random stream (the same numbers on every platform for a seed).
class Rng {
public:
  explicit Rng(std::uint64_t seed) : eng_(seed) {}
  std::uint64_t next() { return eng_(); }
  Index below(Index n);  // uniform in [0, n), n > 0
  double unit();         // uniform in [0, 1)
  template <class T>
  void shuffle(std::vector<T>& v) {
    for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[static_cast<std::size_t>(below(static_cast<Index>(i)))]);
  }

private:
  std::mt19937_64 eng_;
};

// A closed set of named choices of an option: an enum value and its command-line name.
template <class E>
using Choice = core::Named<E>;

// The value named `s`; otherwise InputError(option, "unknown WHAT 's' (expected a, b or c)").
template <class E, std::size_t N>
E parse_choice(const char* option, const char* what, const std::string& s, const std::array<Choice<E>, N>& choices) {
  E v{};
  if (core::parse_name(s, choices, v)) return v;
  throw InputError(option, std::string("unknown ") + what + " '" + s + "' (expected " + core::name_list(choices) + ")");
}

template <class E, std::size_t N>
const char* choice_name(E v, const std::array<Choice<E>, N>& choices) {
  return core::name_of(v, choices);
}

// Option checks that throw InputError(option, ...).
void require_positive(const char* option, Index v);
void require_fraction(const char* option, double v);  // 0 <= v <= 1

}  // namespace sfr::gen
