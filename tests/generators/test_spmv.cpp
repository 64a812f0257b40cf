// SpMV SF checks against independent computations: the reference executor's bcast of x through the
// SF followed by the local multiply gives exactly the serial y = A x, and reduce-sum gives A^T w.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>

#include "exec/reference/reference.hpp"
#include "generators/mm_parse.hpp"
#include "generators/spmv.hpp"
#include "support/matrices.hpp"
#include "trace/trace.hpp"

namespace {

using namespace sfr;
using core::Index;
using exec::Buffer;

std::vector<std::string> shared_matrices() {
  std::vector<std::string> out;
  if (!sfr_test::have_shared_matrices()) return out;
  for (const auto& e : std::filesystem::directory_iterator(SFR_MATRICES_DIR))
    if (e.path().extension() == ".mtx") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

// Integer matrix values and vectors, functions of the ORIGINAL indices.
long long aval(long long i, long long j) { return (i * 3 + j * 5) % 11 - 5; }
long long xval(long long j) { return (j * 7) % 13 - 6; }
long long wval(long long i) { return (i * 5) % 7 - 3; }

void check_spmv(const std::string& path, const sfr_test::MmPattern& mm, const gen::CsrPattern& a, int p, gen::PartitionKind kind) {
  SCOPED_TRACE(path + " P=" + std::to_string(p) + " " + gen::partition_name(kind));
  const gen::SpmvSF s = gen::build_spmv(a, p, kind, 7);
  const bool square = a.nrows == a.ncols;
  auto orig_row = [&](Index r) { return s.perm[static_cast<std::size_t>(r)]; };
  auto orig_col = [&](Index c) { return square ? s.perm[static_cast<std::size_t>(c)] : c; };
  // Serial products over the independently parsed pattern.
  std::vector<long long> y(static_cast<std::size_t>(mm.nrows), 0), z(static_cast<std::size_t>(mm.ncols), 0);
  for (const auto& [i, j] : mm.entries) {
    y[static_cast<std::size_t>(i)] += aval(i, j) * xval(j);
    z[static_cast<std::size_t>(j)] += aval(i, j) * wval(i);
  }
  ASSERT_EQ(static_cast<int>(s.row_layout.size()), p + 1);
  ASSERT_EQ(s.row_layout.back(), mm.nrows);
  ASSERT_EQ(s.col_layout.back(), mm.ncols);
  std::vector<Buffer> roots, leaves;
  std::vector<std::vector<Index>> ghosts(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) {
    const auto ur = static_cast<std::size_t>(r);
    const Index cs = s.col_layout[ur], ce = s.col_layout[ur + 1];
    // The ghost columns, computed here from the rows: distinct off-rank columns, ascending.
    std::vector<Index>& gh = ghosts[ur];
    for (Index row = s.row_layout[ur]; row < s.row_layout[ur + 1]; ++row)
      for (Index k = s.matrix.rowptr[static_cast<std::size_t>(row)]; k < s.matrix.rowptr[static_cast<std::size_t>(row) + 1]; ++k)
        if (const Index c = s.matrix.cols[static_cast<std::size_t>(k)]; c < cs || c >= ce) gh.push_back(c);
    std::sort(gh.begin(), gh.end());
    gh.erase(std::unique(gh.begin(), gh.end()), gh.end());
    ASSERT_EQ(s.graph[r].nleaves(), static_cast<Index>(gh.size()));
    ASSERT_FALSE(s.graph[r].has_ilocal);
    roots.emplace_back(core::Unit::int64, 1, ce - cs);
    for (Index c = cs; c < ce; ++c) roots[ur].as<long long>()[c - cs] = xval(orig_col(c));
    leaves.emplace_back(core::Unit::int64, 1, static_cast<Index>(gh.size()));
  }
  core::check_graph(s.graph);
  exec::reference::bcast(s.graph, core::MpiOp::replace, roots, leaves);
  // MatMult: y = A_local x_owned + B x_ghost.
  std::vector<Buffer> tleaves, troots;
  for (int r = 0; r < p; ++r) {
    const auto ur = static_cast<std::size_t>(r);
    const Index cs = s.col_layout[ur], ce = s.col_layout[ur + 1];
    tleaves.emplace_back(core::Unit::int64, 1, static_cast<Index>(ghosts[ur].size()));
    troots.emplace_back(core::Unit::int64, 1, ce - cs);
    for (Index row = s.row_layout[ur]; row < s.row_layout[ur + 1]; ++row) {
      long long acc = 0;
      const Index i = orig_row(row);
      for (Index k = s.matrix.rowptr[static_cast<std::size_t>(row)]; k < s.matrix.rowptr[static_cast<std::size_t>(row) + 1]; ++k) {
        const Index c = s.matrix.cols[static_cast<std::size_t>(k)], j = orig_col(c);
        const long long a_ij = aval(i, j);
        const long long wi = wval(i);
        if (c >= cs && c < ce) {
          acc += a_ij * roots[ur].as<long long>()[c - cs];
          troots[ur].as<long long>()[c - cs] += a_ij * wi;
        } else {
          const auto pos = std::lower_bound(ghosts[ur].begin(), ghosts[ur].end(), c) - ghosts[ur].begin();
          acc += a_ij * leaves[ur].as<long long>()[pos];
          tleaves[ur].as<long long>()[pos] += a_ij * wi;
        }
      }
      ASSERT_EQ(acc, y[static_cast<std::size_t>(i)]) << "row " << i;
    }
  }
  // MatMultTranspose: local part already in troots, ghost contributions reduced with sum.
  exec::reference::reduce(s.graph, core::MpiOp::sum, tleaves, troots);
  for (int r = 0; r < p; ++r)
    for (Index c = s.col_layout[static_cast<std::size_t>(r)]; c < s.col_layout[static_cast<std::size_t>(r) + 1]; ++c)
      ASSERT_EQ(troots[static_cast<std::size_t>(r)].as<long long>()[c - s.col_layout[static_cast<std::size_t>(r)]],
                z[static_cast<std::size_t>(orig_col(c))]);
}

// One test per shared matrix (ctest runs them in parallel).
class SpmvMatrix : public ::testing::TestWithParam<std::string> {};

TEST_P(SpmvMatrix, GhostsGiveSerialProductAndTranspose) {
  const std::string f = std::string(SFR_MATRICES_DIR) + "/" + GetParam();
  const sfr_test::MmPattern mm = sfr_test::parse_mm(f);
  const gen::CsrPattern a = gen::read_matrix(f);
  // The reader's pattern equals the independently parsed one.
  ASSERT_EQ(a.nrows, mm.nrows);
  ASSERT_EQ(a.ncols, mm.ncols);
  ASSERT_EQ(a.nnz(), static_cast<Index>(mm.entries.size())) << f;
  for (gen::PartitionKind k : {gen::PartitionKind::rows, gen::PartitionKind::nnz, gen::PartitionKind::metis, gen::PartitionKind::rcm}) {
    if (a.nrows != a.ncols && (k == gen::PartitionKind::metis || k == gen::PartitionKind::rcm)) continue;
    for (int p : {1, 3, 8}) check_spmv(f, mm, a, p, k);
  }
}

std::vector<std::string> matrix_names() {
  std::vector<std::string> out;
  for (const auto& f : shared_matrices()) out.push_back(std::filesystem::path(f).filename().string());
  return out;
}

// Without ../shared there is nothing to instantiate: not an error.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(SpmvMatrix);
INSTANTIATE_TEST_SUITE_P(Shared, SpmvMatrix, ::testing::ValuesIn(matrix_names()), [](const auto& info) {
  std::string n = info.param.substr(0, info.param.size() - 4);
  std::replace_if(
      n.begin(), n.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
  return n;
});

TEST(Spmv, AllSharedMatricesPresent) {
  SFR_SKIP_WITHOUT_MATRICES();
  EXPECT_GE(shared_matrices().size(), 9u);
}

TEST(Spmv, PartitionsBalanceAndPermute) {
  SFR_SKIP_WITHOUT_MATRICES();
  const gen::CsrPattern a = gen::read_matrix(std::string(SFR_MATRICES_DIR) + "/bcsstk13.mtx");
  const auto nnz = gen::partition_rows(a, 4, gen::PartitionKind::nnz, 1);
  for (int r = 0; r < 4; ++r) {
    const Index e = a.rowptr[static_cast<std::size_t>(nnz.layout[static_cast<std::size_t>(r) + 1])] -
                    a.rowptr[static_cast<std::size_t>(nnz.layout[static_cast<std::size_t>(r)])];
    EXPECT_NEAR(static_cast<double>(e), a.nnz() / 4.0, a.nnz() * 0.02);
  }
  for (auto k : {gen::PartitionKind::metis, gen::PartitionKind::rcm}) {
    auto rp = gen::partition_rows(a, 4, k, 1);
    std::vector<Index> sorted = rp.perm;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < sorted.size(); ++i) ASSERT_EQ(sorted[i], static_cast<Index>(i));
    EXPECT_FALSE(rp.identity());
    EXPECT_EQ(gen::partition_rows(a, 4, k, 1).perm, rp.perm);  // deterministic
  }
  // METIS cuts fewer edges than the natural row split of a structural matrix: fewer ghosts.
  EXPECT_LT(gen::build_spmv(a, 8, gen::PartitionKind::metis, 1).graph.total_leaves(),
            gen::build_spmv(a, 8, gen::PartitionKind::rows, 1).graph.total_leaves() * 2);
}

TEST(Spmv, TraceCarriesLayoutSFAndOps) {
  SFR_SKIP_WITHOUT_MATRICES();
  gen::SpmvOptions o;
  o.matrix_path = std::string(SFR_MATRICES_DIR) + "/young1c.mtx";
  o.nranks = 3;
  o.place.ranks_per_node = 2;
  const trace::Trace t = gen::spmv_trace(o);
  const trace::BuiltTrace bt(t);
  const gen::SpmvSF s = gen::build_spmv(gen::read_matrix(o.matrix_path), 3, gen::PartitionKind::rows, 1);
  EXPECT_EQ(bt.graph("Mvctx"), s.graph);
  ASSERT_EQ(t.ops.size(), 2u);
  EXPECT_EQ(t.ops[0].op, core::OpKind::bcast);
  EXPECT_EQ(t.ops[0].mpi_op, core::MpiOp::replace);
  EXPECT_EQ(t.ops[1].op, core::OpKind::reduce);
  EXPECT_EQ(t.ops[1].mpi_op, core::MpiOp::sum);
  EXPECT_EQ(t.ops[0].unit, core::Unit::complex128);  // young1c is complex
  ASSERT_TRUE(t.machine);
  EXPECT_EQ(t.machine->ranks_per_node, 2);
  const auto meta = nlohmann::json::parse(t.meta_json);
  EXPECT_EQ(meta["generator"], "spmv");
  EXPECT_EQ(meta["input"], "young1c.mtx");
}

TEST(Spmv, Laplacian7Ghosts) {
  // 10x10x10 grid over 10 ranks by rows: each rank owns one z-plane and ghosts the neighbouring planes.
  const gen::SpmvSF s = gen::build_spmv(gen::laplacian7(10, 10, 10), 10, gen::PartitionKind::rows, 1);
  for (int r = 0; r < 10; ++r) EXPECT_EQ(s.graph[r].nleaves(), (r == 0 || r == 9) ? 100 : 200);
}

}  // namespace

namespace {

// A hand-written Rutherford-Boeing pattern file (fixed-width header, Fortran formats).
std::string write_rb(const std::string& name, const char* mxtype, const std::vector<int>& ptr, const std::vector<int>& ind) {
  const std::string path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream f(path);
  char buf[512];
  std::snprintf(buf, sizeof buf, "%-72s%-8s\n%14d%14d%14d%14d\n%s%11s%14d%14d%14zu%14d\n%-16s%-16s%-20s\n", "sf-replay test", "TEST", 2, 1,
                1, 0, mxtype, "", 3, 3, ind.size(), 0, "(4I4)", "(5I4)", "");
  f << buf;
  for (int x : ptr) f << std::setw(4) << x;
  f << "\n";
  for (int x : ind) f << std::setw(4) << x;
  f << "\n";
  return path;
}

TEST(Spmv, ReadsRutherfordBoeing) {
  // Columns (1-based): col 1 rows {1,3}, col 2 row {2}, col 3 rows {1,3}.
  const gen::CsrPattern a = gen::read_matrix(write_rb("sfr-test-pua.rb", "pua", {1, 3, 4, 6}, {1, 3, 2, 1, 3}));
  EXPECT_EQ(a.nrows, 3);
  EXPECT_EQ(a.rowptr, (std::vector<Index>{0, 2, 3, 5}));
  EXPECT_EQ(a.cols, (std::vector<Index>{0, 2, 1, 0, 2}));
  // Symmetric storage (lower triangle: (2,1), (3,3)) is expanded.
  const gen::CsrPattern s = gen::read_matrix(write_rb("sfr-test-psa.rb", "psa", {1, 2, 2, 3}, {2, 3}));
  EXPECT_EQ(s.rowptr, (std::vector<Index>{0, 1, 2, 3}));
  EXPECT_EQ(s.cols, (std::vector<Index>{1, 0, 2}));
}

}  // namespace
