#include "matrix.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include <RBio.h>
#include <cholmod.h>

#include "core/error.hpp"

namespace sfr::gen {

namespace {

// CSC (colptr, rowidx) of an nrow x ncol matrix -> CSR pattern with sorted, unique columns.
CsrPattern csc_to_csr(Index nrow, Index ncol, const SuiteSparse_long* p, const SuiteSparse_long* i) {
  CsrPattern a;
  a.nrows = nrow;
  a.ncols = ncol;
  a.rowptr.assign(static_cast<std::size_t>(nrow) + 1, 0);
  const Index nz = p[ncol];
  for (Index k = 0; k < nz; ++k) ++a.rowptr[static_cast<std::size_t>(i[k]) + 1];
  for (Index r = 0; r < nrow; ++r) a.rowptr[static_cast<std::size_t>(r) + 1] += a.rowptr[static_cast<std::size_t>(r)];
  a.cols.resize(static_cast<std::size_t>(nz));
  std::vector<Index> next(a.rowptr.begin(), a.rowptr.end() - 1);
  for (Index c = 0; c < ncol; ++c)  // columns visited in order: each row's list comes out sorted
    for (Index k = p[c]; k < p[c + 1]; ++k) a.cols[static_cast<std::size_t>(next[static_cast<std::size_t>(i[k])]++)] = c;
  // Remove duplicates (a file may repeat an entry).
  Index w = 0;
  std::vector<Index> newptr(static_cast<std::size_t>(nrow) + 1, 0);
  for (Index r = 0; r < nrow; ++r) {
    for (Index k = a.rowptr[static_cast<std::size_t>(r)]; k < a.rowptr[static_cast<std::size_t>(r) + 1]; ++k)
      if (w == newptr[static_cast<std::size_t>(r)] || a.cols[static_cast<std::size_t>(w) - 1] != a.cols[static_cast<std::size_t>(k)])
        a.cols[static_cast<std::size_t>(w++)] = a.cols[static_cast<std::size_t>(k)];
    newptr[static_cast<std::size_t>(r) + 1] = w;
  }
  a.cols.resize(static_cast<std::size_t>(w));
  a.rowptr = std::move(newptr);
  return a;
}

struct Cholmod {
  cholmod_common c;
  Cholmod() {
    cholmod_l_start(&c);
    c.print = 0;
    c.error_handler = nullptr;
  }
  ~Cholmod() { cholmod_l_finish(&c); }
};

// CHOLMOD reports only that a file is bad; this scan finds the first offending line for the message
// (it does not read the matrix). Returns "path:line: reason", or "" when it finds nothing wrong.
std::string locate_mm_error(const std::string& path) {
  std::ifstream in(path);
  std::string line, field, symmetry;
  long long lineno = 0, nrows = -1, ncols = -1, nnz = -1, seen = 0;
  auto where = [&](const std::string& why) { return path + ":" + std::to_string(lineno) + ": " + why; };
  while (std::getline(in, line)) {
    ++lineno;
    if (lineno == 1) {
      std::istringstream h(line);
      std::string banner, object, format;
      h >> banner >> object >> format >> field >> symmetry;
      for (auto* w : {&object, &format, &field, &symmetry})
        std::transform(w->begin(), w->end(), w->begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (object != "matrix" || format != "coordinate")
        return where("expected '%%MatrixMarket matrix coordinate FIELD SYMMETRY' (only sparse coordinate files are read)");
      if (field != "real" && field != "integer" && field != "complex" && field != "pattern")
        return where("unknown field '" + field + "' (expected real, integer, complex or pattern)");
      if (symmetry != "general" && symmetry != "symmetric" && symmetry != "skew-symmetric" && symmetry != "hermitian")
        return where("unknown symmetry '" + symmetry + "'");
      continue;
    }
    if (line.empty() || line[0] == '%') continue;
    std::istringstream l(line);
    if (nnz < 0) {
      if (!(l >> nrows >> ncols >> nnz) || nrows < 0 || ncols < 0 || nnz < 0) return where("expected the size line 'ROWS COLS ENTRIES'");
      continue;
    }
    long long i = 0, j = 0;
    double v = 0;
    const int values = field == "pattern" ? 0 : field == "complex" ? 2 : 1;
    if (!(l >> i >> j)) return where("expected an entry 'ROW COL" + std::string(values ? " VALUE" : "") + "'");
    for (int k = 0; k < values; ++k)
      if (!(l >> v)) return where("missing value in entry");
    if (i < 1 || i > nrows || j < 1 || j > ncols)
      return where("entry (" + std::to_string(i) + ", " + std::to_string(j) + ") outside the " + std::to_string(nrows) + "x" +
                   std::to_string(ncols) + " matrix");
    ++seen;
  }
  if (lineno == 0) return path + ":1: empty file";
  if (nnz < 0) return where("missing size line");
  if (seen < nnz) return where("expected " + std::to_string(nnz) + " entries, found " + std::to_string(seen));
  return "";
}

CsrPattern read_matrix_market(const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "r"), &std::fclose);
  if (!f) throw InputError(path, std::string("cannot open matrix file: ") + std::strerror(errno));
  Cholmod cm;
  cholmod_sparse* a = cholmod_l_read_sparse(f.get(), &cm.c);
  if (!a) {
    const std::string at = locate_mm_error(path);
    if (!at.empty()) throw InputError("", at + " (malformed Matrix Market file)");
    throw InputError(path, "malformed Matrix Market file (CHOLMOD could not read it, status " + std::to_string(cm.c.status) +
                               "; expected a '%%MatrixMarket matrix coordinate ...' header, a size line and one entry per line)");
  }
  cholmod_sparse* full = a;
  if (a->stype != 0) full = cholmod_l_copy(a, 0, 0, &cm.c);  // expand symmetric storage to the full pattern
  if (!full) {
    cholmod_l_free_sparse(&a, &cm.c);
    throw std::runtime_error("CHOLMOD could not expand " + path);
  }
  CsrPattern out = csc_to_csr(static_cast<Index>(full->nrow), static_cast<Index>(full->ncol), static_cast<const SuiteSparse_long*>(full->p),
                              static_cast<const SuiteSparse_long*>(full->i));
  out.complex = full->xtype == CHOLMOD_COMPLEX || full->xtype == CHOLMOD_ZOMPLEX || a->xtype == CHOLMOD_COMPLEX;
  if (full != a) cholmod_l_free_sparse(&full, &cm.c);
  cholmod_l_free_sparse(&a, &cm.c);
  return out;
}

CsrPattern read_rutherford_boeing(const std::string& path) {
  char title[73], key[9], mtype[4];
  SuiteSparse_long nrow = 0, ncol = 0, mkind = 0, skind = 0, asize = 0, znz = 0;
  SuiteSparse_long *ap = nullptr, *ai = nullptr, *zp = nullptr, *zi = nullptr;
  double *ax = nullptr, *az = nullptr;
  std::vector<char> name(path.begin(), path.end());
  name.push_back('\0');
  // build_upper = 1: symmetric matrices come back with both triangles; zero_handling = 0: keep explicit zeros.
  const SuiteSparse_long st =
      RBread(name.data(), 1, 0, title, key, mtype, &nrow, &ncol, &mkind, &skind, &asize, &znz, &ap, &ai, &ax, &az, &zp, &zi);
  auto release = [&] {
    for (void* q : {static_cast<void*>(ap), static_cast<void*>(ai), static_cast<void*>(zp), static_cast<void*>(zi), static_cast<void*>(ax),
                    static_cast<void*>(az)})
      SuiteSparse_free(q);
  };
  if (st != 0 || !ap) {
    release();
    throw InputError(path, "not a readable Matrix Market or Rutherford-Boeing file (RBio status " + std::to_string(st) + ")");
  }
  CsrPattern out = csc_to_csr(nrow, ncol, ap, ai);
  out.complex = mkind == 2 || mkind == 4;
  release();
  return out;
}

}  // namespace

