#include "generators/estimate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <system_error>

namespace sfr::gen {

namespace {

using LD = long double;
constexpr LD kLeafBytes = 64, kRankBytes = 512;

std::string count(LD v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, v < 1e7L ? "%.0Lf" : "%.3Lg", v);
  return buf;
}

}  // namespace

core::SizeEstimate leaves_and_ranks(const char* option, LD leaves, LD ranks, LD extra) {
  return {option, leaves * kLeafBytes + ranks * kRankBytes + extra, count(leaves) + " leaves on " + count(ranks) + " ranks"};
}

core::SizeEstimate estimate(const SpmvOptions& o) {
  // The matrix (CHOLMOD triplets and CSR, ~16 bytes a stored entry, at least 4 bytes of file each)
  // and its ghost leaves (at most one per entry).
  std::error_code ec;
  const auto file = o.matrix_path.empty() ? 0 : std::filesystem::file_size(o.matrix_path, ec);
  const LD entries = ec ? 0 : static_cast<LD>(file) / 4;
  const LD ranks = std::max(1, o.nranks);
  auto e = leaves_and_ranks("--ranks", entries, ranks, entries * 16);
  if (entries * (16 + kLeafBytes) > ranks * kRankBytes) e.option = "--matrix";
  return e;
}

core::SizeEstimate estimate(const StencilOptions& o) {
  // Every rank's local box with its ghost layers: at most prod(N_d + 2 w P_d) leaves in all.
  LD leaves = 1, ranks = 1;
  for (int d = 0; d < 3; ++d) {
    const LD n = std::max<LD>(1, static_cast<LD>(o.size[static_cast<std::size_t>(d)]));
    const LD p = std::max(1, o.procs[static_cast<std::size_t>(d)]);
    leaves *= d < o.dims ? n + 2 * static_cast<LD>(std::max(0, o.width)) * p : 1;
    ranks *= p;
  }
  return leaves_and_ranks("--size", leaves, ranks);
}

core::SizeEstimate estimate(const HexmeshOptions& o) {
  // Cells, faces, edges and vertices of the closures (8.4 N^3 measured; 10 N^3 charged), and three
  // per-cell tables of N^3 entries.
  const LD n3 = std::pow(static_cast<LD>(std::max<Index>(1, o.cells)), 3);
  return leaves_and_ranks("--cells", 10 * n3, std::max(1, o.nranks), 24 * n3);
}

core::SizeEstimate estimate(const SyntheticOptions& o) {
  // One part of per_rank elements per rank, and a permutation of all elements (random pattern).
  const LD ranks = std::max(1, o.nranks), n = ranks * static_cast<LD>(std::max<Index>(1, o.per_rank));
  return leaves_and_ranks("--per-rank", n, ranks, 16 * n);
}

core::SizeEstimate estimate(const ScatterOptions& o) {
  const LD p = std::max(1, o.nranks), n = static_cast<LD>(std::max<Index>(1, o.per_rank));
  if (o.pattern == ScatterPattern::par_to_seq) return leaves_and_ranks("--ranks", p * p * n, p);  // every rank gets all p*n
  return leaves_and_ranks("--per-rank", p * n, p);
}

core::SizeEstimate estimate(const ScenarioOptions& o) {
  const LD k = std::max<LD>(1, static_cast<LD>(o.size) / 8);  // float64 entries per message
  const LD ranks = static_cast<LD>(std::max(0, o.nodes) + 1) * std::max(1, o.place.ranks_per_node);
  return leaves_and_ranks("--size", static_cast<LD>(std::max(1, o.msgs)) * k, ranks);
}

core::SizeEstimate estimate(const RandomOptions& o) {
  // Up to max_leaves leaves a rank, the leaf space with its holes (8 bytes a position) and the
  // root-degree table (8 bytes for each of up to max_roots roots a rank).
  const LD ranks = std::max(1, o.nranks);
  const LD leaves = ranks * static_cast<LD>(std::max<Index>(0, o.max_leaves));
  const LD roots = ranks * static_cast<LD>(std::max<Index>(0, o.max_roots));
  auto e = leaves_and_ranks("--max-leaves", leaves, ranks, 8 * leaves * static_cast<LD>(std::max(0.0, o.holes)) + 8 * roots);
  if (8 * roots > leaves * kLeafBytes) e.option = "--max-roots", e.what = count(roots) + " roots on " + count(ranks) + " ranks";
  return e;
}

}  // namespace sfr::gen
