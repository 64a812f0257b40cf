// Benchmarks of the MPI executor (not tests: they print a table and a JSON result).
//   mpiexec -n 2 sfr_bench_mpi overhead [--json FILE] [--store DIR]
//     raw MPI_Isend/Irecv exchange vs SF bcast on a 2-rank one-leaf-per-rank SF, 8 B .. 1 MiB;
//     "overhead us" = SF time - raw time per exchange (interleaved trials, best of each).
//   mpiexec -n P sfr_bench_mpi sf TRACE... [--json FILE] [--store DIR]
//     every backend on the first bcast / reduce op of each trace's SFs, side by side, and PetscSF
//     (basic) on the same graph in the same run when built with PETSc; ratio = ours / PETSc; beside
//     every row the physical floor (Floor: a handoff plus the busiest rank's bytes at this
//     machine's copy bandwidth) and the time over it; in the summary of the best backend per op,
//     also the transfer floor (the received bytes at the rate a rank reads a node mate's memory).
//   mpiexec -n P sfr_bench_mpi self-order TRACE... [--json FILE] [--store DIR]
//     the self part before the sends start or while they fly (PetscSF's order), side by side, for
//     every backend that does the latter (core::BackendInfo::self_while_sending).
//   mpiexec -n 2 sfr_bench_mpi split-copy [--json FILE] [--store DIR]
//     issue 51's bound on one node: moving N contiguous bytes between two ranks' private arrays
//     as MPI does (the receiver pulls it all through the kernel: Open MPI's CMA), and split (the
//     receiver pulls half while the sender pushes the other half, process_vm_writev), one way and
//     both ways at once, 32 KiB .. 1 MiB; the MPI exchange of the same bytes beside them.
#include <mpi.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/backends.hpp"
#include "exec/conformance.hpp"
#include "exec/mpi/runner.hpp"
#include "exec/mpi/star_forest.hpp"
#include "mpi_timing.hpp"
#include "trace/provenance.hpp"
#include "trace/reader.hpp"

#ifdef SFR_WITH_PETSC
#include <petscsf.h>
#endif

using namespace sfr;
using core::Index;