CsrPattern read_matrix(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path, "is a directory, not a matrix file");
  std::ifstream probe(path);
  if (!probe) throw InputError(path, std::string("cannot open matrix file: ") + std::strerror(errno));
  if (probe.peek() == std::ifstream::traits_type::eof())
    throw InputError(path, "is empty (expected a Matrix Market or Rutherford-Boeing matrix)");
  std::string first;
  std::getline(probe, first);
  probe.close();
  return first.rfind("%%MatrixMarket", 0) == 0 ? read_matrix_market(path) : read_rutherford_boeing(path);
}

CsrPattern laplacian7(Index nx, Index ny, Index nz) {
  CsrPattern a;
  a.nrows = a.ncols = nx * ny * nz;
  a.rowptr.reserve(static_cast<std::size_t>(a.nrows) + 1);
  a.cols.reserve(static_cast<std::size_t>(a.nrows) * 7);
  for (Index k = 0; k < nz; ++k)
    for (Index j = 0; j < ny; ++j)
      for (Index i = 0; i < nx; ++i) {
        const Index row = (k * ny + j) * nx + i;
        if (k > 0) a.cols.push_back(row - nx * ny);
        if (j > 0) a.cols.push_back(row - nx);
        if (i > 0) a.cols.push_back(row - 1);
        a.cols.push_back(row);
        if (i + 1 < nx) a.cols.push_back(row + 1);
        if (j + 1 < ny) a.cols.push_back(row + nx);
        if (k + 1 < nz) a.cols.push_back(row + nx * ny);
        a.rowptr.push_back(a.nnz());
      }
  return a;
}

CsrPattern permute_symmetric(const CsrPattern& a, const std::vector<Index>& perm) {
  std::vector<Index> iperm(perm.size());
  for (std::size_t n = 0; n < perm.size(); ++n) iperm[static_cast<std::size_t>(perm[n])] = static_cast<Index>(n);
  CsrPattern b;
  b.nrows = a.nrows;
  b.ncols = a.ncols;
  b.complex = a.complex;
  b.rowptr.reserve(a.rowptr.size());
  b.cols.reserve(a.cols.size());
  for (Index r = 0; r < a.nrows; ++r) {
    const Index old = perm[static_cast<std::size_t>(r)];
    const auto begin = b.cols.size();
    for (Index k = a.rowptr[static_cast<std::size_t>(old)]; k < a.rowptr[static_cast<std::size_t>(old) + 1]; ++k)
      b.cols.push_back(iperm[static_cast<std::size_t>(a.cols[static_cast<std::size_t>(k)])]);
    std::sort(b.cols.begin() + static_cast<std::ptrdiff_t>(begin), b.cols.end());
    b.rowptr.push_back(b.nnz());
  }
  return b;
}

}  // namespace sfr::gen
