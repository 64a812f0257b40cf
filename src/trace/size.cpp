#include "trace/size.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>

namespace sfr::trace {

namespace {

std::string count(long double n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, n < 1e6L ? "%.0Lf" : "%.2Lg", n);
  return buf;
}

// Bytes per leaf of a built graph (remote rank and index, leaf position, vector slack).
constexpr long double kGraphBytesPerLeaf = 32;
// Derive algorithms keep a few words per root, per leaf position and per leaf of their inputs.
constexpr long double kWorkBytesPerElement = 32;

long double work_bytes(const SFShape& s) { return kWorkBytesPerElement * (s.roots + s.leafspace + s.leaves); }

}  // namespace

SFShape shape_of(const core::Graph& g) {
  SFShape s;
  for (const auto& r : g.ranks) {
    s.leaves += static_cast<long double>(r.nleaves());
    s.roots += static_cast<long double>(r.nroots);
    s.leafspace += static_cast<long double>(r.leafspace());
  }
  return s;
}

BuildCost build_cost(const SFDef& def, int nranks, const std::function<SFShape(std::string_view)>& input_shape) {
  const long double n = nranks;
  BuildCost c;
  SFShape& s = c.shape;
  long double work = 0;
  if (const auto* e = std::get_if<ExplicitSF>(&def.def)) {
    s = shape_of(*e->graph);
    c.what = "explicit SF";
  } else if (const auto* l = std::get_if<LayoutSF>(&def.def)) {
    for (const auto& r : l->ranks) {
      const long double nl = static_cast<long double>(r.global.size());
      s.leaves += nl;
      s.leafspace +=
          r.has_ilocal && !r.ilocal.empty() ? static_cast<long double>(*std::max_element(r.ilocal.begin(), r.ilocal.end()) + 1) : nl;
    }
    s.roots = l->layout.empty() ? 0 : static_cast<long double>(l->layout.back());
    c.what = "layout SF";
  } else if (const auto* p = std::get_if<PatternSF>(&def.def)) {
    s.roots =
        std::accumulate(p->nroots.begin(), p->nroots.end(), 0.0L, [](long double a, Index b) { return a + static_cast<long double>(b); });
    switch (p->pattern) {
      case core::Pattern::allgather: s.leaves = n * s.roots; break;
      case core::Pattern::gather: s.leaves = s.roots; break;
      case core::Pattern::alltoall: s.leaves = n * n; break;
    }
    s.leafspace = s.leaves;
    c.what = std::string("pattern ") + core::pattern_name(p->pattern);
  } else {
    const auto& d = std::get<DerivedSF>(def.def);
    std::vector<SFShape> in;
    for (const auto& name : d.of) in.push_back(input_shape(name));
    for (const auto& i : in) work += work_bytes(i);
    const SFShape a = in.empty() ? SFShape{} : in.front();
    const SFShape b = in.size() > 1 ? in[1] : SFShape{};
    switch (d.kind) {
      case DeriveKind::multi: s = {a.leaves, a.leaves, a.leafspace}; break;
      case DeriveKind::compose: s = {b.leaves, a.roots, b.leafspace}; break;
      case DeriveKind::compose_inverse: s = {b.roots, a.roots, b.roots}; break;
      case DeriveKind::embed_roots:
      case DeriveKind::embed_leaves: s = a; break;
      case DeriveKind::inverse: s = {std::min(a.roots, a.leaves), a.leafspace, a.roots}; break;
      case DeriveKind::concatenate:
        for (const auto& i : in) s.leaves += i.leaves, s.roots += i.roots, s.leafspace += i.leafspace;
        if (d.shared_roots) s.roots = a.roots;
        break;
    }
    c.what = std::string("derived SF (") + derive_kind_name(d.kind) + ")";
  }
  c.what += " with " + count(s.leaves) + " leaves";
  c.bytes = kGraphBytesPerLeaf * s.leaves + 64 * n + work;
  return c;
}

}  // namespace sfr::trace
