#include "spmv.hpp"

#include <algorithm>
#include <filesystem>

#include "core/derive.hpp"

namespace sfr::gen {

SpmvSF build_spmv(const CsrPattern& a, int nranks, PartitionKind kind, std::uint64_t seed) {
  RowPartition rp = partition_rows(a, nranks, kind, seed);
  SpmvSF s;
  s.matrix = rp.identity() ? a : permute_symmetric(a, rp.perm);
  s.perm = std::move(rp.perm);
  s.row_layout = std::move(rp.layout);
  s.col_layout = a.nrows == a.ncols ? s.row_layout : split_ownership(a.ncols, nranks);
  s.garray.resize(static_cast<std::size_t>(nranks));
  s.graph = core::Graph(nranks);
  const CsrPattern& m = s.matrix;
  for (int r = 0; r < nranks; ++r) {
    const auto ur = static_cast<std::size_t>(r);
    const Index cs = s.col_layout[ur], ce = s.col_layout[ur + 1];
    std::vector<Index>& g = s.garray[ur];
    for (Index k = m.rowptr[static_cast<std::size_t>(s.row_layout[ur])]; k < m.rowptr[static_cast<std::size_t>(s.row_layout[ur + 1])];
         ++k) {
      const Index c = m.cols[static_cast<std::size_t>(k)];
      if (c < cs || c >= ce) g.push_back(c);
    }
    std::sort(g.begin(), g.end());
    g.erase(std::unique(g.begin(), g.end()), g.end());
    core::RankGraph& rg = s.graph[r];
    rg.nroots = ce - cs;
    rg.remote_rank.reserve(g.size());
    rg.remote_index.reserve(g.size());
    int owner = 0;
    for (Index c : g) {  // ascending columns: the owner only moves forward
      while (c >= s.col_layout[static_cast<std::size_t>(owner) + 1]) ++owner;
      rg.remote_rank.push_back(owner);
      rg.remote_index.push_back(c - s.col_layout[static_cast<std::size_t>(owner)]);
    }
  }
  return s;
}

trace::Trace spmv_trace(const SpmvOptions& o) { return spmv_trace(o, read_matrix(o.matrix_path), o.matrix_path); }

trace::Trace spmv_trace(const SpmvOptions& o, const CsrPattern& a, const std::string& matrix_name) {
  SpmvSF s = build_spmv(a, o.nranks, o.partition, o.seed);
  const std::string base = std::filesystem::path(matrix_name).stem().string();
  nlohmann::json params = {
      {"ranks", o.nranks}, {"partition", partition_name(o.partition)}, {"rows", a.nrows}, {"cols", a.ncols}, {"nnz", a.nnz()}};
  trace::Trace t = make_trace("spmv-" + base + "-" + partition_name(o.partition) + "-p" + std::to_string(o.nranks), o.nranks, o.place,
                              "spmv", std::move(params), o.seed, std::filesystem::path(matrix_name).filename().string());
  trace::LayoutSF lay;
  lay.layout = s.col_layout;
  lay.ranks.resize(s.garray.size());
  for (std::size_t r = 0; r < s.garray.size(); ++r) lay.ranks[r].global = std::move(s.garray[r]);
  t.sfs.push_back(trace::SFDef{"Mvctx", std::move(lay)});
  const core::Unit unit = a.complex ? core::Unit::complex128 : core::Unit::float64;
  t.ops.push_back(make_op(core::OpKind::bcast, "Mvctx", core::MpiOp::replace, unit));
  t.ops.push_back(make_op(core::OpKind::reduce, "Mvctx", core::MpiOp::sum, unit));
  return t;
}

}  // namespace sfr::gen
