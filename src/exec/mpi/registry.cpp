// The MPI executor's side of the backend catalogue (core::kBackends): how the host driver
// (star_forest.cpp) makes each backend's transport, one row per backend. core/ names the backends
// and their traits and stays free of MPI; this table makes them. The catalogue's other rows run
// on executors of their own: the cuda-* rows on the CUDA executor (exec/cuda/device_sf.hpp), the
// petsc* rows on PETSc's own PetscSF (exec/petsc); runner.cpp picks the executor by the row's
// traits.
#include "core/backends.hpp"
#include "core/error.hpp"
#include "exec/mpi/backend.hpp"

namespace sfr::exec::mpi {

namespace {

using core::BackendId;

struct ExecutorRow {
  BackendId id;
  std::unique_ptr<Backend> (*make)(const BackendArgs&);
};

constexpr ExecutorRow kExecutorRows[] = {
    {BackendId::basic, [](const BackendArgs&) { return make_basic(); }},
    {BackendId::neighbor, [](const BackendArgs& a) { return make_neighbor(a.sf, true); }},
    {BackendId::window, [](const BackendArgs&) { return make_window(); }},
    {BackendId::alltoallv, [](const BackendArgs& a) { return make_alltoallv(a.sf); }},
    {BackendId::collective, [](const BackendArgs& a) { return make_collective(a.sf, a.g); }},
    // On-node = the placement's (emulated) node.
    {BackendId::shm, [](const BackendArgs& a) { return make_shm(a.sf, true, a.ranks_per_node); }},
    {BackendId::three_step, make_node_aware},
    {BackendId::two_step, make_node_aware},
    {BackendId::split_md, make_node_aware},
    {BackendId::split_dd, make_node_aware},
};

// Every row of the catalogue the host driver runs (neither the CUDA executor's nor PETSc's) has
// exactly one row here, and no other row has one.
static_assert(core::one_row_each(kExecutorRows, [](const core::BackendInfo& b) { return !b.gpu && !b.petsc; }),
              "every host backend of core::kBackends has one row of kExecutorRows");

}  // namespace

std::unique_ptr<Backend> make_backend(const BackendArgs& a) {
  for (const auto& r : kExecutorRows)
    if (r.id == a.id) return r.make(a);
  // A caller's mistake, not the user's: the runner sends the other rows to their own executors.
  throw InputError("--backend", std::string(core::backend_name(a.id)) + " does not run on the host driver");
}

}  // namespace sfr::exec::mpi
