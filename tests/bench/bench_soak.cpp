// The soak benchmark (not a test: a table and a JSON result): does anything grow with the calls?
//   mpiexec -n P sfr_bench_soak TRACE [--calls N] [--setups M] [--backends B,...] [--json FILE] [--store DIR]
//     on every host backend (or those named), in one process per rank: N calls (begin + end) of each op of the
//     trace on one star forest, each call's time kept as run keeps it (core::SampleReservoir);
//     then M times a star forest set up, one op run on it, and torn down. Sampled, as the maximum
//     over ranks: the resident memory, the live MPI objects (counted by PMPI wrappers:
//     tests/support/pmpi_objects.hpp), the process's memory mappings and open files. A backend is
//     "flat" when its resident memory grows by at most 1 MiB after a warm-up of a tenth of the
//     calls and its objects, mappings and files end as they were after the warm-up.
//   sfr_bench_soak peak-rss -- COMMAND...
//     runs COMMAND (under mpiexec: each rank's) and prints its peak resident memory and status.
#include <mpi.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "core/backends.hpp"
#include "core/statistic.hpp"
#include "exec/conformance.hpp"
#include "exec/mpi/runner.hpp"
#include "exec/mpi/star_forest.hpp"
#include "support/pmpi_objects.hpp"
#include "trace/provenance.hpp"
#include "trace/reader.hpp"

using namespace sfr;
using core::Index;

namespace {

int me = 0, np = 0;

long count_entries(const char* dir) {
  long n = 0;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(dir, ec); !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) ++n;
  return n;
}

