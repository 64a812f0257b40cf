// libsfr_pmpi_counts.so: what an MPI program really sends, counted from outside it (PMPI
// wrappers, preloaded: LD_PRELOAD=libsfr_pmpi_counts.so, SFR_PMPI_COUNTS=DIR). The test suite's
// independent check of the plan (tests/exec_mpi/test_mpi_counts.cpp): per op window, which
// sf-replay's runner marks with MPI_Pcontrol(kOpMarker, 1|0, op index) (exec/mpi/runner.cpp),
// every message this rank originates or pulls, as (source, destination, bytes) in world ranks:
//   point to point   MPI_Send, MPI_Isend, MPI_Send_init + MPI_Start(all);
//   collectives      the data of neighbourhood alltoallv (blocking, nonblocking, persistent) and
//                    alltoallv to each destination with a nonzero count (empty ones carry nothing);
//   one-sided        MPI_Put and MPI_Accumulate (origin -> target), MPI_Get (target -> origin),
//                    MPI_Get_accumulate (both ways), each call one message;
// and the calls of other collectives and of one-sided synchronisation, by name. At MPI_Finalize
// each rank writes DIR/rank-R.json: {"rank": R, "windows": [{"op": i, "messages": [[src, dst,
// bytes], ...], "calls": {"MPI_Barrier": n, ...}}, ...]} in the order of the windows.
#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

constexpr int kOpMarker = 7319;  // exec/mpi/runner.cpp's marker level

struct Message {
  int src, dst;
  long long bytes;
};
struct Window {
  int op = -1;
  std::vector<Message> messages;
  std::map<std::string, long long> calls;
};

struct Counter {
  bool open = false;
  std::vector<Window> windows;
  std::unordered_map<MPI_Comm, std::vector<int>> world_of;  // per communicator: its ranks' world ranks
  struct Persistent {
    MPI_Comm comm;
    std::vector<std::pair<int, long long>> sends;  // (comm destination, bytes)
  };
  std::unordered_map<MPI_Request, Persistent> persistent;
};

Counter& c() {
  static Counter counter;
  return counter;
}

// The world ranks of group g's members (g is freed), kept under `key` for the next call.
const std::vector<int>& remember_world_ranks(MPI_Comm key, MPI_Group g) {
  MPI_Group world;
  PMPI_Comm_group(MPI_COMM_WORLD, &world);
  int n = 0;
  PMPI_Group_size(g, &n);
  std::vector<int> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = i;
  PMPI_Group_translate_ranks(g, n, in.data(), world, out.data());
  PMPI_Group_free(&g);
  PMPI_Group_free(&world);
  return c().world_of.emplace(key, std::move(out)).first->second;
}

const std::vector<int>& world_ranks(MPI_Comm comm) {
  auto it = c().world_of.find(comm);
  if (it != c().world_of.end()) return it->second;
  MPI_Group g;
  PMPI_Comm_group(comm, &g);
  return remember_world_ranks(comm, g);
}

int me_in_world() {
  int r = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

long long type_bytes(MPI_Datatype t, long long count) {
  int size = 0;
  PMPI_Type_size(t, &size);
  return count * size;
}

// A message from `src` to `dst` (ranks of comm) in the open window.
void message(MPI_Comm comm, int src, int dst, long long bytes) {
  if (!c().open || dst == MPI_PROC_NULL || src == MPI_PROC_NULL) return;
  const auto& w = world_ranks(comm);
  c().windows.back().messages.push_back({w[static_cast<std::size_t>(src)], w[static_cast<std::size_t>(dst)], bytes});
}
int my_rank(MPI_Comm comm) {
  int r = 0;
  PMPI_Comm_rank(comm, &r);
  return r;
}
void call(const char* name) {
  if (c().open) ++c().windows.back().calls[name];
}

// The destinations of a distributed-graph communicator, in the order of its send counts.
std::vector<int> destinations(MPI_Comm comm) {
  int in = 0, out = 0, weighted = 0;
  PMPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
  std::vector<int> srcs(static_cast<std::size_t>(in) + 1), sw(srcs.size()), dsts(static_cast<std::size_t>(out) + 1), dw(dsts.size());
  PMPI_Dist_graph_neighbors(comm, in, srcs.data(), sw.data(), out, dsts.data(), dw.data());
  dsts.resize(static_cast<std::size_t>(out));
  return dsts;
}
void neighbor_sends(MPI_Comm comm, const int counts[], MPI_Datatype t) {
  const auto d = destinations(comm);
  const int me = my_rank(comm);
  for (std::size_t i = 0; i < d.size(); ++i)
    if (counts[i] > 0) message(comm, me, d[i], type_bytes(t, counts[i]));
}
void alltoallv_sends(MPI_Comm comm, const int counts[], MPI_Datatype t) {
  int n = 0;
  PMPI_Comm_size(comm, &n);
  const int me = my_rank(comm);
  for (int i = 0; i < n; ++i)
    if (counts[i] > 0) message(comm, me, i, type_bytes(t, counts[i]));
}
void started(const MPI_Request& r) {
  const auto it = c().persistent.find(r);
  if (it == c().persistent.end()) return;
  const int me = my_rank(it->second.comm);
  for (const auto& [dst, bytes] : it->second.sends) message(it->second.comm, me, dst, bytes);
}

void write_counts() {
  const char* dir = std::getenv("SFR_PMPI_COUNTS");
  if (!dir) return;
  const int me = me_in_world();
  std::ofstream out(std::string(dir) + "/rank-" + std::to_string(me) + ".json");
  out << "{\"rank\": " << me << ", \"windows\": [";
  for (std::size_t k = 0; k < c().windows.size(); ++k) {
    const auto& w = c().windows[k];
    out << (k ? ",\n" : "\n") << "{\"op\": " << w.op << ", \"messages\": [";
    for (std::size_t i = 0; i < w.messages.size(); ++i)
      out << (i ? ", " : "") << "[" << w.messages[i].src << ", " << w.messages[i].dst << ", " << w.messages[i].bytes << "]";
    out << "], \"calls\": {";
    bool first = true;
    for (const auto& [name, n] : w.calls) out << (first ? "" : ", ") << "\"" << name << "\": " << n, first = false;
    out << "}}";
  }
  out << "]}\n";
}

}  // namespace

