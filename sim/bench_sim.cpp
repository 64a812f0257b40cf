// Simulator benchmark (not a unit test): prints a table and writes JSON.
// Usage: sfr_bench_sim [--json FILE (default sim_bench.json)] [--store DIR] [--only throughput|scale|simgrid]
//  1. throughput: a random SF on 1024 ranks, many ops, simulated messages per second on one core;
//  2. scale: a 1,000,000-rank nearest-neighbour trace, wall time and peak memory;
//  3. SimGrid: rings, random degree-8 exchanges and SpMV ghost exchanges replayed by SMPI (when
//     smpirun is installed) and by us on the same uniform machine: predicted times, difference,
//     wall times and speed-up.
#include <sys/resource.h>
#include <time.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <random>
#include <string>

#include "core/backends.hpp"
#include "sim/simgrid_export.hpp"
#include "sim/smpi_compare.hpp"
#ifdef SFR_HAVE_GENERATORS
#include "generators/spmv.hpp"
#endif
#include "io/json_strict.hpp"
#include "io/output_file.hpp"
#include "sim/simulate.hpp"
#include "trace/provenance.hpp"

using namespace sfr;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// CPU time of this process (the machine may be shared: wall time then overstates).
double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double peak_rss_gib() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / (1024.0 * 1024.0);  // ru_maxrss is in KiB on Linux
}

core::OpSpec make_op(core::OpKind k, core::Index repeat, core::Unit u = core::Unit::float64, int bs = 1) {
  core::OpSpec o;
  o.op = k;
  o.sf = "S";
  o.unit = u;
  o.bs = bs;
  o.repeat = repeat;
  return o;
}

trace::BuiltTrace make_trace(std::string name, core::Graph g, std::vector<core::OpSpec> ops, trace::Machine mach) {
  trace::Trace t;
  t.name = std::move(name);
  t.nranks = g.nranks;
  t.machine = mach;
  t.sfs.push_back({"S", trace::ExplicitSF{std::make_shared<const core::Graph>(std::move(g))}});
  t.ops = std::move(ops);
  return trace::BuiltTrace(std::move(t));
}

// Rank r holds `halo` leaves on each of its neighbours r-1 and r+1 (periodic); only on r-1 when
// not `both`.
core::Graph ring(int n, int halo, bool both = true) {
  core::Graph g(n);
  for (int r = 0; r < n; ++r) {
    g[r].nroots = halo;
    g[r].remote_rank.reserve(2 * static_cast<std::size_t>(halo));
    g[r].remote_index.reserve(2 * static_cast<std::size_t>(halo));
    for (int side : {-1, 1})
      for (int i = 0; i < halo && (both || side < 0); ++i) {
        g[r].remote_rank.push_back((r + side + n) % n);
        g[r].remote_index.push_back(i);
      }
  }
  return g;
}

