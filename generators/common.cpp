#include "common.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace sfr::gen {

std::vector<Index> split_ownership(Index n, int p) {
  std::vector<Index> layout(static_cast<std::size_t>(p) + 1, 0);
  const Index base = n / p, extra = n % p;
  for (int r = 0; r < p; ++r) layout[static_cast<std::size_t>(r) + 1] = layout[static_cast<std::size_t>(r)] + base + (r < extra ? 1 : 0);
  return layout;
}

int owner_of(const std::vector<Index>& layout, Index i) {
  // Last rank whose start is <= i (empty ranks are skipped because upper_bound lands past them).
  auto it = std::upper_bound(layout.begin(), layout.end(), i);
  return static_cast<int>(it - layout.begin()) - 1;
}

void check_placement(const Placement& p) {
  if (p.ranks_per_node < 1) throw InputError("--ranks-per-node", "must be at least 1");
  if (p.ranks_per_socket < 0) throw InputError("--ranks-per-socket", "must be at least 1");
  if (p.ranks_per_socket > p.ranks_per_node) throw InputError("--ranks-per-socket", "must not exceed --ranks-per-node");
}

trace::Trace make_trace(std::string name, int nranks, const Placement& place, const std::string& generator, nlohmann::json params,
                        std::uint64_t seed, const std::string& input) {
  check_placement(place);
  trace::Trace t;
  t.name = std::move(name);
  t.nranks = nranks;
  t.machine = trace::Machine{place.ranks_per_node, place.ranks_per_socket ? place.ranks_per_socket : place.ranks_per_node, 0};
  nlohmann::json meta = {{"generator", generator}, {"params", std::move(params)}, {"seed", seed}};
  if (!input.empty()) meta["input"] = input;
  t.meta_json = meta.dump();
  return t;
}

trace::SFDef explicit_sf(std::string name, core::Graph g) {
  return trace::SFDef{std::move(name), trace::ExplicitSF{std::make_shared<const core::Graph>(std::move(g))}};
}

core::OpSpec make_op(core::OpKind kind, std::string sf, core::MpiOp mop, core::Unit unit, int bs) {
  core::OpSpec op;
  op.op = kind;
  op.sf = std::move(sf);
  op.unit = unit;
  op.bs = bs;
  op.mpi_op = core::op_takes_mpi_op(kind) ? mop : core::default_mpi_op(kind);
  return op;
}

Index Rng::below(Index n) { return static_cast<Index>((static_cast<unsigned __int128>(next()) * static_cast<unsigned __int128>(n)) >> 64); }

double Rng::unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

void require_positive(const char* option, Index v) {
  if (v < 1) throw InputError(option, "must be at least 1 (got " + std::to_string(v) + ")");
}

void require_fraction(const char* option, double v) {
  if (!(v >= 0 && v <= 1)) throw InputError(option, "must be between 0 and 1 (got " + std::to_string(v) + ")");
}

}  // namespace sfr::gen
