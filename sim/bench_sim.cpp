// Simulator benchmark (not a unit test): prints a table and writes JSON.
// Usage: sfr_bench_sim [--json FILE (default sim_bench.json)] [--only throughput|scale|simgrid]
//  1. throughput: a random SF on 1024 ranks, many ops, simulated messages per second on one core;
//  2. scale: a 1,000,000-rank nearest-neighbour trace, wall time and peak memory;
//  3. SimGrid: the same ring trace (each rank sends 512 KiB to its right neighbour) replayed by
//     SMPI (when smpirun is installed) and by us under the same postal alpha-beta model:
//     predicted times and wall times.
#include <sys/resource.h>
#include <time.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <random>
#include <string>

#include "sim/simgrid_export.hpp"
#include "sim/simulate.hpp"
#include "trace/json_strict.hpp"
#include "trace/output_file.hpp"

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

trace::OpSpec make_op(trace::OpKind k, core::Index repeat, core::Unit u = core::Unit::float64, int bs = 1) {
  trace::OpSpec o;
  o.op = k;
  o.sf = "S";
  o.unit = u;
  o.bs = bs;
  o.repeat = repeat;
  return o;
}

trace::BuiltTrace make_trace(std::string name, core::Graph g, std::vector<trace::OpSpec> ops, trace::Machine mach) {
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

}  // namespace

int main(int argc, char** argv) {
  std::string out = "sim_bench.json", only;  // only: run just that part
  for (int i = 1; i < argc; i += 2) {
    const std::string a = argv[i];
    if (i + 1 < argc && a == "--json") out = argv[i + 1];
    else if (i + 1 < argc && a == "--only") only = argv[i + 1];
    else {
      std::fprintf(stderr, "usage: sfr_bench_sim [--json FILE] [--only throughput|scale|simgrid]\n");
      return 2;
    }
  }
  auto part = [&](const char* name) { return only.empty() || only == name; };
  trace::Json j;
  const auto lassen = *sim::preset("lassen");

  // 1. Throughput: lassen's own topology (one rank per GPU, 4 per node) and 32 ranks per node
  // (larger per-node event heaps: the NIC couples all senders of a node).
  if (part("throughput")) {
    const int P = 1024, leaves = 64;
    core::Graph g(P);
    std::mt19937_64 rng(42);
    for (int r = 0; r < P; ++r) g[r].nroots = 256;
    for (int r = 0; r < P; ++r)
      for (int i = 0; i < leaves; ++i) g[r].add_leaf(i, static_cast<int>(rng() % P), static_cast<core::Index>(rng() % 256));
    for (const trace::Machine mach : {trace::Machine{4, 2, 4}, trace::Machine{32, 16, 4}}) {
      const auto bt = make_trace("random-1024", g,
                                 {make_op(trace::OpKind::bcast, 100), make_op(trace::OpKind::reduce, 100),
                                  make_op(trace::OpKind::bcast, 100, core::Unit::int32, 4)},
                                 mach);
      for (const auto& [label, backend] : {std::pair{"basic", sim::Backend{}}, std::pair{"3step", sim::Backend{sim::BackendKind::three_step, false}}}) {
        sim::simulate(bt, lassen, {backend});  // warm up (allocations)
        const auto t0 = Clock::now();
        const double c0 = cpu_seconds();
        const auto res = sim::simulate(bt, lassen, {backend});
        const double cpu = cpu_seconds() - c0;
        const double wall = seconds_since(t0);
        const double rate = static_cast<double>(res.backends[0].messages) / cpu;
        const std::string key = std::string(label) + "_" + std::to_string(mach.ranks_per_node) + "_per_node";
        std::printf("throughput  %-6s random SF, 1024 ranks, %2d ranks/node, %zu ops x 100: %llu messages in %.3f s CPU (%.3f s wall) = %.1f M messages/s\n", label,
                    mach.ranks_per_node, bt.trace().ops.size(), static_cast<unsigned long long>(res.backends[0].messages), cpu, wall, rate / 1e6);
        j["throughput"][key] = {{"ranks", P}, {"ranks_per_node", mach.ranks_per_node}, {"messages", res.backends[0].messages},
                                {"cpu_s", cpu}, {"wall_s", wall}, {"messages_per_cpu_s", rate}};
      }
    }
  }

  // 2. One million ranks, nearest neighbour.
  if (part("scale")) {
    const int P = 1000000;
    const auto t0 = Clock::now();
    const auto bt = make_trace("ring-1M", ring(P, 16), {make_op(trace::OpKind::bcast, 1), make_op(trace::OpKind::reduce, 1)}, {40, 20, 4});
    const double build = seconds_since(t0);
    const auto t1 = Clock::now();
    const auto res = sim::simulate(bt, lassen, {sim::Backend{}, sim::Backend{sim::BackendKind::two_step, false}});
    const double wall = seconds_since(t1);
    const double rss = peak_rss_gib();
    std::printf("scale       1,000,000-rank nearest neighbour, basic + 2step: %llu messages, build %.2f s, simulate %.2f s, peak RSS %.2f GiB, predicted basic %.3f us\n",
                static_cast<unsigned long long>(res.backends[0].messages + res.backends[1].messages), build, wall, rss,
                res.backends[0].total_s * 1e6);
    j["million_ranks"] = {{"ranks", P}, {"messages", res.backends[0].messages + res.backends[1].messages}, {"build_s", build}, {"simulate_s", wall},
                          {"peak_rss_gib", rss}, {"predicted_basic_s", res.backends[0].total_s}};
  }

  // 3. SimGrid SMPI versus us, same postal alpha-beta (off-node eager parameters of lassen).
  if (!part("simgrid")) {
  } else if (sim::smpirun_available()) {
    const int P = 256;
    const auto m = sim::uniform_postal(lassen, lassen.ab(false, sim::Tier::network, sim::Proto::eager));
    const auto bt = make_trace("ring-256", ring(P, 64, false), {make_op(trace::OpKind::bcast, 10, core::Unit::float64, 1024), make_op(trace::OpKind::reduce, 10, core::Unit::float64, 1024)}, {1, 1, 0});
    const auto dir = (std::filesystem::temp_directory_path() / "sfr_bench_simgrid").string();
    const auto ex = sim::export_simgrid(bt, m, dir);
    auto t0 = Clock::now();
    const double theirs = sim::run_smpirun(ex, dir);
    const double their_wall = seconds_since(t0);
    t0 = Clock::now();
    const auto res = sim::simulate(bt, m, {sim::Backend{}});
    const double our_wall = seconds_since(t0);
    const double ours = res.backends[0].total_s;
    const double diff = theirs > 0 ? (ours - theirs) / theirs : 0;
    std::printf("simgrid     one-way ring of %d ranks, 512 KiB messages, 20 ops: SMPI %.6f s predicted in %.3f s wall; us %.6f s in %.4f s wall; difference %+.2f%%, speed-up %.0fx\n",
                P, theirs, their_wall, ours, our_wall, diff * 100, their_wall / our_wall);
    j["simgrid"] = {{"ranks", P}, {"smpi_predicted_s", theirs}, {"smpi_wall_s", their_wall}, {"our_predicted_s", ours},
                    {"our_wall_s", our_wall}, {"relative_difference", diff}, {"speedup", their_wall / our_wall}, {"command", ex.command}};
  } else {
    std::printf("simgrid     smpirun not found: comparison skipped (install libsimgrid-dev)\n");
    j["simgrid"] = nullptr;
  }
  trace::write_file_atomic(out, j.dump(1) + "\n");
  std::printf("JSON written to %s\n", out.c_str());
  return 0;
}
