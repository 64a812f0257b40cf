#include "generators/suite.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace sfr::gen {

namespace {

// Draws with std::mt19937_64 (its output is fixed by the standard) and plain modulo, so that a
// seed means the same suite with any standard library.
struct Draw {
  std::mt19937_64 rng;
  explicit Draw(std::uint64_t seed) : rng(seed) {}
  long long in(long long lo, long long hi) { return lo + static_cast<long long>(rng() % static_cast<std::uint64_t>(hi - lo + 1)); }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[static_cast<std::size_t>(in(0, static_cast<long long>(v.size()) - 1))];
  }
  std::string num(long long lo, long long hi) { return std::to_string(in(lo, hi)); }
};

// A Matrix Market file's rows and columns from its size line (0, 0 when unreadable): METIS and
// RCM need a square matrix.
std::pair<long long, long long> mm_shape(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty() && line[0] != '%') {
      std::istringstream ss(line);
      long long r = 0, c = 0;
      ss >> r >> c;
      return {r, c};
    }
  return {0, 0};
}

// Ranks per node dividing P or not: both happen in practice.
std::string rpn(Draw& d, int ranks) { return std::to_string(d.in(1, ranks)); }

}  // namespace

std::vector<SuiteEntry> plan_suite(std::uint64_t seed, const std::vector<std::string>& matrices, std::uint64_t max_matrix_bytes) {
  Draw d(seed);
  std::vector<SuiteEntry> s;
  auto add = [&](const std::string& name, const std::string& kind, int ranks, std::vector<std::string> args) {
    args.insert(args.end(), {"--ranks-per-node", rpn(d, ranks)});
    s.push_back({name + ".json", kind, std::move(args), ranks});
  };
  for (const char* pattern : {"diagonal", "quasi-diagonal", "random"}) {
    const int p = static_cast<int>(d.in(2, 8));
    std::vector<std::string> a = {"--pattern",  pattern,        "--ranks",     std::to_string(p),
                                  "--per-rank", d.num(20, 400), "--direction", d.pick<std::string>({"block-to-part", "part-to-block"})};
    const std::string seed = d.num(1, 1 << 30);  // drawn for every pattern: the suite's other draws stay as they were
    if (std::string(pattern) != "diagonal") a.insert(a.end(), {"--seed", seed});  // the diagonal has no randomness
    if (std::string(pattern) == "quasi-diagonal") a.insert(a.end(), {"--fraction", "0." + d.num(1, 5)});
    add(std::string("synthetic-") + pattern, "synthetic", p, a);
  }
  {
    const int p = static_cast<int>(d.in(1, 8));
    add("random", "random", p,
        {"--ranks", std::to_string(p), "--seed", d.num(1, 1 << 30), "--max-roots", d.num(0, 60), "--max-leaves", d.num(0, 80),
         "--max-degree", d.num(0, 6), "--holes", d.pick<std::string>({"0", "0.5"}), "--self", d.pick<std::string>({"0", "0.2"})});
  }
  {
    const int dims = static_cast<int>(d.in(1, 3));
    const std::vector<std::vector<std::string>> procs = {
        {"2", "3", "4", "8"}, {"2x1", "2x2", "1x3", "2x4"}, {"2x1x1", "2x2x1", "1x2x2", "2x2x2"}};
    const std::string pr = d.pick(procs[static_cast<std::size_t>(dims - 1)]);
    int p = 1;
    for (std::size_t i = 0; i < pr.size(); i += 2) p *= pr[i] - '0';
    std::string size;
    for (int k = 0; k < dims; ++k) size += (k ? "x" : "") + d.num(dims == 1 ? 24 : 8, dims == 1 ? 200 : 24);
    add("stencil", "stencil", p,
        {"--dims", std::to_string(dims), "--size", size, "--procs", pr, "--stencil", d.pick<std::string>({"star", "box"}), "--width",
         d.num(1, 2), "--dof", d.num(1, 3), "--periodic", d.pick<std::string>({"none", "all", "x"})});
  }
  {
    const int p = static_cast<int>(d.in(2, 8));
    // The mesh is cut into a grid of boxes of the most cubic factors of P: at least as many cells
    // per side as its longest side (a prime P needs P).
    static const int longest_side[9] = {1, 1, 2, 3, 2, 5, 3, 7, 2};
    const int min_cells = std::max(3, longest_side[p]);
    const std::string order = d.pick<std::string>({"sequential", "chunks", "random"});
    std::vector<std::string> a = {"--cells", d.num(min_cells, std::max(6, min_cells)), "--ranks", std::to_string(p), "--order", order};
    if (order == "random") a.insert(a.end(), {"--seed", d.num(1, 1 << 30)});  // the seed of the random order only
    add("hexmesh", "hexmesh", p, a);
  }
  {
    const int p = static_cast<int>(d.in(2, 8));
    add("scatter", "scatter", p,
        {"--pattern", d.pick<std::string>({"par-to-par", "seq-to-par", "par-to-seq", "ring-send"}), "--ranks", std::to_string(p),
         "--per-rank", d.num(4, 200)});
  }
  {
    // P = (1 + nodes) * ranks per node <= 8.
    const int r = static_cast<int>(d.in(1, 2)), nodes = static_cast<int>(d.in(1, 8 / r - 1));
    const std::vector<std::string> a = {"--msgs",           d.num(1, 16),     "--nodes",      std::to_string(nodes),
                                        "--size",           d.num(8, 4096),   "--duplicates", d.pick<std::string>({"0", "0.25"}),
                                        "--ranks-per-node", std::to_string(r)};
    s.push_back({"scenario.json", "scenario", a, (1 + nodes) * r});
  }
  for (const auto& m : matrices) {
    std::error_code ec;
    const auto bytes = std::filesystem::file_size(m, ec);
    if (ec || bytes > max_matrix_bytes) continue;
    const int p = static_cast<int>(d.in(2, 8));
    const auto [rows, cols] = mm_shape(m);
    const std::string part = rows == cols ? d.pick<std::string>({"rows", "nnz", "metis", "rcm"}) : d.pick<std::string>({"rows", "nnz"});
    std::vector<std::string> a = {"--matrix", m, "--ranks", std::to_string(p), "--partition", part};
    if (part == "metis") a.insert(a.end(), {"--seed", d.num(1, 1 << 30)});  // METIS's seed only
    add("spmv-" + std::filesystem::path(m).stem().string(), "spmv", p, a);
  }
  return s;
}

}  // namespace sfr::gen
