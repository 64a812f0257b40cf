// PMPI wrappers that count live MPI objects (pmpi_objects.hpp). Each wrapper calls the PMPI entry
// point and records what it created or freed; requests are tracked by handle, because a
// nonblocking request ends when a wait or test completes it (its handle becomes MPI_REQUEST_NULL)
// while a persistent one lives until MPI_Request_free.
#include "support/pmpi_objects.hpp"

#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include <mutex>
#include <set>
#include <unordered_map>
#include <vector>

namespace {

struct Counts {
  std::mutex m;
  sfr_test::MpiObjects o;
  std::set<MPI_Win> shared;
  std::unordered_map<MPI_Request, bool> requests;  // handle -> persistent
};

Counts& counts() {
  static Counts c;
  return c;
}

int made_comm(int rc) {
  if (rc == MPI_SUCCESS) {
    std::lock_guard l(counts().m);
    ++counts().o.comms;
  }
  return rc;
}
int made_type(int rc) {
  if (rc == MPI_SUCCESS) {
    std::lock_guard l(counts().m);
    ++counts().o.types;
  }
  return rc;
}
int made_request(int rc, const MPI_Request* r, bool persistent) {
  if (rc == MPI_SUCCESS && *r != MPI_REQUEST_NULL) {
    std::lock_guard l(counts().m);
    counts().requests[*r] = persistent;
  }
  return rc;
}
// After a wait or test: the nonblocking requests whose handles became null are done.
void completed(const std::vector<MPI_Request>& before, const MPI_Request* after, int n) {
  std::lock_guard l(counts().m);
  for (int k = 0; k < n; ++k)
    if (before[static_cast<std::size_t>(k)] != MPI_REQUEST_NULL && after[k] == MPI_REQUEST_NULL)
      counts().requests.erase(before[static_cast<std::size_t>(k)]);
}

}  // namespace

namespace sfr_test {

MpiObjects live_mpi_objects() {
  std::lock_guard l(counts().m);
  MpiObjects o = counts().o;
  o.shared_windows = static_cast<long>(counts().shared.size());
  for (const auto& [r, persistent] : counts().requests) ++(persistent ? o.persistent_requests : o.pending_requests);
  return o;
}

std::string describe(const MpiObjects& o) {
  return "comms " + std::to_string(o.comms) + ", types " + std::to_string(o.types) + ", windows " + std::to_string(o.windows) +
         " (shared " + std::to_string(o.shared_windows) + "), persistent requests " + std::to_string(o.persistent_requests) +
         ", pending requests " + std::to_string(o.pending_requests);
}

}  // namespace sfr_test