long count_lines(const char* file) {
  std::ifstream in(file);
  long n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

// What this rank holds now; sampled as the maximum over ranks (collective).
struct Snapshot {
  long rss_kib = 0, maps = 0, fds = 0, comms = 0, types = 0, windows = 0, shared_windows = 0, persistent = 0, pending = 0;
  bool same_objects(const Snapshot& o) const {
    return maps == o.maps && fds == o.fds && comms == o.comms && types == o.types && windows == o.windows &&
           shared_windows == o.shared_windows && persistent == o.persistent && pending == o.pending;
  }
};

Snapshot snapshot() {
  long pages = 0, resident = 0;
  if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  const auto o = sfr_test::live_mpi_objects();
  long mine[9] = {resident * (sysconf(_SC_PAGESIZE) / 1024), count_lines("/proc/self/maps"), count_entries("/proc/self/fd"),
                  o.comms, o.types, o.windows, o.shared_windows, o.persistent_requests, o.pending_requests};
  long mx[9];
  MPI_Allreduce(mine, mx, 9, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  return {mx[0], mx[1], mx[2], mx[3], mx[4], mx[5], mx[6], mx[7], mx[8]};
}

// One op's buffers on this rank, with conformance data.
struct OpData {
  exec::Buffer root, leaf, update;
  OpData(const core::Graph& g, const core::OpSpec& op) {
    Index off = 0, loff = 0;
    for (int r = 0; r < me; ++r) {
      off += g[r].nroots;
      loff += g[r].leafspace();
    }
    const auto mop = core::op_named_mpi_op(op);
    root = exec::conformance_input(exec::Side::root, op.unit, op.bs, mop, me, g[me].nroots, off);
    leaf = exec::conformance_input(exec::Side::leaf, op.unit, op.bs, mop, me, g[me].leafspace(), loff);
    update = exec::Buffer(op.unit, op.bs, g[me].leafspace());
  }
};

// One call of a bcast, reduce or fetch-and-op (the motions a soak repeats).
void call(exec::Sf& sf, const core::OpSpec& op, OpData& d) {
  const auto r = exec::host_data(d.root.bytes.data()), l = exec::host_data(d.leaf.bytes.data()), u = exec::host_data(d.update.bytes.data());
  switch (core::op_traits(op.op).motion) {
    case core::Motion::bcast: sf.end(sf.bcast_begin(op.unit, op.bs, op.mpi_op, r, l)); break;
    case core::Motion::reduce: sf.end(sf.reduce_begin(op.unit, op.bs, op.mpi_op, l, r)); break;
    case core::Motion::fetch_and_op: sf.end(sf.fetch_and_op_begin(op.unit, op.bs, op.mpi_op, r, l, u)); break;
  }
}

struct Row {
  std::string backend, what;
  long long calls = 0;
  double us_per_call = 0;
  Snapshot warm, end;
  long growth_kib = 0;  // the largest resident memory after the warm-up, less the warm-up's
  bool flat() const { return growth_kib <= 1024 && warm.same_objects(end); }
};

io::Json row_json(const Row& r) {
  auto snap = [](const Snapshot& s) {
    return io::Json{{"rss_kib", s.rss_kib}, {"maps", s.maps},       {"fds", s.fds},
                    {"comms", s.comms},     {"types", s.types},     {"windows", s.windows},
                    {"shared_windows", s.shared_windows}, {"persistent_requests", s.persistent}, {"pending_requests", s.pending}};
  };
  return {{"backend", r.backend}, {"what", r.what},   {"calls", r.calls},        {"us_per_call", r.us_per_call},
          {"warm", snap(r.warm)}, {"end", snap(r.end)}, {"growth_kib", r.growth_kib}, {"flat", r.flat()}};
}

void print_row(const Row& r) {
  if (me != 0) return;
  auto objs = [](const Snapshot& s) {
    char b[96];
    std::snprintf(b, sizeof b, "%ld/%ld/%ld/%ld/%ld/%ld", s.comms, s.types, s.windows, s.shared_windows, s.persistent, s.pending);
    return std::string(b);
  };
  std::printf("%-10s %-22s %9lld %9.2f %9.1f %10ld %-20s %-20s %5ld>%-5ld %3ld>%-3ld %s\n", r.backend.c_str(), r.what.c_str(), r.calls,
              r.us_per_call, static_cast<double>(r.warm.rss_kib) / 1024, r.growth_kib, objs(r.warm).c_str(), objs(r.end).c_str(),
              r.warm.maps, r.end.maps, r.warm.fds, r.end.fds, r.flat() ? "flat" : "GROWS");
  std::fflush(stdout);
}

// Runs `step(k)` for k in [0, n): a snapshot after the first tenth (the warm-up) and after each
// further tenth; the row's growth is the largest resident memory after the warm-up, less its.
template <class Step>
Row soak(const std::string& backend, const std::string& what, long long n, Step&& step) {
  Row r;
  r.backend = backend;
  r.what = what;
  r.calls = n;
  // A tenth, or the calls that fill a run's reservoir of samples where that is more (up to half).
  const long long warm = std::max({1LL, n / 10, std::min(static_cast<long long>(core::kSampleCap), n / 2)});
  long long k = 0;
  for (; k < warm; ++k) step(k);
  r.warm = snapshot();
  long peak = r.warm.rss_kib;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int tenth = 1; tenth < 10 || k < n; ++tenth) {
    const long long until = std::min(n, warm + (n - warm) * tenth / 9);
    for (; k < until; ++k) step(k);
    r.end = snapshot();
    peak = std::max(peak, r.end.rss_kib);
    if (k >= n) break;
  }
  r.us_per_call = (MPI_Wtime() - t0) * 1e6 / static_cast<double>(std::max(1LL, n - warm));
  r.growth_kib = peak - r.warm.rss_kib;
  return r;
}

int soak_bench(const std::string& file, long long calls, long long setups, const std::string& only, io::Json& out) {
  const auto t = trace::read_trace_file(file);
  if (t.trace().nranks != np) {
    if (me == 0) std::fprintf(stderr, "%s needs %d ranks\n", file.c_str(), t.trace().nranks);
    return 2;
  }
  // The node-aware strategies on nodes of half the ranks (their traffic crosses nodes); the others
  // on the ranks that share memory (shm's segments).
  const int half = std::max(1, np / 2);
  if (me == 0) {
    std::printf("# soak: %lld calls of each op, %lld set-ups per backend, %d ranks (max over ranks); objects: comms/types/windows/"
                "shared windows/persistent/pending requests at warm-up (a tenth) and at the end\n",
                calls, setups, np);
    std::printf("%-10s %-22s %9s %9s %9s %10s %-20s %-20s %11s %7s %s\n", "backend", "what", "calls", "us/call", "rss MiB", "growth KiB",
                "objects (warm)", "objects (end)", "maps", "fds", "verdict");
  }
  out = {{"benchmark", "sf-soak"}, {"ranks", np}, {"calls", calls}, {"setups", setups}, {"results", io::Json::array()}};
  bool all_flat = true;
  for (const auto& b : core::kBackends) {
    if (b.gpu || b.pattern_only) continue;
    if (!only.empty() && ("," + only + ",").find("," + std::string(b.name) + ",") == std::string::npos) continue;
    const int rpn = b.node_aware ? half : 0;
    for (std::size_t i = 0; i < t.trace().ops.size(); ++i) {
      const auto& op = t.trace().ops[i];
      const core::Graph& g = t.graph_for(op);
      OpData d(g, op);
      core::SampleReservoir times;  // as run keeps an op's iterations
      exec::mpi::StarForest sf(MPI_COMM_WORLD, g, b.id, rpn);
      const Row r = soak(b.name, std::string(core::op_kind_name(op.op)) + " " + op.sf, calls, [&](long long) {
        const double t0 = MPI_Wtime();
        call(sf, op, d);
        times.add((MPI_Wtime() - t0) * 1e6);
      });
      print_row(r);
      out["results"].push_back(row_json(r));
      all_flat = all_flat && r.flat();
    }
    const auto& op = t.trace().ops.front();
    const core::Graph& g = t.graph_for(op);
    OpData d(g, op);
    const Row r = soak(b.name, "set-up, 1 op, teardown", setups, [&](long long) {
      exec::mpi::StarForest sf(MPI_COMM_WORLD, g, b.id, rpn);
      call(sf, op, d);
    });
    print_row(r);
    out["results"].push_back(row_json(r));
    all_flat = all_flat && r.flat();
  }
  out["all_flat"] = all_flat;
  if (me == 0) std::printf("%s\n", all_flat ? "every backend flat" : "SOMETHING GROWS");
  return 0;
}

// Runs argv as a child; its peak resident memory (getrusage of the child) and exit status.
int peak_rss(char** argv) {
  const pid_t pid = fork();
  if (pid == 0) {
    execvp(argv[0], argv);
    std::perror("exec");
    _exit(127);
  }
  int status = 0;
  rusage ru{};
  if (pid < 0 || wait4(pid, &status, 0, &ru) != pid) return 1;
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  std::printf("peak-rss rank %s: %ld KiB, status %d\n", rank ? rank : "-", ru.ru_maxrss, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

long long number(const char* s) { return static_cast<long long>(std::strtod(s, nullptr)); }  // 1e6 works too

}  // namespace

int main(int argc, char** argv) {
  if (argc > 2 && std::strcmp(argv[1], "peak-rss") == 0 && std::strcmp(argv[2], "--") == 0 && argc > 3) return peak_rss(argv + 3);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  std::string file, json, store, only;
  long long calls = 1000000, setups = 10000;
  bool usage = argc < 2;
  for (int i = 1; i < argc; ++i) {
    const bool has = i + 1 < argc;
    if (std::strcmp(argv[i], "--calls") == 0 && has)
      calls = number(argv[++i]);
    else if (std::strcmp(argv[i], "--setups") == 0 && has)
      setups = number(argv[++i]);
    else if (std::strcmp(argv[i], "--backends") == 0 && has)
      only = argv[++i];
    else if (std::strcmp(argv[i], "--json") == 0 && has)
      json = argv[++i];
    else if (std::strcmp(argv[i], "--store") == 0 && has)
      store = argv[++i];
    else if (argv[i][0] != '-' && file.empty())
      file = argv[i];
    else
      usage = true;
  }
  int rc = 2;
  if (usage || file.empty() || calls < 10 || setups < 10) {
    if (me == 0)
      std::fprintf(stderr, "usage: sfr_bench_soak TRACE [--calls N>=10] [--setups M>=10] [--backends B,...] [--json FILE] [--store DIR]\n"
                           "       sfr_bench_soak peak-rss -- COMMAND...\n");
  } else {
    io::Json out;
    rc = soak_bench(file, calls, setups, only, out);
    if (rc == 0 && me == 0) {
      const auto t = trace::read_trace_file(file);
      trace::bench_document(out, {"bench_soak", np, t.trace().name, file, exec::mpi::mpi_library()}, json, store);
    }
  }
  MPI_Finalize();
  return rc;
}
