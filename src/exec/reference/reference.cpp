#include "exec/reference/reference.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace sfr::exec::reference {

using core::Index;

namespace {

// Per root rank s: the leaves (r, j) attached to s's roots, in application order.
struct LeafRef {
  int rank;
  Index leaf;
};
std::vector<std::vector<LeafRef>> application_order(const core::Graph& g, Order policy) {
  std::vector<std::vector<LeafRef>> self(static_cast<size_t>(g.nranks)), other(static_cast<size_t>(g.nranks));
  for (int r = 0; r < g.nranks; ++r) {
    const core::RankGraph& rg = g[r];
    std::vector<Index> order(static_cast<size_t>(rg.nleaves()));
    std::iota(order.begin(), order.end(), Index{0});
    if (rg.has_ilocal) std::sort(order.begin(), order.end(), [&](Index a, Index b) { return rg.leaf_position(a) < rg.leaf_position(b); });
    for (Index j : order) {
      const int s = rg.remote_rank[static_cast<size_t>(j)];
      const bool own = s == r && policy != Order::rank_order;
      (own ? self : other)[static_cast<size_t>(s)].push_back({r, j});
    }
  }
  // `other` holds each root rank's leaves in ascending leaf rank (r loops upwards).
  for (int s = 0; s < g.nranks; ++s) {
    auto& own = self[static_cast<size_t>(s)];
    auto& rest = other[static_cast<size_t>(s)];
    if (policy == Order::own_rank_last)
      rest.insert(rest.end(), own.begin(), own.end());
    else
      rest.insert(rest.begin(), own.begin(), own.end());
  }
  return other;
}

void check_sizes(const core::Graph& g, const std::vector<Buffer>& bufs, bool roots, const char* what) {
  if (static_cast<int>(bufs.size()) != g.nranks) throw std::invalid_argument(std::string(what) + ": one buffer per rank needed");
  for (int r = 0; r < g.nranks; ++r) {
    const Index need = roots ? g[r].nroots : g[r].leafspace();
    if (bufs[static_cast<size_t>(r)].count < need) throw std::invalid_argument(std::string(what) + ": buffer too small");
  }
}

}  // namespace

void bcast(const core::Graph& g, core::MpiOp op, const std::vector<Buffer>& root, std::vector<Buffer>& leaf) {
  check_sizes(g, root, true, "bcast");
  check_sizes(g, leaf, false, "bcast");
  const auto unit = root.front().unit;
  const auto bs = static_cast<size_t>(root.front().bs);
  core::visit_unit_op(unit, op, [&]<class T, class O>() {
    for (int r = 0; r < g.nranks; ++r) {
      const core::RankGraph& rg = g[r];
      T* l = leaf[static_cast<size_t>(r)].as<T>();
      for (Index j = 0; j < rg.nleaves(); ++j) {
        const T* src = root[static_cast<size_t>(rg.remote_rank[static_cast<size_t>(j)])].as<T>() +
                       static_cast<size_t>(rg.remote_index[static_cast<size_t>(j)]) * bs;
        T* dst = l + static_cast<size_t>(rg.leaf_position(j)) * bs;
        for (size_t c = 0; c < bs; ++c) O::apply(dst[c], src[c]);
      }
    }
  });
}

namespace {

// Applies every leaf to its root in the documented order; records the root value each leaf saw
// first into `leafupdate` when given (fetch_and_op), not otherwise (reduce).
void apply_to_roots(const core::Graph& g, core::MpiOp op, std::vector<Buffer>& root, const std::vector<Buffer>& leaf,
                    std::vector<Buffer>* leafupdate, Order policy) {
  const auto order = application_order(g, policy);
  const auto bs = static_cast<size_t>(root.front().bs);
  core::visit_unit_op(root.front().unit, op, [&]<class T, class O>() {
    for (int s = 0; s < g.nranks; ++s) {
      T* rt = root[static_cast<size_t>(s)].as<T>();
      for (const LeafRef& lr : order[static_cast<size_t>(s)]) {
        const core::RankGraph& rg = g[lr.rank];
        const size_t pos = static_cast<size_t>(rg.leaf_position(lr.leaf)) * bs;
        const T* src = leaf[static_cast<size_t>(lr.rank)].as<T>() + pos;
        T* dst = rt + static_cast<size_t>(rg.remote_index[static_cast<size_t>(lr.leaf)]) * bs;
        if (leafupdate) std::copy(dst, dst + bs, (*leafupdate)[static_cast<size_t>(lr.rank)].as<T>() + pos);
        for (size_t c = 0; c < bs; ++c) O::apply(dst[c], src[c]);
      }
    }
  });
}

}  // namespace