extern "C" {

int MPI_Comm_dup(MPI_Comm c, MPI_Comm* n) { return made_comm(PMPI_Comm_dup(c, n)); }
int MPI_Comm_split(MPI_Comm c, int color, int key, MPI_Comm* n) { return made_comm(PMPI_Comm_split(c, color, key, n)); }
int MPI_Comm_split_type(MPI_Comm c, int type, int key, MPI_Info i, MPI_Comm* n) {
  const int rc = PMPI_Comm_split_type(c, type, key, i, n);
  return *n == MPI_COMM_NULL ? rc : made_comm(rc);
}
int MPI_Comm_create(MPI_Comm c, MPI_Group g, MPI_Comm* n) {
  const int rc = PMPI_Comm_create(c, g, n);
  return *n == MPI_COMM_NULL ? rc : made_comm(rc);
}
int MPI_Dist_graph_create_adjacent(MPI_Comm c, int indeg, const int srcs[], const int sw[], int outdeg, const int dsts[], const int dw[],
                                   MPI_Info i, int reorder, MPI_Comm* n) {
  return made_comm(PMPI_Dist_graph_create_adjacent(c, indeg, srcs, sw, outdeg, dsts, dw, i, reorder, n));
}
int MPI_Comm_free(MPI_Comm* c) {
  const int rc = PMPI_Comm_free(c);
  if (rc == MPI_SUCCESS) {
    std::lock_guard l(counts().m);
    --counts().o.comms;
  }
  return rc;
}

int MPI_Type_contiguous(int n, MPI_Datatype old, MPI_Datatype* t) { return made_type(PMPI_Type_contiguous(n, old, t)); }
int MPI_Type_vector(int n, int bl, int stride, MPI_Datatype old, MPI_Datatype* t) {
  return made_type(PMPI_Type_vector(n, bl, stride, old, t));
}
int MPI_Type_indexed(int n, const int bl[], const int d[], MPI_Datatype old, MPI_Datatype* t) {
  return made_type(PMPI_Type_indexed(n, bl, d, old, t));
}
int MPI_Type_create_indexed_block(int n, int bl, const int d[], MPI_Datatype old, MPI_Datatype* t) {
  return made_type(PMPI_Type_create_indexed_block(n, bl, d, old, t));
}
int MPI_Type_create_hindexed(int n, const int bl[], const MPI_Aint d[], MPI_Datatype old, MPI_Datatype* t) {
  return made_type(PMPI_Type_create_hindexed(n, bl, d, old, t));
}
int MPI_Type_create_struct(int n, const int bl[], const MPI_Aint d[], const MPI_Datatype ts[], MPI_Datatype* t) {
  return made_type(PMPI_Type_create_struct(n, bl, d, ts, t));
}
int MPI_Type_create_resized(MPI_Datatype old, MPI_Aint lb, MPI_Aint ext, MPI_Datatype* t) {
  return made_type(PMPI_Type_create_resized(old, lb, ext, t));
}
int MPI_Type_dup(MPI_Datatype old, MPI_Datatype* t) { return made_type(PMPI_Type_dup(old, t)); }
int MPI_Type_free(MPI_Datatype* t) {
  const int rc = PMPI_Type_free(t);
  if (rc == MPI_SUCCESS) {
    std::lock_guard l(counts().m);
    --counts().o.types;
  }
  return rc;
}

int MPI_Win_allocate(MPI_Aint size, int du, MPI_Info i, MPI_Comm c, void* base, MPI_Win* w) {
  const int rc = PMPI_Win_allocate(size, du, i, c, base, w);
  if (rc == MPI_SUCCESS) {
    std::lock_guard l(counts().m);
    ++counts().o.windows;
  }
  return rc;
}
int MPI_Win_allocate_shared(MPI_Aint size, int du, MPI_Info i, MPI_Comm c, void* base, MPI_Win* w) {
  const int rc = PMPI_Win_allocate_shared(size, du, i, c, base, w);
  if (rc == MPI_SUCCESS) {
    std::lock_guard l(counts().m);
    ++counts().o.windows;
    counts().shared.insert(*w);
  }
  return rc;
}
int MPI_Win_create(void* base, MPI_Aint size, int du, MPI_Info i, MPI_Comm c, MPI_Win* w) {
  const int rc = PMPI_Win_create(base, size, du, i, c, w);
  if (rc == MPI_SUCCESS) {
    std::lock_guard l(counts().m);
    ++counts().o.windows;
  }
  return rc;
}
int MPI_Win_free(MPI_Win* w) {
  const MPI_Win was = *w;
  const int rc = PMPI_Win_free(w);
  if (rc == MPI_SUCCESS) {
    std::lock_guard l(counts().m);
    --counts().o.windows;
    counts().shared.erase(was);
  }
  return rc;
}

int MPI_Send_init(const void* b, int n, MPI_Datatype t, int dst, int tag, MPI_Comm c, MPI_Request* r) {
  return made_request(PMPI_Send_init(b, n, t, dst, tag, c, r), r, true);
}
int MPI_Recv_init(void* b, int n, MPI_Datatype t, int src, int tag, MPI_Comm c, MPI_Request* r) {
  return made_request(PMPI_Recv_init(b, n, t, src, tag, c, r), r, true);
}
#ifdef OMPI_HAVE_MPI_EXT_PCOLLREQ
int MPIX_Neighbor_alltoallv_init(const void* sb, const int sc[], const int sd[], MPI_Datatype st, void* rb, const int rc_[], const int rd[],
                                 MPI_Datatype rt, MPI_Comm c, MPI_Info i, MPI_Request* r) {
  return made_request(PMPIX_Neighbor_alltoallv_init(sb, sc, sd, st, rb, rc_, rd, rt, c, i, r), r, true);
}
#endif
int MPI_Isend(const void* b, int n, MPI_Datatype t, int dst, int tag, MPI_Comm c, MPI_Request* r) {
  return made_request(PMPI_Isend(b, n, t, dst, tag, c, r), r, false);
}
int MPI_Irecv(void* b, int n, MPI_Datatype t, int src, int tag, MPI_Comm c, MPI_Request* r) {
  return made_request(PMPI_Irecv(b, n, t, src, tag, c, r), r, false);
}
int MPI_Ineighbor_alltoallv(const void* sb, const int sc[], const int sd[], MPI_Datatype st, void* rb, const int rc_[], const int rd[],
                            MPI_Datatype rt, MPI_Comm c, MPI_Request* r) {
  return made_request(PMPI_Ineighbor_alltoallv(sb, sc, sd, st, rb, rc_, rd, rt, c, r), r, false);
}
int MPI_Ialltoallv(const void* sb, const int sc[], const int sd[], MPI_Datatype st, void* rb, const int rc_[], const int rd[],
                   MPI_Datatype rt, MPI_Comm c, MPI_Request* r) {
  return made_request(PMPI_Ialltoallv(sb, sc, sd, st, rb, rc_, rd, rt, c, r), r, false);
}
int MPI_Ialltoall(const void* sb, int sc, MPI_Datatype st, void* rb, int rc_, MPI_Datatype rt, MPI_Comm c, MPI_Request* r) {
  return made_request(PMPI_Ialltoall(sb, sc, st, rb, rc_, rt, c, r), r, false);
}
int MPI_Iallgatherv(const void* sb, int sc, MPI_Datatype st, void* rb, const int rc_[], const int rd[], MPI_Datatype rt, MPI_Comm c,
                    MPI_Request* r) {
  return made_request(PMPI_Iallgatherv(sb, sc, st, rb, rc_, rd, rt, c, r), r, false);
}
int MPI_Igatherv(const void* sb, int sc, MPI_Datatype st, void* rb, const int rc_[], const int rd[], MPI_Datatype rt, int root, MPI_Comm c,
                 MPI_Request* r) {
  return made_request(PMPI_Igatherv(sb, sc, st, rb, rc_, rd, rt, root, c, r), r, false);
}
int MPI_Ibarrier(MPI_Comm c, MPI_Request* r) { return made_request(PMPI_Ibarrier(c, r), r, false); }

int MPI_Wait(MPI_Request* r, MPI_Status* s) {
  const std::vector<MPI_Request> before{*r};
  const int rc = PMPI_Wait(r, s);
  completed(before, r, 1);
  return rc;
}
int MPI_Waitall(int n, MPI_Request rs[], MPI_Status ss[]) {
  const std::vector<MPI_Request> before(rs, rs + n);
  const int rc = PMPI_Waitall(n, rs, ss);
  completed(before, rs, n);
  return rc;
}
int MPI_Waitany(int n, MPI_Request rs[], int* index, MPI_Status* s) {
  const std::vector<MPI_Request> before(rs, rs + n);
  const int rc = PMPI_Waitany(n, rs, index, s);
  completed(before, rs, n);
  return rc;
}
int MPI_Test(MPI_Request* r, int* flag, MPI_Status* s) {
  const std::vector<MPI_Request> before{*r};
  const int rc = PMPI_Test(r, flag, s);
  completed(before, r, 1);
  return rc;
}
int MPI_Testall(int n, MPI_Request rs[], int* flag, MPI_Status ss[]) {
  const std::vector<MPI_Request> before(rs, rs + n);
  const int rc = PMPI_Testall(n, rs, flag, ss);
  completed(before, rs, n);
  return rc;
}
int MPI_Request_free(MPI_Request* r) {
  const MPI_Request was = *r;
  const int rc = PMPI_Request_free(r);
  if (rc == MPI_SUCCESS) {
    std::lock_guard l(counts().m);
    counts().requests.erase(was);
  }
  return rc;
}

}  // extern "C"
