#include "trace/build.hpp"

#include <string>

#include "core/budget.hpp"
#include "core/error.hpp"
#include "core/format.hpp"
#include "io/json_strict.hpp"
#include "trace/size.hpp"

namespace sfr::trace {

using namespace sfr::io;  // the JSON layer

namespace {
const core::Graph& input(const DerivedSF& d, size_t k, const GraphLookup& lookup) {
  if (k >= d.of.size()) throw GraphError(std::string(derive_kind_name(d.kind)) + " needs more inputs in \"of\"");
  const core::Graph* g = lookup(d.of[k]);
  if (!g) throw GraphError("unknown or not yet defined SF \"" + d.of[k] + "\"");
  return *g;
}
}  // namespace

std::shared_ptr<const core::Graph> build_sf(const SFDef& def, int nranks, const GraphLookup& lookup) {
  core::Graph g;
  if (const auto* e = std::get_if<ExplicitSF>(&def.def)) {
    core::check_graph(*e->graph);
    if (e->graph->nranks != nranks)
      throw GraphError("SF has " + std::to_string(e->graph->nranks) + " ranks, trace has " + std::to_string(nranks));
    return e->graph;
  } else if (const auto* l = std::get_if<LayoutSF>(&def.def)) {
    g = core::layout_graph(l->layout, l->ranks);
  } else if (const auto* p = std::get_if<PatternSF>(&def.def)) {
    g = core::pattern_graph(p->pattern, p->nroots);
  } else {
    const auto& d = std::get<DerivedSF>(def.def);
    switch (d.kind) {
      case DeriveKind::multi: g = core::multi_sf(input(d, 0, lookup)); break;
      case DeriveKind::compose: g = core::compose(input(d, 0, lookup), input(d, 1, lookup)); break;
      case DeriveKind::compose_inverse: g = core::compose_inverse(input(d, 0, lookup), input(d, 1, lookup)); break;
      case DeriveKind::embed_roots: g = core::embed_roots(input(d, 0, lookup), d.selected); break;
      case DeriveKind::embed_leaves: g = core::embed_leaves(input(d, 0, lookup), d.selected); break;
      case DeriveKind::inverse: g = core::inverse(input(d, 0, lookup)); break;
      case DeriveKind::concatenate: {
        std::vector<const core::Graph*> in;
        for (size_t k = 0; k < d.of.size(); ++k) in.push_back(&input(d, k, lookup));
        g = core::concatenate(in, d.shared_roots);
        break;
      }
    }
  }
  if (g.nranks != nranks) throw GraphError("SF has " + std::to_string(g.nranks) + " ranks, trace has " + std::to_string(nranks));
  core::check_graph(g);
  return std::make_shared<const core::Graph>(std::move(g));
}

std::shared_ptr<const core::Graph> build_sf_within(const SFDef& def, int nranks, const GraphLookup& lookup, std::uint64_t limit,
                                                   long double& bytes_built) {
  const BuildCost c = build_cost(def, nranks, [&](std::string_view n) {
    const core::Graph* g = lookup(n);
    return g ? shape_of(*g) : SFShape{};
  });
  const std::string others = bytes_built > 0 ? " besides " + core::format_bytes(bytes_built) + " of SFs built before it" : "";
  core::check_budget({pointer_join("/sfs", def.name), bytes_built + c.bytes, c.what + others}, limit);
  auto g = build_sf(def, nranks, lookup);
  bytes_built += c.bytes;
  return g;
}

}  // namespace sfr::trace
