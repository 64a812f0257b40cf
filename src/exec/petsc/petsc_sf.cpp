#include "exec/petsc/petsc_sf.hpp"

#include <petscsf.h>

#include <map>
#include <stdexcept>
#include <utility>
#include <vector>

#include "exec/mpi/mpi_types.hpp"
#include "exec/mpi/runner.hpp"

namespace sfr::exec::petsc {

namespace {

void check(PetscErrorCode e, const char* what) {
  if (e == 0) return;
  const char* text = nullptr;
  PetscErrorMessage(e, &text, nullptr);
  throw std::runtime_error(std::string("PETSc: ") + what + ": " + (text ? text : "error " + std::to_string(static_cast<int>(e))));
}
#define CK(call) check((call), #call)

// PetscFinalize as MPI_Finalize begins (MPI calls the attribute's delete callback on
// MPI_COMM_SELF first, while MPI still works): PETSc must be finalised before MPI, and the runner
// does not know when the last PetscSF is gone.
int finalize_petsc(MPI_Comm, int, void*, void*) {
  PetscBool fin = PETSC_FALSE;
  PetscFinalized(&fin);
  if (!fin) PetscFinalize();
  return MPI_SUCCESS;
}

void initialise_once() {
  PetscBool done = PETSC_FALSE;
  CK(PetscInitialized(&done));
  if (done) return;
  // No signal handlers of PETSc's (sf-replay's own end the job); errors come back as codes.
  static char name[] = "sf-replay", no_handler[] = "-no_signal_handler";
  static char* args[] = {name, no_handler, nullptr};
  int argc = 2;
  char** argv = args;
  CK(PetscInitialize(&argc, &argv, nullptr, nullptr));
  CK(PetscPushErrorHandler(PetscReturnErrorHandler, nullptr));
  int key = MPI_KEYVAL_INVALID;
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_petsc, &key, nullptr);
  MPI_Comm_set_attr(MPI_COMM_SELF, key, nullptr);
}

class PetscStarForest final : public Sf {
public:
  PetscStarForest(MPI_Comm comm, const core::Graph& g, const std::string& type) {
    initialise_once();
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    const core::RankGraph& rg = g[rank];
    std::vector<PetscSFNode> remote(static_cast<std::size_t>(rg.nleaves()));
    for (std::size_t j = 0; j < remote.size(); ++j) remote[j] = {rg.remote_rank[j], static_cast<PetscInt>(rg.remote_index[j])};
    std::vector<PetscInt> ilocal(rg.ilocal.begin(), rg.ilocal.end());
    CK(PetscSFCreate(comm, &sf_));
    CK(PetscSFSetType(sf_, type.c_str()));
    CK(PetscSFSetGraph(sf_, static_cast<PetscInt>(rg.nroots), static_cast<PetscInt>(rg.nleaves()), rg.has_ilocal ? ilocal.data() : nullptr,
                       PETSC_COPY_VALUES, remote.data(), PETSC_COPY_VALUES));
    CK(PetscSFSetUp(sf_));
  }
  ~PetscStarForest() override {
    if (unwinding()) return;  // (exec/sf.hpp) PetscSFDestroy may wait for other ranks
    for (auto& [key, t] : types_) MPI_Type_free(&t);
    PetscSFDestroy(&sf_);
  }

