#include "stencil.hpp"

#include <algorithm>
#include <sstream>

#include "core/error.hpp"

namespace sfr::gen {

namespace {

std::string sz(Index v) { return std::to_string(v); }

}  // namespace

void check_stencil(const StencilOptions& o) {
  if (o.dims < 1 || o.dims > 3) throw InputError("--dims", "must be 1, 2 or 3");
  require_positive("--dof", o.dof);
  if (o.width < 0) throw InputError("--width", "must be at least 0");
  for (int d = 0; d < 3; ++d) {
    const auto ud = static_cast<std::size_t>(d);
    if (d >= o.dims && (o.size[ud] != 1 || o.procs[ud] != 1))
      throw InputError("--size", "dimension " + sz(d) + " is unused with --dims " + sz(o.dims));
    if (o.size[ud] < 1) throw InputError("--size", "every extent must be at least 1");
    if (o.procs[ud] < 1) throw InputError("--procs", "every extent must be at least 1");
    if (o.procs[ud] > o.size[ud])
      throw InputError("--procs", sz(o.procs[ud]) + " ranks in dimension " + sz(d) + " but only " + sz(o.size[ud]) + " grid points");
    if (d < o.dims) {
      const Index smallest = o.size[ud] / o.procs[ud];
      if (smallest < o.width && (o.procs[ud] > 1 || o.periodic[ud]))
        throw InputError("--procs", "a rank owns only " + sz(smallest) + " points in dimension " + sz(d) +
                                        ", fewer than the stencil width " + sz(o.width));
    }
  }
}

GridLayout::GridLayout(const StencilOptions& o) : procs_(o.procs) {
  for (std::size_t d = 0; d < 3; ++d) {
    lay_[d] = split_ownership(o.size[d], o.procs[d]);
    owner_[d].resize(static_cast<std::size_t>(o.size[d]));
    for (int p = 0; p < o.procs[d]; ++p)
      for (Index i = lo(d, p); i < hi(d, p); ++i) owner_[d][static_cast<std::size_t>(i)] = p;
  }
}

Index GridLayout::owned(int rank) const {
  const auto p = coords(rank);
  return (hi(0, p[0]) - lo(0, p[0])) * (hi(1, p[1]) - lo(1, p[1])) * (hi(2, p[2]) - lo(2, p[2]));
}

std::pair<int, Index> GridLayout::locate(const std::array<Index, 3>& point) const {
  std::array<int, 3> q{};
  for (std::size_t d = 0; d < 3; ++d) q[d] = owner_[d][static_cast<std::size_t>(point[d])];
  const Index local = (point[0] - lo(0, q[0])) +
                      (hi(0, q[0]) - lo(0, q[0])) * ((point[1] - lo(1, q[1])) + (hi(1, q[1]) - lo(1, q[1])) * (point[2] - lo(2, q[2])));
  return {rank(q), local};
}

core::Graph stencil_graph(const StencilOptions& o) {
  check_stencil(o);
  const GridLayout layout(o);
  core::Graph g(layout.nranks());
  for (int r = 0; r < layout.nranks(); ++r) {
    const auto p = layout.coords(r);
    std::array<Index, 3> s{}, e{}, gs{}, ge{};
    for (std::size_t d = 0; d < 3; ++d) {
      s[d] = layout.lo(d, p[d]);
      e[d] = layout.hi(d, p[d]);
      const Index w = static_cast<int>(d) < o.dims ? o.width : 0;
      gs[d] = o.periodic[d] ? s[d] - w : std::max<Index>(0, s[d] - w);
      ge[d] = o.periodic[d] ? e[d] + w : std::min(o.size[d], e[d] + w);
    }
    core::RankGraph& rg = g[r];
    rg.nroots = layout.owned(r);
    Index pos = 0;
    for (Index k = gs[2]; k < ge[2]; ++k)
      for (Index j = gs[1]; j < ge[1]; ++j)
        for (Index i = gs[0]; i < ge[0]; ++i, ++pos) {
          const std::array<Index, 3> c{i, j, k};
          int outside = 0;
          std::array<Index, 3> w{};
          for (std::size_t d = 0; d < 3; ++d) {
            outside += (c[d] < s[d] || c[d] >= e[d]) ? 1 : 0;
            w[d] = ((c[d] % o.size[d]) + o.size[d]) % o.size[d];
          }
          if (o.stencil == StencilKind::star && outside > 1) continue;
          const auto [owner, local] = layout.locate(w);
          rg.add_leaf(pos, owner, local);
        }
    rg.normalize_ilocal();
  }
  return g;
}

trace::Trace stencil_trace(const StencilOptions& o) {
  core::Graph g = stencil_graph(o);
  std::string size, procs, per;
  for (int d = 0; d < o.dims; ++d) {
    const auto ud = static_cast<std::size_t>(d);
    size += (d ? "x" : "") + std::to_string(o.size[ud]);
    procs += (d ? "x" : "") + std::to_string(o.procs[ud]);
    if (o.periodic[ud]) per += std::string(per.empty() ? "" : ",") + "xyz"[d];
  }
  const char* kind = o.stencil == StencilKind::star ? "star" : "box";
  nlohmann::json params = {{"dims", o.dims},
                           {"size", size},
                           {"procs", procs},
                           {"dof", o.dof},
                           {"stencil", kind},
                           {"width", o.width},
                           {"periodic", per.empty() ? "none" : per}};
  trace::Trace t = make_trace("stencil-" + std::to_string(o.dims) + "d-" + size + "-" + kind + std::to_string(o.width) + "-p" + procs,
                              g.nranks, o.place, "stencil", std::move(params), 0);
  t.sfs.push_back(explicit_sf("gtol", std::move(g)));
  t.ops.push_back(make_op(core::OpKind::bcast, "gtol", core::MpiOp::replace, core::Unit::float64, o.dof));
  t.ops.push_back(make_op(core::OpKind::reduce, "gtol", core::MpiOp::sum, core::Unit::float64, o.dof));
  return t;
}

std::array<Index, 3> parse_extent(const std::string& option, const std::string& s, int dims) {
  std::array<Index, 3> out{1, 1, 1};
  std::stringstream in(s);
  std::string part;
  int n = 0;
  while (std::getline(in, part, 'x')) {
    if (n >= 3) throw InputError(option, "too many extents in '" + s + "'");
    std::size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != part.size() || v < 1) throw InputError(option, "expected positive integers like 8x8x8, got '" + s + "'");
    out[static_cast<std::size_t>(n++)] = v;
  }
  if (n != dims)
    throw InputError(option, "expected " + std::to_string(dims) + " extent(s) for --dims " + std::to_string(dims) + ", got '" + s + "'");
  return out;
}

std::array<bool, 3> parse_periodic(const std::string& s, int dims) {
  std::array<bool, 3> out{false, false, false};
  if (s.empty() || s == "none") return out;
  if (s == "all") {
    for (int d = 0; d < dims; ++d) out[static_cast<std::size_t>(d)] = true;
    return out;
  }
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, ',')) {
    const int d = part == "x" ? 0 : part == "y" ? 1 : part == "z" ? 2 : -1;
    if (d < 0 || d >= dims) throw InputError("--periodic", "expected none, all or a list of x,y,z within --dims, got '" + s + "'");
    out[static_cast<std::size_t>(d)] = true;
  }
  return out;
}

}  // namespace sfr::gen