namespace {

int me = 0, np = 0;

// Mean time per iteration of `f` in microseconds (the slowest rank's); trials of different
// candidates are interleaved by the caller, which keeps the best.
template <class F>
double mean_us(int iters, F&& f) {
  return slowest_mean_seconds(iters, f) * 1e6;
}

io::Json json_out;
std::string bench_trace, bench_trace_file;  // the trace of a one-trace run (provenance)

#ifdef SFR_WITH_PETSC
// PetscSF on this rank's part of `g` (the same graph our StarForest runs).
PetscSF petsc_sf(const core::Graph& g) {
  const core::RankGraph& rg = g[me];
  std::vector<PetscSFNode> rem(static_cast<std::size_t>(rg.nleaves()));
  for (std::size_t j = 0; j < rem.size(); ++j) rem[j] = {rg.remote_rank[j], static_cast<PetscInt>(rg.remote_index[j])};
  std::vector<PetscInt> il(rg.ilocal.begin(), rg.ilocal.end());
  PetscSF psf;
  PetscSFCreate(PETSC_COMM_WORLD, &psf);
  PetscSFSetGraph(psf, static_cast<PetscInt>(rg.nroots), static_cast<PetscInt>(rg.nleaves()), rg.has_ilocal ? il.data() : nullptr,
                  PETSC_COPY_VALUES, rem.data(), PETSC_COPY_VALUES);
  PetscSFSetUp(psf);
  return psf;
}
#endif

#ifdef SFR_WITH_PETSC
// One vertex of `count` components of `base` for PETSc (committed; free with free_block_type).
MPI_Datatype block_type(MPI_Datatype base, int count) {
  if (count == 1) return base;
  MPI_Datatype dt = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(count, base, &dt);
  MPI_Type_commit(&dt);
  return dt;
}
void free_block_type(MPI_Datatype dt, int count) {
  if (count > 1) MPI_Type_free(&dt);
}
#endif

int overhead() {
  if (np != 2) {
    if (me == 0) std::fprintf(stderr, "overhead needs exactly 2 ranks\n");
    return 2;
  }
  const int other = 1 - me;
  // One root and one leaf per rank; the leaf reads the other rank's root.
  core::Graph g(2);
  for (int r = 0; r < 2; ++r) {
    g[r].nroots = 1;
    g[r].add_leaf(0, 1 - r, 0);
  }
  exec::mpi::StarForest sf(MPI_COMM_WORLD, g, core::BackendId::basic), sfs(MPI_COMM_WORLD, g, core::BackendId::shm);
#ifdef SFR_WITH_PETSC
  PetscSF psf = petsc_sf(g);
  const char* petsc_col = "PetscSF";
#else
  const char* petsc_col = "(no PETSc)";
#endif
  if (me == 0) {
    std::printf(
        "# ping-pong: SF bcast vs raw MPI_Isend/Irecv, 2 ranks, one leaf per rank (us per exchange, best of 5 interleaved trials)\n");
    std::printf("%10s %10s %10s %10s %10s %12s %10s\n", "bytes", "raw MPI", "basic", "shm", petsc_col, "basic-raw", "shm/PETSc");
  }
  json_out = {{"benchmark", "sf-overhead"}, {"ranks", 2}, {"results", io::Json::array()}};
  for (std::size_t bytes : {std::size_t{8}, std::size_t{64}, std::size_t{512}, std::size_t{4096}, std::size_t{32768}, std::size_t{262144},
                            std::size_t{1} << 20}) {
    const int bs = static_cast<int>(bytes / 8);
    std::vector<double> root(static_cast<std::size_t>(bs), me + 1.0), leaf(static_cast<std::size_t>(bs), 0.0);
    const int iters = bytes <= 4096 ? 20000 : bytes <= 65536 ? 2000 : 200;
    std::vector<std::function<void()>> run;
    run.push_back([&] {
      MPI_Request rq[2];
      MPI_Irecv(leaf.data(), bs, MPI_DOUBLE, other, 7, MPI_COMM_WORLD, &rq[0]);
      MPI_Isend(root.data(), bs, MPI_DOUBLE, other, 7, MPI_COMM_WORLD, &rq[1]);
      MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    });
    run.push_back([&] { sf.end(sf.bcast_begin(core::Unit::float64, bs, core::MpiOp::replace, exec::host_data(root.data()), exec::host_data(leaf.data()))); });
    run.push_back([&] { sfs.end(sfs.bcast_begin(core::Unit::float64, bs, core::MpiOp::replace, exec::host_data(root.data()), exec::host_data(leaf.data()))); });
#ifdef SFR_WITH_PETSC
    const MPI_Datatype dt = block_type(MPI_DOUBLE, bs);
    run.push_back([&] {
      PetscSFBcastBegin(psf, dt, root.data(), leaf.data(), MPI_REPLACE);
      PetscSFBcastEnd(psf, dt, root.data(), leaf.data(), MPI_REPLACE);
    });
#endif
    for (int w = 0; w < 200; ++w)
      for (auto& f : run) f();
    std::vector<double> best(run.size(), 1e30);
    for (int trial = 0; trial < 5; ++trial)
      for (std::size_t k = 0; k < run.size(); ++k) best[k] = std::min(best[k], mean_us(iters, run[k]));
#ifdef SFR_WITH_PETSC
    free_block_type(dt, bs);
    const double petsc = best[3];
#else
    const double petsc = 0;
#endif
    const double ratio = petsc > 0 ? best[2] / petsc : 0;
    if (me == 0)
      std::printf("%10zu %10.3f %10.3f %10.3f %10.3f %12.3f %10.2f\n", bytes, best[0], best[1], best[2], petsc, best[1] - best[0], ratio);
    json_out["results"].push_back({{"bytes", bytes},
                                   {"raw_us", best[0]},
                                   {"sf_us", best[1]},
                                   {"overhead_us", best[1] - best[0]},
                                   {"shm_us", best[2]},
                                   {"petsc_us", petsc},
                                   {"shm_over_petsc", ratio}});
  }
#ifdef SFR_WITH_PETSC
  PetscSFDestroy(&psf);
#endif
  return 0;
}

// The physical floor of an exchange on this machine (issue 51): a message's handoff (half an
// 8-byte ping-pong between rank pairs, the slowest pair's least) plus the bytes the busiest rank
// must move (sent plus received) at the copy bandwidth every rank gets at once, from cache for a
// rank's bytes up to kInCache, else from memory (the slowest rank's best of 7 memcpy rounds).
// Beside it, the transfer floor: a handoff plus the busiest rank's received bytes at the rate one
// rank reads another's freshly written block through shared memory: the one copy every on-node
// message needs, its bytes crossing from the sender's core to the receiver's (0 where the ranks
// share no node).
struct Floor {
  static constexpr std::size_t kInCache = std::size_t{256} << 10, kFromMemory = std::size_t{64} << 20;
  double handoff_us = 0, cache_bytes_per_us = 0, memory_bytes_per_us = 0, cross_bytes_per_us = 0;
  double us(double moved_bytes) const {
    return handoff_us + moved_bytes / (moved_bytes <= static_cast<double>(kInCache) ? cache_bytes_per_us : memory_bytes_per_us);
  }
  double transfer_us(double received_bytes) const { return cross_bytes_per_us > 0 ? handoff_us + received_bytes / cross_bytes_per_us : 0; }
};

// Bytes per microsecond of reading a node mate's freshly written block of `bytes` (shared memory,
// every rank at once; the slowest rank's best of 7 rounds of 50); 0 without a node mate.
double cross_core_rate(std::size_t bytes) {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int n = 1, r = 0;
  MPI_Comm_size(node, &n);
  MPI_Comm_rank(node, &r);
  double rate = 0;
  if (n >= 2) {
    std::byte* mine = nullptr;
    MPI_Win win = MPI_WIN_NULL;
    MPI_Win_allocate_shared(static_cast<MPI_Aint>(bytes), 1, MPI_INFO_NULL, node, &mine, &win);
    MPI_Aint size = 0;
    int disp = 0;
    std::byte* mate = nullptr;
    MPI_Win_shared_query(win, (r ^ 1) < n ? r ^ 1 : r - 1, &size, &disp, &mate);
    std::vector<std::byte> into(bytes);
    double best = 1e300;
    for (int trial = 0; trial < 7; ++trial) {
      double us = 0;
      for (int rep = 0; rep < 50; ++rep) {
        std::memset(mine, trial * 50 + rep, bytes);  // fresh lines in my core's cache, as a pack leaves them
        MPI_Win_sync(win);
        MPI_Barrier(node);
        MPI_Win_sync(win);
        const double t0 = MPI_Wtime();
        std::memcpy(into.data(), mate, bytes);
        us += (MPI_Wtime() - t0) * 1e6;
        MPI_Barrier(node);
      }
      best = std::min(best, us / 50);
    }
    rate = static_cast<double>(bytes) / best;
    MPI_Win_free(&win);
  }
  MPI_Comm_free(&node);
  double slowest = 0;
  MPI_Allreduce(&rate, &slowest, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  return slowest;
}

// Bytes per microsecond of memcpy over `bytes`, every rank at once: the slowest rank's best.
double copy_rate(std::size_t bytes) {
  std::vector<char> a(bytes, 1), b(bytes, 0);
  const int reps = static_cast<int>(std::max<std::size_t>(1, (std::size_t{64} << 20) / bytes));
  double best = 1e300;
  for (int trial = 0; trial < 7; ++trial) {
    const double us = mean_us(reps, [&] {
      std::memcpy(b.data(), a.data(), bytes);
      std::swap(a, b);
    });
    best = std::min(best, us);
  }
  return static_cast<double>(bytes) / best;
}

Floor measure_floor() {
  Floor f;
  const int peer = (me ^ 1) < np ? me ^ 1 : -1;
  char byte8[8] = {};
  double least = 1e300;
  for (int trial = 0; trial < 7; ++trial) {
    MPI_Barrier(MPI_COMM_WORLD);
    const int reps = 200;
    const double t0 = MPI_Wtime();
    for (int k = 0; peer >= 0 && k < reps; ++k) {
      if (me < peer) {
        MPI_Send(byte8, 8, MPI_BYTE, peer, 9, MPI_COMM_WORLD);
        MPI_Recv(byte8, 8, MPI_BYTE, peer, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(byte8, 8, MPI_BYTE, peer, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(byte8, 8, MPI_BYTE, peer, 9, MPI_COMM_WORLD);
      }
    }
    least = std::min(least, (MPI_Wtime() - t0) / reps / 2 * 1e6);
  }
  if (peer < 0) least = 0;
  MPI_Allreduce(&least, &f.handoff_us, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  f.cache_bytes_per_us = copy_rate(Floor::kInCache);
  f.memory_bytes_per_us = copy_rate(Floor::kFromMemory);
  f.cross_bytes_per_us = cross_core_rate(Floor::kInCache / 2);
  return f;
}

// The bytes the busiest rank sends plus receives in one op, or (`received_only`) receives (remote
// peers only; `pl`: this rank's).
double busiest_rank_bytes(const core::RankLists& pl, const core::OpSpec& op, bool received_only = false) {
  const Index received = op.op == core::OpKind::bcast ? pl.leaf_side.offsets.back() : pl.root_side.offsets.back();
  double mine = static_cast<double>(received_only ? received : pl.root_side.offsets.back() + pl.leaf_side.offsets.back()) *
                static_cast<double>(core::unit_size(op.unit) * static_cast<std::size_t>(op.bs));
  double most = 0;
  MPI_Allreduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return most;
}

// The traces of `files`, all read before any is timed (nullopt, said by rank 0, where one needs
// another rank count); a run of one trace names it in its provenance.
std::optional<std::vector<trace::BuiltTrace>> bench_traces(const std::vector<std::string>& files) {
  std::vector<trace::BuiltTrace> out;
  out.reserve(files.size());
  for (const auto& file : files) {
    out.push_back(trace::read_trace_file(file));
    const auto& t = out.back().trace();
    if (files.size() == 1) bench_trace = t.name, bench_trace_file = file;
    if (t.nranks != np) {
      if (me == 0) std::fprintf(stderr, "%s needs %d ranks\n", file.c_str(), t.nranks);
      return std::nullopt;
    }
  }
  return out;
}

// One bcast or reduce of `op` on `sf` from / into the given arrays.
std::function<void()> op_call(exec::mpi::StarForest& sf, const core::OpSpec& op, std::vector<std::byte>& root, std::vector<std::byte>& leaf) {
  return [&sf, &op, &root, &leaf] {
    if (op.op == core::OpKind::bcast)
      sf.end(sf.bcast_begin(op.unit, op.bs, op.mpi_op, exec::host_data(root.data()), exec::host_data(leaf.data())));
    else
      sf.end(sf.reduce_begin(op.unit, op.bs, op.mpi_op, exec::host_data(leaf.data()), exec::host_data(root.data())));
  };
}

// Median of 7 interleaved trials of each of `run` (us per call, the slowest rank's), after a warm-up.
std::vector<double> interleaved_medians(const std::vector<std::function<void()>>& run, int iters) {
  std::vector<std::vector<double>> samples(run.size());
  for (auto& f : run)
    for (int w = 0; w < 20; ++w) f();
  for (int trial = 0; trial < 7; ++trial)
    for (std::size_t k = 0; k < run.size(); ++k) samples[k].push_back(mean_us(iters, run[k]));
  std::vector<double> med;
  for (auto& v : samples) {
    std::sort(v.begin(), v.end());
    med.push_back(v[v.size() / 2]);
  }
  return med;
}

// Issue 51, item 2: the self part before the sends start or while they fly (PetscSF's order, the
// executor's for the backends whose row says self_while_sending), side by side in one process,
// on every bcast and reduce of the traces (host data).
int self_order_bench(const std::vector<std::string>& files) {
  const auto traces = bench_traces(files);
  if (!traces) return 2;
  std::vector<std::string> backends;
  for (const auto& b : core::kBackends)
    if (b.self_while_sending) backends.push_back(b.name);
  if (me == 0)
    std::printf("# self part before the sends or while they fly (median of 7 interleaved trials, us per op, max over ranks)\n"
                "%-36s %-7s %-9s %10s %10s %10s %10s %7s\n",
                "trace/sf", "op", "backend", "self B", "remote B", "before", "while", "ratio");
  json_out = {{"benchmark", "sf-self-order"}, {"ranks", np}, {"results", io::Json::array()}};
  for (const trace::BuiltTrace& t : *traces) {
    for (const auto& op : t.trace().ops) {
      if (op.op != core::OpKind::bcast && op.op != core::OpKind::reduce) continue;
      const core::Graph& g = t.graph(op.sf);
      auto root = exec::conformance_input(exec::Side::root, op.unit, op.bs, op.mpi_op, me, g[me].nroots, 0);
      auto leaf = exec::conformance_input(exec::Side::leaf, op.unit, op.bs, op.mpi_op, me, g[me].leafspace(), 0);
      const auto vb = static_cast<long long>(core::unit_size(op.unit)) * op.bs;
      const core::RankLists lists = core::build_rank_lists(g, me);
      long long mine[2] = {static_cast<long long>(lists.self_roots.size()) * vb, static_cast<long long>(lists.leaf_side.indices.size()) * vb}, all[2];
      MPI_Allreduce(mine, all, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
      for (const auto& b : backends) {
        const core::BackendId id = core::find_backend(b)->id;
        exec::mpi::StarForest first(MPI_COMM_WORLD, g, id), flying(MPI_COMM_WORLD, g, id);
        first.set_self_while_sending(false);
        const auto med = interleaved_medians({op_call(first, op, root.bytes, leaf.bytes), op_call(flying, op, root.bytes, leaf.bytes)}, 200);
        const std::string label = t.trace().name + "/" + op.sf;
        if (me == 0)
          std::printf("%-36s %-7s %-9s %10lld %10lld %10.2f %10.2f %7.3f\n", label.c_str(), core::op_kind_name(op.op), b.c_str(), all[0], all[1],
                      med[0], med[1], med[1] / med[0]);
        json_out["results"].push_back({{"trace", t.trace().name},
                                       {"sf", op.sf},
                                       {"op", core::op_kind_name(op.op)},
                                       {"backend", b},
                                       {"self_bytes", all[0]},
                                       {"remote_bytes", all[1]},
                                       {"before_us", med[0]},
                                       {"while_us", med[1]},
                                       {"ratio", med[1] / med[0]}});
      }
    }
  }
  return 0;
}

// The other rank's arrays through the kernel (Linux cross-memory attach, as Open MPI's CMA).
struct CrossMemory {
  pid_t pid = 0;
  char* src = nullptr;  // the other rank's source and destination arrays (its addresses)
  char* dst = nullptr;
  bool failed = false;  // a call moved less than asked (not permitted here)
  void pull(char* to, const char* from, std::size_t n) { move(to, from, n, true); }
  void push(char* to, const char* from, std::size_t n) { move(to, from, n, false); }

private:
  void move(char* to, const char* from, std::size_t n, bool pull) {
    iovec local{pull ? to : const_cast<char*>(from), n}, remote{pull ? const_cast<char*>(from) : to, n};
    const ssize_t moved = pull ? process_vm_readv(pid, &local, 1, &remote, 1, 0) : process_vm_writev(pid, &local, 1, &remote, 1, 0);
    failed |= moved != static_cast<ssize_t>(n);
  }
};

// Both ways into cleared arrays, half pulled and half pushed: true when every byte arrived on
// both ranks (collective).
bool split_copy_works(CrossMemory& peer, const std::vector<char>& src, std::vector<char>& dst, char expected) {
  const std::size_t n = dst.size(), half = n / 2;
  std::fill(dst.begin(), dst.end(), char{0});
  MPI_Barrier(MPI_COMM_WORLD);
  peer.pull(dst.data(), peer.src, half);
  peer.push(peer.dst + half, src.data() + half, n - half);
  MPI_Barrier(MPI_COMM_WORLD);
  int ok = !peer.failed && std::count(dst.begin(), dst.end(), expected) == static_cast<std::ptrdiff_t>(n), all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all != 0;
}

// Issue 51's bound: can two ranks of one node move a large contiguous run faster than the
// kernel's one copy (CMA, what Open MPI and PetscSF use)? Only by copying on both cores at once:
// the receiver pulls half while the sender pushes half. One way that uses an idle core; both ways
// at once both cores already copy. Every call starts at a barrier, timed alone in the same
// interleaving and taken out; the split keeps its closing barrier (a transport would signal the
// pushed half with one flag, which costs less: the split is charged a little more than it needs).
int split_copy_bench() {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int nlocal = 0;
  MPI_Comm_size(node, &nlocal);
  MPI_Comm_free(&node);
  if (np != 2 || nlocal != 2) {
    if (me == 0) std::fprintf(stderr, "split-copy needs exactly 2 ranks on one node\n");
    return 2;
  }
  prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY);  // Yama: let the other rank read and write my memory
  const int other = 1 - me;
  std::vector<char> src(std::size_t{1} << 20, static_cast<char>(me + 1)), dst(src.size());
  const std::uintptr_t mine[3] = {static_cast<std::uintptr_t>(getpid()), reinterpret_cast<std::uintptr_t>(src.data()),
                                  reinterpret_cast<std::uintptr_t>(dst.data())};
  std::uintptr_t theirs[3] = {};
  MPI_Sendrecv(mine, sizeof mine, MPI_BYTE, other, 7, theirs, sizeof theirs, MPI_BYTE, other, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CrossMemory peer{static_cast<pid_t>(theirs[0]), reinterpret_cast<char*>(theirs[1]), reinterpret_cast<char*>(theirs[2])};
  if (!split_copy_works(peer, src, dst, static_cast<char>(other + 1))) {
    if (me == 0) std::fprintf(stderr, "split-copy: cross-memory attach (process_vm_readv/writev) is not permitted here\n");
    return 1;
  }
  if (me == 0)
    std::printf("# N contiguous bytes between 2 ranks of one node (median of 7 interleaved trials, us per call, barrier taken out)\n"
                "%-9s %-6s %12s %12s %12s %12s %12s\n",
                "bytes", "way", "MPI", "pull all", "pull+push", "split/pull", "split/MPI");
  json_out = {{"benchmark", "split-copy"}, {"ranks", 2}, {"results", io::Json::array()}};
  for (std::size_t n = std::size_t{32} << 10; n <= src.size(); n *= 2) {
    const std::size_t half = n / 2;
    for (const bool both : {false, true}) {
      const bool receives = both || me == 0, sends = both || me == 1;  // one way: rank 1's run into rank 0's array
      const int count = static_cast<int>(n);
      const auto med = interleaved_medians(
          {[&] { MPI_Barrier(MPI_COMM_WORLD); },
           [&] {
             MPI_Barrier(MPI_COMM_WORLD);
             if (both)
               MPI_Sendrecv(src.data(), count, MPI_BYTE, other, 8, dst.data(), count, MPI_BYTE, other, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
             else if (sends)
               MPI_Send(src.data(), count, MPI_BYTE, other, 8, MPI_COMM_WORLD);
             else
               MPI_Recv(dst.data(), count, MPI_BYTE, other, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
           },
           [&] {
             MPI_Barrier(MPI_COMM_WORLD);
             if (receives) peer.pull(dst.data(), peer.src, n);
           },
           [&] {
             MPI_Barrier(MPI_COMM_WORLD);
             if (receives) peer.pull(dst.data(), peer.src, half);
             if (sends) peer.push(peer.dst + half, src.data() + half, n - half);
             MPI_Barrier(MPI_COMM_WORLD);  // the receiver's array is whole only when both halves are in
           }},
          200);
      const double mpi = med[1] - med[0], pull = med[2] - med[0], split = med[3] - med[0];
      const char* way = both ? "both" : "one";
      if (me == 0) std::printf("%-9zu %-6s %12.2f %12.2f %12.2f %12.3f %12.3f\n", n, way, mpi, pull, split, split / pull, split / mpi);
      json_out["results"].push_back(
          {{"bytes", n}, {"way", way}, {"mpi_us", mpi}, {"pull_us", pull}, {"split_us", split}, {"barrier_us", med[0]}, {"split_over_mpi", split / mpi}});
    }
  }
  return 0;
}

int sf_bench(const std::vector<std::string>& files) {
  const auto traces = bench_traces(files);
  if (!traces) return 2;
  const std::vector<std::string> backends = {"basic", "neighbor", "window", "alltoallv", "shm"};
  if (me == 0) {
    std::printf("# SF ops per backend (median of 7 interleaved trials, us per op, max over ranks)%s\n",
#ifdef SFR_WITH_PETSC
                "; PetscSF basic in the same run"
#else
                "; built without PETSc"
#endif
    );
  }
  const Floor floor = measure_floor();
  if (me == 0) {
    std::printf("# floor: %.2f us handoff (half an 8-byte ping-pong) + the busiest rank's bytes sent plus received at %.1f GB/s (memcpy "
                "of up to %zu KiB, every rank at once) or %.1f GB/s beyond (from memory)\n",
                floor.handoff_us, floor.cache_bytes_per_us * 1e-3, Floor::kInCache >> 10, floor.memory_bytes_per_us * 1e-3);
    std::printf("# transfer floor: the handoff + the busiest rank's received bytes at %.1f GB/s (reading a node mate's freshly written "
                "%zu KiB, every rank at once; 0: no node mate)\n",
                floor.cross_bytes_per_us * 1e-3, Floor::kInCache >> 11);
    std::printf("%-28s %-8s %-10s %10s %10s %10s %9s %8s\n", "trace/sf", "op", "backend", "bytes", "us/op", "vs PETSc", "floor us", "x floor");
  }
  json_out = {{"benchmark", "sf-backends"},
              {"ranks", np},
              {"floor", {{"handoff_us", floor.handoff_us},
                         {"cache_bytes_per_us", floor.cache_bytes_per_us},
                         {"memory_bytes_per_us", floor.memory_bytes_per_us},
                         {"cross_core_bytes_per_us", floor.cross_bytes_per_us},
                         {"in_cache_up_to_bytes", Floor::kInCache}}},
              {"results", io::Json::array()},
              {"best", io::Json::array()}};
  // "best", per (trace, op): the fastest of our backends over PetscSF
  std::vector<std::string> best_lines;
  double worst = 0;
  for (const trace::BuiltTrace& t : *traces) {
    for (const auto& op : t.trace().ops) {
      // The ghost-exchange kinds PetscSF runs natively: bcast / reduce of float64, int32 or
      // complex128 with replace or sum (other units go through MPI_Reduce_local in PETSc and may be
      // refused). PETSc gets complex128 as pairs of doubles: replace and sum act component-wise, so
      // it moves the same bytes and computes the same values.
      if (op.op != core::OpKind::bcast && op.op != core::OpKind::reduce) continue;
      if (op.unit != core::Unit::float64 && op.unit != core::Unit::int32 && op.unit != core::Unit::complex128) continue;
      if (op.mpi_op != core::MpiOp::replace && op.mpi_op != core::MpiOp::sum) continue;
      const core::Graph& g = t.graph(op.sf);
      Index off = 0, loff = 0;
      for (int r = 0; r < me; ++r) {
        off += g[r].nroots;
        loff += g[r].leafspace();
      }
      auto root = exec::conformance_input(exec::Side::root, op.unit, op.bs, op.mpi_op, me, g[me].nroots, off);
      auto leaf = exec::conformance_input(exec::Side::leaf, op.unit, op.bs, op.mpi_op, me, g[me].leafspace(), loff);
      long long local_bytes = 0, bytes = 0;
      const core::RankLists plan = core::build_rank_lists(g, me);
      for (Index x : plan.leaf_side.offsets) local_bytes = x;
      local_bytes *= static_cast<long long>(core::unit_size(op.unit)) * op.bs;
      MPI_Allreduce(&local_bytes, &bytes, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
      const double floor_us = floor.us(busiest_rank_bytes(plan, op));
      const double transfer_us = floor.transfer_us(busiest_rank_bytes(plan, op, true));
      std::vector<std::unique_ptr<exec::mpi::StarForest>> sfs;
      for (const auto& b : backends) sfs.push_back(std::make_unique<exec::mpi::StarForest>(MPI_COMM_WORLD, g, core::find_backend(b)->id));
      std::vector<std::function<void()>> run;
      for (auto& s : sfs) run.push_back(op_call(*s, op, root.bytes, leaf.bytes));
#ifdef SFR_WITH_PETSC
      PetscSF psf = petsc_sf(g);
      const MPI_Datatype base = op.unit == core::Unit::int32 ? MPI_INT : MPI_DOUBLE;
      const int count = op.unit == core::Unit::complex128 ? 2 * static_cast<int>(op.bs) : static_cast<int>(op.bs);
      const MPI_Datatype dt = block_type(base, count);
      const MPI_Op mop = op.mpi_op == core::MpiOp::sum ? MPI_SUM : MPI_REPLACE;
      run.push_back([&] {
        if (op.op == core::OpKind::bcast) {
          PetscSFBcastBegin(psf, dt, root.bytes.data(), leaf.bytes.data(), mop);
          PetscSFBcastEnd(psf, dt, root.bytes.data(), leaf.bytes.data(), mop);
        } else {
          PetscSFReduceBegin(psf, dt, leaf.bytes.data(), root.bytes.data(), mop);
          PetscSFReduceEnd(psf, dt, leaf.bytes.data(), root.bytes.data(), mop);
        }
      });
#endif
      const std::vector<double> med = interleaved_medians(run, 200);
      const bool have_petsc = run.size() > backends.size();
      if (have_petsc) {
        const std::size_t b = static_cast<std::size_t>(
            std::min_element(med.begin(), med.begin() + static_cast<std::ptrdiff_t>(backends.size())) - med.begin());
        const double r = med[b] / med.back();
        worst = std::max(worst, r);
        char line[300];
        std::snprintf(line, sizeof line, "%-40s %-8s %-10s %10.2f %10.2f %8.2f %9.2f %8.2f %9.2f %8.2f", (t.trace().name + "/" + op.sf).c_str(),
                      core::op_kind_name(op.op), backends[b].c_str(), med[b], med.back(), r, floor_us, med[b] / floor_us, transfer_us,
                      transfer_us > 0 ? med[b] / transfer_us : 0);
        best_lines.push_back(line);
        json_out["best"].push_back({{"trace", t.trace().name},
                                    {"op", core::op_kind_name(op.op)},
                                    {"backend", backends[b]},
                                    {"us", med[b]},
                                    {"petsc_us", med.back()},
                                    {"ratio", r},
                                    {"floor_us", floor_us},
                                    {"transfer_floor_us", transfer_us}});
      }
      for (std::size_t k = 0; k < run.size(); ++k) {
        const std::string name = k < backends.size() ? backends[k] : "petsc";
        const double ratio = have_petsc ? med[k] / med.back() : 0;
        const std::string label = t.trace().name + "/" + op.sf;
        if (me == 0) {
          if (have_petsc)
            std::printf("%-28s %-8s %-10s %10lld %10.2f %10.2f %9.2f %8.2f\n", label.c_str(), core::op_kind_name(op.op), name.c_str(), bytes,
                        med[k], ratio, floor_us, med[k] / floor_us);
          else
            std::printf("%-28s %-8s %-10s %10lld %10.2f %10s %9.2f %8.2f\n", label.c_str(), core::op_kind_name(op.op), name.c_str(), bytes,
                        med[k], "-", floor_us, med[k] / floor_us);
        }
        json_out["results"].push_back({{"trace", t.trace().name},
                                       {"sf", op.sf},
                                       {"op", core::op_kind_name(op.op)},
                                       {"backend", name},
                                       {"bytes", bytes},
                                       {"us", med[k]},
                                       {"ratio_to_petsc", ratio},
                                       {"floor_us", floor_us}});
      }
#ifdef SFR_WITH_PETSC
      free_block_type(dt, count);
      PetscSFDestroy(&psf);
#endif
    }
  }
  json_out["worst_best_over_petsc"] = worst;
  if (me == 0 && !best_lines.empty()) {
    std::printf("# best backend per op against PetscSF (same run)\n%-40s %-8s %-10s %10s %10s %8s %9s %8s %9s %8s\n", "trace/sf", "op",
                "best", "us/op", "PetscSF", "ratio", "floor us", "x floor", "xfer us", "x xfer");
    for (const auto& l : best_lines) std::printf("%s\n", l.c_str());
    std::printf("worst best/PetscSF ratio: %.2f\n", worst);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
#ifdef SFR_WITH_PETSC
  PetscInitialize(&argc, &argv, nullptr, nullptr);
#else
  MPI_Init(&argc, &argv);
#endif
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  std::string mode = argc > 1 ? argv[1] : "", json, store;
  std::vector<std::string> files;
  bool unknown = false;  // an unknown option, or one without its value: a usage error, never ignored
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--json") == 0 && i + 1 < argc)
      json = argv[++i];
    else if (std::strcmp(argv[i], "--store") == 0 && i + 1 < argc)
      store = argv[++i];
    else if (argv[i][0] != '-')
      files.push_back(argv[i]);
    else
      unknown = true;
  }
  int rc = 2;
  if (!unknown && mode == "overhead" && files.empty())
    rc = overhead();
  else if (!unknown && mode == "sf" && !files.empty())
    rc = sf_bench(files);
  else if (!unknown && mode == "self-order" && !files.empty())
    rc = self_order_bench(files);
  else if (!unknown && mode == "split-copy" && files.empty())
    rc = split_copy_bench();
  else if (me == 0)
    std::fprintf(stderr, "usage: sfr_bench_mpi overhead | sf TRACE... | self-order TRACE... | split-copy [--json FILE] [--store DIR]\n");
  if (rc == 0 && me == 0)
    std::printf("%s", trace::bench_document(json_out, {"bench_mpi " + mode, np, bench_trace, bench_trace_file, exec::mpi::mpi_library()},
                                            json, store)
                          .c_str());
#ifdef SFR_WITH_PETSC
  PetscFinalize();
#else
  MPI_Finalize();
#endif
  return rc;
}