extern "C" {

int MPI_Pcontrol(const int level, ...) {
  if (level != kOpMarker) return MPI_SUCCESS;
  va_list ap;
  va_start(ap, level);
  const int phase = va_arg(ap, int), op = va_arg(ap, int);
  va_end(ap);
  if (phase == 1) {
    c().windows.push_back({});
    c().windows.back().op = op;
  }
  c().open = phase == 1;
  return MPI_SUCCESS;
}

int MPI_Finalize() {
  write_counts();
  return PMPI_Finalize();
}

int MPI_Comm_free(MPI_Comm* comm) {
  c().world_of.erase(*comm);
  return PMPI_Comm_free(comm);
}

int MPI_Send(const void* b, int n, MPI_Datatype t, int dst, int tag, MPI_Comm comm) {
  message(comm, my_rank(comm), dst, type_bytes(t, n));
  return PMPI_Send(b, n, t, dst, tag, comm);
}
int MPI_Isend(const void* b, int n, MPI_Datatype t, int dst, int tag, MPI_Comm comm, MPI_Request* r) {
  message(comm, my_rank(comm), dst, type_bytes(t, n));
  return PMPI_Isend(b, n, t, dst, tag, comm, r);
}
int MPI_Send_init(const void* b, int n, MPI_Datatype t, int dst, int tag, MPI_Comm comm, MPI_Request* r) {
  const int rc = PMPI_Send_init(b, n, t, dst, tag, comm, r);
  c().persistent[*r] = {comm, {{dst, type_bytes(t, n)}}};
  return rc;
}
#ifdef OMPI_HAVE_MPI_EXT_PCOLLREQ
int MPIX_Neighbor_alltoallv_init(const void* sb, const int sc[], const int sd[], MPI_Datatype st, void* rb, const int rcounts[],
                                 const int rd[], MPI_Datatype rt, MPI_Comm comm, MPI_Info info, MPI_Request* r) {
  const int rc = PMPIX_Neighbor_alltoallv_init(sb, sc, sd, st, rb, rcounts, rd, rt, comm, info, r);
  Counter::Persistent p{comm, {}};
  const auto d = destinations(comm);
  for (std::size_t i = 0; i < d.size(); ++i)
    if (sc[i] > 0) p.sends.emplace_back(d[i], type_bytes(st, sc[i]));
  c().persistent[*r] = std::move(p);
  return rc;
}
#endif
int MPI_Start(MPI_Request* r) {
  started(*r);
  return PMPI_Start(r);
}
int MPI_Startall(int n, MPI_Request rs[]) {
  for (int i = 0; i < n; ++i) started(rs[i]);
  return PMPI_Startall(n, rs);
}
int MPI_Request_free(MPI_Request* r) {
  c().persistent.erase(*r);
  return PMPI_Request_free(r);
}
int MPI_Neighbor_alltoallv(const void* sb, const int sc[], const int sd[], MPI_Datatype st, void* rb, const int rcounts[], const int rd[],
                           MPI_Datatype rt, MPI_Comm comm) {
  neighbor_sends(comm, sc, st);
  return PMPI_Neighbor_alltoallv(sb, sc, sd, st, rb, rcounts, rd, rt, comm);
}
int MPI_Ineighbor_alltoallv(const void* sb, const int sc[], const int sd[], MPI_Datatype st, void* rb, const int rcounts[],
                            const int rd[], MPI_Datatype rt, MPI_Comm comm, MPI_Request* r) {
  neighbor_sends(comm, sc, st);
  return PMPI_Ineighbor_alltoallv(sb, sc, sd, st, rb, rcounts, rd, rt, comm, r);
}
int MPI_Alltoallv(const void* sb, const int sc[], const int sd[], MPI_Datatype st, void* rb, const int rcounts[], const int rd[],
                  MPI_Datatype rt, MPI_Comm comm) {
  alltoallv_sends(comm, sc, st);
  return PMPI_Alltoallv(sb, sc, sd, st, rb, rcounts, rd, rt, comm);
}
int MPI_Ialltoallv(const void* sb, const int sc[], const int sd[], MPI_Datatype st, void* rb, const int rcounts[], const int rd[],
                   MPI_Datatype rt, MPI_Comm comm, MPI_Request* r) {
  alltoallv_sends(comm, sc, st);
  return PMPI_Ialltoallv(sb, sc, sd, st, rb, rcounts, rd, rt, comm, r);
}

// One-sided: a window's ranks are its communicator's; the group of the window gives them.
namespace {
MPI_Comm win_comm_key(MPI_Win w) { return reinterpret_cast<MPI_Comm>(w); }  // (a distinct key per window)
void rma(MPI_Win win, int src_is_target, int target, long long bytes) {
  if (!c().open) return;
  auto it = c().world_of.find(win_comm_key(win));
  const std::vector<int>* ranks = it != c().world_of.end() ? &it->second : nullptr;
  if (!ranks) {
    MPI_Group g;
    PMPI_Win_get_group(win, &g);
    ranks = &remember_world_ranks(win_comm_key(win), g);
  }
  const int me = me_in_world(), other = (*ranks)[static_cast<std::size_t>(target)];
  c().windows.back().messages.push_back(src_is_target ? Message{other, me, bytes} : Message{me, other, bytes});
}
}  // namespace

int MPI_Win_free(MPI_Win* w) {
  c().world_of.erase(win_comm_key(*w));
  call("MPI_Win_free");
  return PMPI_Win_free(w);
}
int MPI_Get(void* ob, int oc, MPI_Datatype ot, int target, MPI_Aint td, int tc, MPI_Datatype tt, MPI_Win w) {
  rma(w, 1, target, type_bytes(ot, oc));
  return PMPI_Get(ob, oc, ot, target, td, tc, tt, w);
}
int MPI_Put(const void* ob, int oc, MPI_Datatype ot, int target, MPI_Aint td, int tc, MPI_Datatype tt, MPI_Win w) {
  rma(w, 0, target, type_bytes(ot, oc));
  return PMPI_Put(ob, oc, ot, target, td, tc, tt, w);
}
int MPI_Accumulate(const void* ob, int oc, MPI_Datatype ot, int target, MPI_Aint td, int tc, MPI_Datatype tt, MPI_Op op, MPI_Win w) {
  rma(w, 0, target, type_bytes(ot, oc));
  return PMPI_Accumulate(ob, oc, ot, target, td, tc, tt, op, w);
}
int MPI_Get_accumulate(const void* ob, int oc, MPI_Datatype ot, void* rb, int rc, MPI_Datatype rt, int target, MPI_Aint td, int tc,
                       MPI_Datatype tt, MPI_Op op, MPI_Win w) {
  if (op != MPI_NO_OP) rma(w, 0, target, type_bytes(ot, oc));
  rma(w, 1, target, type_bytes(rt, rc));
  return PMPI_Get_accumulate(ob, oc, ot, rb, rc, rt, target, td, tc, tt, op, w);
}

// Calls counted by name.
int MPI_Barrier(MPI_Comm comm) {
  call("MPI_Barrier");
  return PMPI_Barrier(comm);
}
int MPI_Allreduce(const void* s, void* r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  call("MPI_Allreduce");
  return PMPI_Allreduce(s, r, n, t, op, comm);
}
int MPI_Win_fence(int assert_, MPI_Win w) {
  call("MPI_Win_fence");
  return PMPI_Win_fence(assert_, w);
}
int MPI_Win_lock(int type, int rank, int assert_, MPI_Win w) {
  call("MPI_Win_lock");
  return PMPI_Win_lock(type, rank, assert_, w);
}
int MPI_Win_unlock(int rank, MPI_Win w) {
  call("MPI_Win_unlock");
  return PMPI_Win_unlock(rank, w);
}

}  // extern "C"