// 1. Throughput: lassen's own topology (one rank per GPU, 4 per node) and 32 ranks per node
// (larger per-node event heaps: the NIC couples all senders of a node).
void throughput(const sim::MachineModel& lassen, io::Json& j) {
  const int P = 1024, leaves = 64;
  core::Graph g(P);
  std::mt19937_64 rng(42);
  for (int r = 0; r < P; ++r) g[r].nroots = 256;
  for (int r = 0; r < P; ++r)
    for (int i = 0; i < leaves; ++i) g[r].add_leaf(i, static_cast<int>(rng() % P), static_cast<core::Index>(rng() % 256));
  for (const trace::Machine mach : {trace::Machine{4, 2, 4}, trace::Machine{32, 16, 4}}) {
    const auto bt = make_trace(
        "random-1024", g,
        {make_op(core::OpKind::bcast, 100), make_op(core::OpKind::reduce, 100), make_op(core::OpKind::bcast, 100, core::Unit::int32, 4)},
        mach);
    auto study = lassen;
    study.model = sim::ModelKind::study_max_rate;
    struct Row {
      const char* label;
      sim::BackendVariant backend;
      const sim::MachineModel* m;
    };
    for (const Row& row :
         {Row{core::backend_name(core::BackendId::basic), sim::BackendVariant{}, &lassen}, Row{core::backend_name(core::BackendId::three_step), sim::BackendVariant{core::BackendId::three_step, false}, &lassen},
          Row{"basic/study", sim::BackendVariant{}, &study}}) {
      sim::simulate(bt, *row.m, {row.backend});  // warm up (allocations)
      const auto t0 = Clock::now();
      const double c0 = cpu_seconds();
      const auto res = sim::simulate(bt, *row.m, {row.backend});
      const double cpu = cpu_seconds() - c0;
      const double wall = seconds_since(t0);
      const double rate = static_cast<double>(res.backends[0].messages) / cpu;
      const std::string key = std::string(row.label) + "_" + std::to_string(mach.ranks_per_node) + "_per_node";
      std::printf(
          "throughput  %-11s %-14s random SF, 1024 ranks, %2d ranks/node, %zu ops x 100: %llu messages in %.3f s CPU (%.3f s wall) = "
          "%.1f M messages/s\n",
          row.label, sim::model_name(row.m->model), mach.ranks_per_node, bt.trace().ops.size(),
          static_cast<unsigned long long>(res.backends[0].messages), cpu, wall, rate / 1e6);
      j["throughput"][key] = {{"ranks", P},
                              {"ranks_per_node", mach.ranks_per_node},
                              {"model", sim::model_name(row.m->model)},
                              {"messages", res.backends[0].messages},
                              {"cpu_s", cpu},
                              {"wall_s", wall},
                              {"messages_per_cpu_s", rate}};
    }
  }
}

// 2. One million ranks, nearest neighbour.
void million_ranks(const sim::MachineModel& lassen, io::Json& j) {
  const int P = 1000000;
  const auto t0 = Clock::now();
  const auto bt = make_trace("ring-1M", ring(P, 16), {make_op(core::OpKind::bcast, 1), make_op(core::OpKind::reduce, 1)}, {40, 20, 4});
  const double build = seconds_since(t0);
  const auto t1 = Clock::now();
  const auto res = sim::simulate(bt, lassen, {sim::BackendVariant{}, sim::BackendVariant{core::BackendId::two_step, false}});
  const double wall = seconds_since(t1);
  const double rss = peak_rss_gib();
  std::printf(
      "scale       1,000,000-rank nearest neighbour, basic + 2step: %llu messages, build %.2f s, simulate %.2f s, peak RSS %.2f GiB, "
      "predicted basic %.3f us\n",
      static_cast<unsigned long long>(res.backends[0].messages + res.backends[1].messages), build, wall, rss,
      res.backends[0].total_s * 1e6);
  j["million_ranks"] = {{"ranks", P},          {"messages", res.backends[0].messages + res.backends[1].messages},
                        {"build_s", build},    {"simulate_s", wall},
                        {"peak_rss_gib", rss}, {"predicted_basic_s", res.backends[0].total_s}};
}