  Handle bcast_begin(core::Unit u, int bs, core::MpiOp op, Data root, Data leaf) override {
    Call c{Kind::bcast, type(u, bs), exec::mpi::mpi_op(op), root.p, leaf.p, nullptr};
    CK(PetscSFBcastBegin(sf_, c.dt, c.a, c.b, c.op));
    return keep(c);
  }
  Handle reduce_begin(core::Unit u, int bs, core::MpiOp op, Data leaf, Data root) override {
    Call c{Kind::reduce, type(u, bs), exec::mpi::mpi_op(op), leaf.p, root.p, nullptr};
    CK(PetscSFReduceBegin(sf_, c.dt, c.a, c.b, c.op));
    return keep(c);
  }
  Handle fetch_and_op_begin(core::Unit u, int bs, core::MpiOp op, Data root, Data leaf, Data leafupdate) override {
    Call c{Kind::fetch_and_op, type(u, bs), exec::mpi::mpi_op(op), root.p, leaf.p, leafupdate.p};
    CK(PetscSFFetchAndOpBegin(sf_, c.dt, c.a, c.b, c.c, c.op));
    return keep(c);
  }
  Handle gather_begin(core::Unit u, int bs, Data leaf, Data multiroot) override {
    Call c{Kind::gather, type(u, bs), MPI_REPLACE, leaf.p, multiroot.p, nullptr};
    CK(PetscSFGatherBegin(sf_, c.dt, c.a, c.b));
    return keep(c);
  }
  Handle scatter_begin(core::Unit u, int bs, Data multiroot, Data leaf) override {
    Call c{Kind::scatter, type(u, bs), MPI_REPLACE, multiroot.p, leaf.p, nullptr};
    CK(PetscSFScatterBegin(sf_, c.dt, c.a, c.b));
    return keep(c);
  }
  void end(Handle h) override {
    const auto it = pending_.find(h);
    if (it == pending_.end()) throw std::logic_error("petsc: end of an op that did not begin");
    const Call c = it->second;
    pending_.erase(it);
    switch (c.kind) {
      case Kind::bcast: CK(PetscSFBcastEnd(sf_, c.dt, c.a, c.b, c.op)); break;
      case Kind::reduce: CK(PetscSFReduceEnd(sf_, c.dt, c.a, c.b, c.op)); break;
      case Kind::fetch_and_op: CK(PetscSFFetchAndOpEnd(sf_, c.dt, c.a, c.b, c.c, c.op)); break;
      case Kind::gather: CK(PetscSFGatherEnd(sf_, c.dt, c.a, c.b)); break;
      case Kind::scatter: CK(PetscSFScatterEnd(sf_, c.dt, c.a, c.b)); break;
    }
  }

private:
  enum class Kind { bcast, reduce, fetch_and_op, gather, scatter };
  // One begun op: what its end must be given again (PETSc matches begin and end by arguments).
  struct Call {
    Kind kind;
    MPI_Datatype dt;
    MPI_Op op;
    std::byte *a, *b, *c;
  };
  Handle keep(const Call& c) {
    pending_.emplace(next_, c);
    return next_++;
  }
  // The unit as PETSc sees it (MPI_INT is PetscInt in this build: PETSc's kernels key on it), a
  // contiguous block of bs of them made once per SF (PETSc analyses a type at each call).
  MPI_Datatype type(core::Unit u, int bs) {
    const MPI_Datatype base = u == core::Unit::int32 ? MPI_INT : exec::mpi::mpi_type(u);
    if (bs == 1) return base;
    auto [it, fresh] = types_.try_emplace({u, bs}, MPI_DATATYPE_NULL);
    if (fresh) {
      MPI_Type_contiguous(bs, base, &it->second);
      MPI_Type_commit(&it->second);
    }
    return it->second;
  }
  PetscSF sf_ = nullptr;
  std::map<std::pair<core::Unit, int>, MPI_Datatype> types_;
  std::map<Handle, Call> pending_;
  Handle next_ = 0;
};

}  // namespace

std::unique_ptr<Sf> make_sf(MPI_Comm comm, const core::Graph& g, const std::string& type) {
  return std::make_unique<PetscStarForest>(comm, g, type);
}

std::string refuses(const core::OpSpec& op, const std::string& type) {
  if (core::op_uses_device(op)) return "this PETSc (Debian's 3.18) is built without CUDA: it takes no device buffers";
  // Units without a PETSc pack kernel fall back to MPI_Reduce_local, which rejects predefined ops
  // on the contiguous block types of bs > 1.
  const bool has_kernel =
      op.unit == core::Unit::int32 || op.unit == core::Unit::float64 || (op.unit == core::Unit::int32_pair && op.bs == 1);
  const bool combines = (op.op == core::OpKind::reduce || op.op == core::OpKind::bcast) && op.mpi_op != core::MpiOp::replace;
  if (combines && op.bs > 1 && !has_kernel)
    return std::string("no PETSc kernel for ") + core::unit_name(op.unit) + " blocks; MPI_Reduce_local rejects the block type (MPI_ERR_OP)";
  if (type == "window" && op.op == core::OpKind::bcast && op.mpi_op != core::MpiOp::replace)
    return "PetscSFBcastBegin_Window with an op other than MPI_REPLACE is not implemented";
  if (type == "window" && (op.op == core::OpKind::gather || op.op == core::OpKind::scatter))
    return "the window type's multi-SF aborts in MPI_Accumulate (MPI_ERR_RMA_RANGE) on Open MPI 4.1";
  if (op.op != core::OpKind::fetch_and_op) return "";
  if (op.mpi_op != core::MpiOp::sum) return "PetscSFFetchAndOp supports only MPI_SUM";
  if (op.unit != core::Unit::int32 && op.unit != core::Unit::float64)
    return std::string("PetscSFFetchAndOp has no kernel for ") + core::unit_name(op.unit) + " in this build";
  return "";
}

}  // namespace sfr::exec::petsc

extern "C" const sfr::exec::mpi::PetscExecutor* sfr_petsc_executor_v1() {
  static const sfr::exec::mpi::PetscExecutor e{sfr::exec::petsc::make_sf, sfr::exec::petsc::refuses};
  return &e;
}