void reduce(const core::Graph& g, core::MpiOp op, const std::vector<Buffer>& leaf, std::vector<Buffer>& root, Order order) {
  check_sizes(g, root, true, "reduce");
  check_sizes(g, leaf, false, "reduce");
  apply_to_roots(g, op, root, leaf, nullptr, order);
}

void fetch_and_op(const core::Graph& g, core::MpiOp op, std::vector<Buffer>& root, const std::vector<Buffer>& leaf,
                  std::vector<Buffer>& leafupdate, Order order) {
  check_sizes(g, root, true, "fetch_and_op");
  check_sizes(g, leaf, false, "fetch_and_op");
  check_sizes(g, leafupdate, false, "fetch_and_op");
  apply_to_roots(g, op, root, leaf, &leafupdate, order);
}

namespace {

std::vector<Buffer> inputs(const core::Graph& g, Side side, const core::OpSpec& op, bool roots) {
  return conformance_inputs(g, side, op, roots);
}

std::vector<Buffer> zeros(const core::Graph& g, const core::OpSpec& op, bool roots) {
  std::vector<Buffer> out;
  for (int r = 0; r < g.nranks; ++r) out.emplace_back(op.unit, op.bs, roots ? g[r].nroots : g[r].leafspace());
  return out;
}

OpArrays collect(std::initializer_list<std::pair<const char*, std::vector<Buffer>*>> arrays, int nranks) {
  OpArrays res;
  res.ranks.resize(static_cast<size_t>(nranks));
  for (int r = 0; r < nranks; ++r)
    for (auto& [name, bufs] : arrays) res.ranks[static_cast<size_t>(r)].push_back({name, std::move((*bufs)[static_cast<size_t>(r)])});
  return res;
}

}  // namespace

OpArrays run_op(const trace::BuiltTrace& t, const core::OpSpec& op) {
  using core::OpKind;
  const auto w = core::op_traits(op.op).written();  // the arrays' names, in dump order
  const core::Graph& g = t.graph_for(op);
  const trace::SFDef* def = t.trace().find_sf(op.sf);
  const auto* pattern = def ? std::get_if<trace::PatternSF>(&def->def) : nullptr;
  const bool allgather = pattern && pattern->pattern == core::Pattern::allgather;
  switch (op.op) {
    case OpKind::bcast:
    case OpKind::scatter: {
      auto root = inputs(g, Side::root, op, true);
      auto leaf = inputs(g, Side::leaf, op, false);
      bcast(g, core::op_applied_mpi_op(op), root, leaf);
      return collect({{w[0], &leaf}}, g.nranks);
    }
    case OpKind::reduce: {
      auto root = inputs(g, Side::root, op, true);
      auto leaf = inputs(g, Side::leaf, op, false);
      reduce(g, op.mpi_op, leaf, root, allgather ? Order::own_rank_last : Order::petsc_basic);
      return collect({{w[0], &root}}, g.nranks);
    }
    case OpKind::gather: {
      auto root = zeros(g, op, true);
      auto leaf = inputs(g, Side::leaf, op, false);
      reduce(g, core::MpiOp::replace, leaf, root);
      return collect({{w[0], &root}}, g.nranks);
    }
    case OpKind::fetch_and_op: {
      auto root = inputs(g, Side::root, op, true);
      auto leaf = inputs(g, Side::leaf, op, false);
      auto upd = zeros(g, op, false);
      fetch_and_op(g, op.mpi_op, root, leaf, upd, allgather ? Order::rank_order : Order::petsc_basic);
      return collect({{w[0], &root}, {w[1], &upd}}, g.nranks);
    }
    case OpKind::degree: {
      const auto deg = core::root_degrees(g);
      OpArrays res;
      for (int r = 0; r < g.nranks; ++r) {
        const auto& d = deg[static_cast<size_t>(r)];
        Buffer b(core::Unit::int64, 1, static_cast<Index>(d.size()));
        std::copy(d.begin(), d.end(), b.as<std::int64_t>());
        res.ranks.push_back({{w[0], std::move(b)}});
      }
      return res;
    }
  }
  throw std::logic_error("unknown op");
}

}  // namespace sfr::exec::reference
