#include "partition.hpp"

#include <algorithm>
#include <deque>
#include <numeric>

#include <metis.h>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/connected_components.hpp>
#include <boost/graph/cuthill_mckee_ordering.hpp>

#include "common.hpp"
#include "core/error.hpp"

namespace sfr::gen {

namespace {
constexpr std::array<Choice<PartitionKind>, 4> kPartitions{
    {{PartitionKind::rows, "rows"}, {PartitionKind::nnz, "nnz"}, {PartitionKind::metis, "metis"}, {PartitionKind::rcm, "rcm"}}};
}  // namespace

PartitionKind parse_partition(const std::string& s) { return parse_choice("--partition", "partition", s, kPartitions); }
const char* partition_name(PartitionKind k) { return choice_name(k, kPartitions); }

bool RowPartition::identity() const {
  for (std::size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<Index>(i)) return false;
  return true;
}

namespace {

// Adjacency of A + A^T without self loops, as sorted unique neighbour lists (CSR).
CsrPattern symmetric_graph(const CsrPattern& a) {
  std::vector<std::pair<Index, Index>> edges;
  edges.reserve(a.cols.size() * 2);
  for (Index r = 0; r < a.nrows; ++r)
    for (Index k = a.rowptr[static_cast<std::size_t>(r)]; k < a.rowptr[static_cast<std::size_t>(r) + 1]; ++k) {
      const Index c = a.cols[static_cast<std::size_t>(k)];
      if (c == r) continue;
      edges.emplace_back(r, c);
      edges.emplace_back(c, r);
    }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  CsrPattern g;
  g.nrows = g.ncols = a.nrows;
  g.rowptr.assign(static_cast<std::size_t>(a.nrows) + 1, 0);
  for (const auto& [u, v] : edges) {
    ++g.rowptr[static_cast<std::size_t>(u) + 1];
    g.cols.push_back(v);
  }
  for (Index r = 0; r < a.nrows; ++r) g.rowptr[static_cast<std::size_t>(r) + 1] += g.rowptr[static_cast<std::size_t>(r)];
  return g;
}

std::vector<Index> nnz_layout(const CsrPattern& a, int p) {
  std::vector<Index> layout(static_cast<std::size_t>(p) + 1, a.nrows);
  layout[0] = 0;
  const Index total = a.nnz();
  for (int r = 1; r < p; ++r) {
    const Index target = total * r / p;
    Index b = std::lower_bound(a.rowptr.begin(), a.rowptr.end(), target) - a.rowptr.begin();
    // keep at least one row per rank on both sides
    b = std::max(b, layout[static_cast<std::size_t>(r) - 1] + 1);
    b = std::min(b, a.nrows - (p - r));
    layout[static_cast<std::size_t>(r)] = b;
  }
  return layout;
}

std::vector<int> metis_parts(const CsrPattern& a, int p, std::uint64_t seed) {
  const CsrPattern g = symmetric_graph(a);
  std::vector<idx_t> xadj(g.rowptr.begin(), g.rowptr.end()), adjncy(g.cols.begin(), g.cols.end());
  idx_t n = static_cast<idx_t>(a.nrows), ncon = 1, nparts = p, objval = 0;
  std::vector<idx_t> part(static_cast<std::size_t>(n), 0);
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = static_cast<idx_t>(seed % 2147483647u);
  options[METIS_OPTION_NUMBERING] = 0;
  const int st = METIS_PartGraphKway(&n, &ncon, xadj.data(), adjncy.data(), nullptr, nullptr, nullptr, &nparts, nullptr, nullptr, options,
                                     &objval, part.data());
  if (st != METIS_OK) throw InputError("--partition", "METIS k-way partitioning failed (status " + std::to_string(st) + ")");
  return std::vector<int>(part.begin(), part.end());
}

std::vector<Index> rcm_order(const CsrPattern& a) {
  using G = boost::adjacency_list<
      boost::vecS, boost::vecS, boost::undirectedS,
      boost::property<boost::vertex_color_t, boost::default_color_type, boost::property<boost::vertex_degree_t, int>>>;
  G g(static_cast<std::size_t>(a.nrows));
  const CsrPattern s = symmetric_graph(a);
  for (Index r = 0; r < s.nrows; ++r)
    for (Index k = s.rowptr[static_cast<std::size_t>(r)]; k < s.rowptr[static_cast<std::size_t>(r) + 1]; ++k)
      if (s.cols[static_cast<std::size_t>(k)] > r)
        boost::add_edge(static_cast<std::size_t>(r), static_cast<std::size_t>(s.cols[static_cast<std::size_t>(k)]), g);
  // One starting vertex per connected component (its lowest-degree vertex, lowest number on ties):
  // Boost's overload without starts rescans all vertices per component, quadratic on matrices with
  // many isolated rows.
  std::vector<int> comp(static_cast<std::size_t>(a.nrows));
  const int ncomp = boost::connected_components(g, comp.data());
  std::vector<std::size_t> start(static_cast<std::size_t>(ncomp), static_cast<std::size_t>(a.nrows));
  for (std::size_t v = 0; v < comp.size(); ++v) {
    std::size_t& st = start[static_cast<std::size_t>(comp[v])];
    if (st == comp.size() || boost::degree(v, g) < boost::degree(st, g)) st = v;
  }
  std::deque<std::size_t> starts(start.begin(), start.end());
  std::vector<std::size_t> order(static_cast<std::size_t>(a.nrows));
  boost::cuthill_mckee_ordering(g, starts, order.rbegin(), boost::get(boost::vertex_color, g), boost::make_degree_map(g));
  return std::vector<Index>(order.begin(), order.end());
}

}  // namespace

RowPartition partition_rows(const CsrPattern& a, int nranks, PartitionKind kind, std::uint64_t seed) {
  if (nranks < 1) throw InputError("--ranks", "must be at least 1");
  if (nranks > a.nrows)
    throw InputError("--ranks", std::to_string(nranks) + " ranks but the matrix has only " + std::to_string(a.nrows) + " rows");
  if ((kind == PartitionKind::metis || kind == PartitionKind::rcm) && a.nrows != a.ncols)
    throw InputError("--partition", std::string(partition_name(kind)) + " needs a square matrix (this one is " + std::to_string(a.nrows) +
                                        "x" + std::to_string(a.ncols) + "); use rows or nnz");
  RowPartition rp;
  rp.perm.resize(static_cast<std::size_t>(a.nrows));
  std::iota(rp.perm.begin(), rp.perm.end(), Index{0});
  switch (kind) {
    case PartitionKind::rows: rp.layout = split_ownership(a.nrows, nranks); break;
    case PartitionKind::nnz: rp.layout = nnz_layout(a, nranks); break;
    case PartitionKind::rcm:
      rp.perm = rcm_order(a);
      rp.layout = split_ownership(a.nrows, nranks);
      break;
    case PartitionKind::metis: {
      const std::vector<int> part = nranks == 1 ? std::vector<int>(rp.perm.size(), 0) : metis_parts(a, nranks, seed);
      std::stable_sort(rp.perm.begin(), rp.perm.end(),
                       [&](Index x, Index y) { return part[static_cast<std::size_t>(x)] < part[static_cast<std::size_t>(y)]; });
      rp.layout.assign(static_cast<std::size_t>(nranks) + 1, 0);
      for (int q : part) ++rp.layout[static_cast<std::size_t>(q) + 1];
      for (int r = 0; r < nranks; ++r) rp.layout[static_cast<std::size_t>(r) + 1] += rp.layout[static_cast<std::size_t>(r)];
      break;
    }
  }
  return rp;
}

}  // namespace sfr::gen
