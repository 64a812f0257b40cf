#include "exec/conformance.hpp"

#include <algorithm>
#include <cstdio>

namespace sfr::exec {

using core::Index;

Index conformance_g(int rank, Index vertex, int comp) { return ((Index{rank} * 131 + vertex * 31 + Index{comp} * 7) % 97) + 1; }
Index conformance_h(int rank, Index vertex, int comp) { return ((Index{rank} * 17 + vertex * 13 + Index{comp} * 5) % 89) + 1; }

namespace {
Index transform(Index x, std::optional<core::MpiOp> op) {
  if (!op) return x;
  switch (*op) {
    case core::MpiOp::prod: return 1 + x % 2;
    case core::MpiOp::land:
    case core::MpiOp::lor:
    case core::MpiOp::lxor: return x % 2;
    default: return x;
  }
}
}  // namespace

Buffer conformance_input(Side side, core::Unit unit, int bs, std::optional<core::MpiOp> mpi_op, int rank, Index count,
                         Index global_offset) {
  Buffer b(unit, bs, count);
  core::visit_unit(unit, [&]<class T>() {
    T* d = b.as<T>();
    for (Index i = 0; i < count; ++i)
      for (int c = 0; c < bs; ++c) {
        const Index g = transform(conformance_g(rank, i, c), mpi_op);
        const Index h = transform(conformance_h(rank, i, c), mpi_op);
        const Index mine = side == Side::root ? g : h, other = side == Side::root ? h : g;
        T& v = d[static_cast<size_t>(i) * static_cast<size_t>(bs) + static_cast<size_t>(c)];
        if constexpr (core::is_pair_v<T>) {
          v = T{static_cast<std::int32_t>(mine % 5), static_cast<std::int32_t>(global_offset + i)};
        } else if constexpr (core::is_complex_v<T>) {
          v = T(static_cast<double>(mine), static_cast<double>(other));
        } else {
          v = static_cast<T>(mine);
        }
      }
  });
  return b;
}

std::vector<Buffer> conformance_inputs(const core::Graph& g, Side side, const core::OpSpec& op, bool roots) {
  std::vector<Buffer> out;
  Index offset = 0;
  for (int r = 0; r < g.nranks; ++r) {
    const Index n = roots ? g[r].nroots : g[r].leafspace();
    out.push_back(conformance_input(side, op.unit, op.bs, core::op_named_mpi_op(op), r, n, offset));
    offset += n;
  }
  return out;
}

core::SizeEstimate data_estimate(const trace::BuiltTrace& t, int rank, bool kept, bool text) {
  constexpr long double kTextBytesPerNumber = 24;
  long double total = 0, largest = -1;
  std::size_t largest_op = 0;
  for (std::size_t i = 0; i < t.trace().ops.size(); ++i) {
    const core::OpSpec& op = t.trace().ops[i];
    const core::Graph& g = t.graph_for(op);
    long double roots = 0, leaves = 0;
    for (int r = (rank < 0 ? 0 : rank); r < (rank < 0 ? g.nranks : rank + 1); ++r) {
      roots += static_cast<long double>(g[r].nroots);
      leaves += static_cast<long double>(g[r].leafspace());
    }
    const long double width = static_cast<long double>(core::unit_size(op.unit)) * op.bs;
    const long double values = roots + 2 * leaves;   // roots, leaves, leaf update
    const long double numbers = values * op.bs * 2;  // complex128 and int32_pair have two per entry
    const long double bytes = values * width + (text ? numbers * kTextBytesPerNumber : 0);
    if (bytes > largest) largest = bytes, largest_op = i;
    total = kept ? total + bytes : std::max(total, bytes);
  }
  char what[160];
  std::snprintf(what, sizeof what, "the data arrays of %zu op%s%s", t.trace().ops.size(), t.trace().ops.size() == 1 ? "" : "s",
                rank < 0 ? " on all ranks" : " on this rank");
  return {"/ops/" + std::to_string(largest_op), total, what};
}

}  // namespace sfr::exec