// 3. SimGrid SMPI versus us on the uniform machine (1 us end to end, 10 GB/s private links, no
//    backbone): rings, random degree ~8 and SpMV ghost exchanges of the shared matrices.
void simgrid_agreement(io::Json& j) {
  if (!sim::smpirun_available()) {
    std::printf("simgrid     smpirun not found: comparison skipped (install libsimgrid-dev)\n");
    j["simgrid"] = nullptr;
    return;
  }
  const auto m = sim::uniform_machine(1e-6, 1e10);
  struct Case {
    std::string name;
    trace::BuiltTrace bt;
  };
  std::vector<Case> cases;
  cases.push_back({"one-way ring, 256 ranks, 1 KiB, 20 ops", sim::ring_trace(256, {1}, 1024, 20)});
  cases.push_back({"+-1 ring, 64 ranks, 64 KiB, 20 ops", sim::ring_trace(64, {-1, 1}, 65536, 20)});
  cases.push_back({"+-1 ring, 256 ranks, 512 KiB, 10 ops", sim::ring_trace(256, {-1, 1}, 524288, 10)});
  cases.push_back({"+-2 ring, 1024 ranks, 1 KiB, 20 ops", sim::ring_trace(1024, {-2, -1, 1, 2}, 1024, 20)});
  cases.push_back({"random degree 8, 256 ranks, 4 KiB, 20 ops", sim::random_degree_trace(256, 8, 4096, 20, 1)});
  cases.push_back({"random degree 8, 1024 ranks, 64 KiB, 10 ops", sim::random_degree_trace(1024, 8, 65536, 10, 2)});
#ifdef SFR_HAVE_GENERATORS
  for (const char* mtx : {"bcsstk13", "cryg2500", "bcspwr10", "Pd"}) {
    const std::string path = std::string(SFR_MATRICES_DIR) + "/" + mtx + ".mtx";
    if (!std::filesystem::exists(path)) continue;
    gen::SpmvOptions o;
    o.matrix_path = path;
    o.nranks = 64;
    auto t = gen::spmv_trace(o);
    for (auto& op : t.ops) op.repeat = 10;
    cases.push_back({std::string("SpMV ") + mtx + ", 64 ranks, 20 ops", trace::BuiltTrace(std::move(t))});
  }
#endif
  j["simgrid"] = io::Json::array();
  std::printf("\nsimgrid agreement (uniform machine: 1 us, 10 GB/s; basic backend)\n");
  std::printf("%-46s %14s %14s %9s %10s %10s %9s\n", "pattern", "SMPI us", "ours us", "diff", "SMPI wall", "our wall", "speed-up");
  const auto dir = (std::filesystem::temp_directory_path() / "sfr_bench_simgrid").string();
  for (const auto& c : cases) {
    const auto r = sim::compare_with_smpi(c.bt, m, dir);
    std::printf("%-46s %14.3f %14.3f %+8.1f%% %9.2fs %9.4fs %8.0fx\n", c.name.c_str(), r.smpi_s * 1e6, r.ours_s * 1e6, r.diff() * 100,
                r.smpi_wall_s, r.ours_wall_s, r.speedup());
    std::fflush(stdout);
    j["simgrid"].push_back({{"pattern", c.name},
                            {"ranks", c.bt.trace().nranks},
                            {"smpi_predicted_s", r.smpi_s},
                            {"our_predicted_s", r.ours_s},
                            {"relative_difference", r.diff()},
                            {"smpi_wall_s", r.smpi_wall_s},
                            {"our_wall_s", r.ours_wall_s},
                            {"speedup", r.speedup()}});
  }
  std::filesystem::remove_all(dir);
}

}  // namespace

int main(int argc, char** argv) {
  std::string out = "sim_bench.json", only, store;  // only: run just that part
  for (int i = 1; i < argc; i += 2) {
    const std::string a = argv[i];
    if (i + 1 < argc && a == "--json")
      out = argv[i + 1];
    else if (i + 1 < argc && a == "--only")
      only = argv[i + 1];
    else if (i + 1 < argc && a == "--store")
      store = argv[i + 1];
    else {
      std::fprintf(stderr, "usage: sfr_bench_sim [--json FILE] [--store DIR] [--only throughput|scale|simgrid]\n");
      return 2;
    }
  }
  if (!only.empty() && only != "throughput" && only != "scale" && only != "simgrid") {
    std::fprintf(stderr, "sfr_bench_sim: error: --only: unknown part '%s' (throughput, scale or simgrid)\n", only.c_str());
    return 2;
  }
  auto part = [&](const char* name) { return only.empty() || only == name; };
  io::Json j;
  const auto lassen = *sim::preset("lassen");
  if (part("throughput")) throughput(lassen, j);
  if (part("scale")) million_ranks(lassen, j);
  if (part("simgrid")) simgrid_agreement(j);
  trace::bench_document(std::move(j), {"bench_sim", 1, "", "", ""}, out, store);
  std::printf("JSON written to %s\n", out.c_str());
  return 0;
}
