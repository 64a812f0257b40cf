// Benchmark (not a test): time to generate the SpMV SF of a 7-point Laplacian built in memory.
// Usage: sfr_bench_generators [--rows N] [--ranks P] [--json FILE] [--store DIR]; N is rounded to a cube n^3.
#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>

#include "generators/spmv.hpp"
#include "trace/provenance.hpp"

int main(int argc, char** argv) {
  long long rows = 1000000;
  int ranks = 64;
  std::string json_path, store;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--rows"))
      rows = std::atoll(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--ranks"))
      ranks = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--json"))
      json_path = argv[i + 1];
    else if (!std::strcmp(argv[i], "--store"))
      store = argv[i + 1];
    else {
      std::cerr << "usage: sfr_bench_generators [--rows N] [--ranks P] [--json FILE] [--store DIR]\n";
      return 2;
    }
  }
  const auto n = static_cast<sfr::core::Index>(std::llround(std::cbrt(static_cast<double>(rows))));
  const auto t0 = std::chrono::steady_clock::now();
  const sfr::gen::CsrPattern a = sfr::gen::laplacian7(n, n, n);
  const auto t1 = std::chrono::steady_clock::now();
  sfr::gen::SpmvOptions o;
  o.nranks = ranks;
  const sfr::trace::Trace t = sfr::gen::spmv_trace(o, a, "laplacian7");
  const auto t2 = std::chrono::steady_clock::now();
  const double build_s = std::chrono::duration<double>(t1 - t0).count(), gen_s = std::chrono::duration<double>(t2 - t1).count();
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  const double peak_mib = static_cast<double>(ru.ru_maxrss) / 1024.0;
  const auto& lay = std::get<sfr::trace::LayoutSF>(t.sfs[0].def);
  long long ghosts = 0;
  for (const auto& r : lay.ranks) ghosts += static_cast<long long>(r.global.size());
  std::printf("%-12s %-6s %-10s %-10s %-12s %-10s %-10s\n", "rows", "ranks", "ghosts", "build_s", "generate_s", "total_s", "peak_MiB");
  std::printf("%-12lld %-6d %-10lld %-10.3f %-12.3f %-10.3f %-10.1f\n", static_cast<long long>(a.nrows), ranks, ghosts, build_s, gen_s,
              build_s + gen_s, peak_mib);
  const sfr::io::Json result = {{"benchmark", "spmv-laplacian7"},
                                {"rows", static_cast<long long>(a.nrows)},
                                {"ranks", ranks},
                                {"ghosts", ghosts},
                                {"build_seconds", build_s},
                                {"generate_seconds", gen_s},
                                {"total_seconds", build_s + gen_s},
                                {"peak_memory_mib", peak_mib},
                                {"limit_seconds", 5.0},
                                {"pass", build_s + gen_s <= 5.0}};
  std::cout << sfr::trace::bench_document(result, {"bench_generators", 1, "", "", ""}, json_path, store);
  return build_s + gen_s <= 5.0 ? 0 : 1;
}
