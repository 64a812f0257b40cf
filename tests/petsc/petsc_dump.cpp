// Test-only differential reference: runs a trace through PETSc's own PetscSF (the SFs built by
// PETSc itself: PetscSFSetGraph/Layout/WithPattern, PetscSFGetMultiSF, PetscSFCompose, ...) on
// the same conformance data and writes an sf-dump. Ops PETSc cannot do are listed under the
// extra top-level key "skipped" with the reason.
//   mpiexec -n P sfr_petsc_dump TRACE OUT.json
#include <petscsf.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "exec/conformance.hpp"
#include "exec/dump.hpp"
#include "exec/mpi/mpi_types.hpp"
#include "exec/mpi/runner.hpp"
#include "exec/petsc/petsc_sf.hpp"
#include "io/json_strict.hpp"
#include "trace/reader.hpp"

using namespace sfr;
using core::Index;
using exec::mpi::mpi_op;

namespace {

int g_rank = 0;

void check(PetscErrorCode ierr, const char* what) {
  if (ierr) {
    std::fprintf(stderr, "petsc_dump: PETSc error %d in %s\n", static_cast<int>(ierr), what);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
}
#define CK(call) check((call), #call)

// Base types as PETSc recognises them (MPI_INT is PetscInt here; the executor uses MPI_INT32_T).
MPI_Datatype base_type(core::Unit u) { return u == core::Unit::int32 ? MPI_INT : exec::mpi::mpi_type(u); }

std::vector<PetscInt> to_petsc(const std::vector<Index>& v) { return {v.begin(), v.end()}; }

PetscSF build(const trace::SFDef& def, const std::map<std::string, PetscSF>& done, int nranks) {
  PetscSF sf = nullptr;
  if (const auto* e = std::get_if<trace::ExplicitSF>(&def.def)) {
    const core::RankGraph& rg = (*e->graph)[g_rank];
    std::vector<PetscSFNode> rem(static_cast<size_t>(rg.nleaves()));
    for (size_t j = 0; j < rem.size(); ++j) rem[j] = {rg.remote_rank[j], static_cast<PetscInt>(rg.remote_index[j])};
    std::vector<PetscInt> il = to_petsc(rg.ilocal);
    CK(PetscSFCreate(PETSC_COMM_WORLD, &sf));
    CK(PetscSFSetGraph(sf, static_cast<PetscInt>(rg.nroots), static_cast<PetscInt>(rg.nleaves()), rg.has_ilocal ? il.data() : nullptr,
                       PETSC_COPY_VALUES, rem.data(), PETSC_COPY_VALUES));
  } else if (const auto* l = std::get_if<trace::LayoutSF>(&def.def)) {
    PetscLayout map;
    CK(PetscLayoutCreate(PETSC_COMM_WORLD, &map));
    CK(PetscLayoutSetLocalSize(map,
                               static_cast<PetscInt>(l->layout[static_cast<size_t>(g_rank) + 1] - l->layout[static_cast<size_t>(g_rank)])));
    CK(PetscLayoutSetUp(map));
    const auto& lr = l->ranks[static_cast<size_t>(g_rank)];
    std::vector<PetscInt> il = to_petsc(lr.ilocal), gl = to_petsc(lr.global);
    CK(PetscSFCreate(PETSC_COMM_WORLD, &sf));
    CK(PetscSFSetGraphLayout(sf, map, static_cast<PetscInt>(gl.size()), lr.has_ilocal ? il.data() : nullptr, PETSC_COPY_VALUES, gl.data()));
    CK(PetscLayoutDestroy(&map));
  } else if (const auto* p = std::get_if<trace::PatternSF>(&def.def)) {
    PetscLayout map;
    CK(PetscLayoutCreate(PETSC_COMM_WORLD, &map));
    CK(PetscLayoutSetLocalSize(map, static_cast<PetscInt>(p->nroots[static_cast<size_t>(g_rank)])));
    CK(PetscLayoutSetUp(map));
    CK(PetscSFCreate(PETSC_COMM_WORLD, &sf));
    const PetscSFPattern pat = p->pattern == core::Pattern::allgather ? PETSCSF_PATTERN_ALLGATHER
                               : p->pattern == core::Pattern::gather  ? PETSCSF_PATTERN_GATHER
                                                                      : PETSCSF_PATTERN_ALLTOALL;
    CK(PetscSFSetGraphWithPattern(sf, map, pat));
    CK(PetscLayoutDestroy(&map));
  } else {
    const auto& d = std::get<trace::DerivedSF>(def.def);
    auto in = [&](size_t k) { return done.at(d.of[k]); };
    switch (d.kind) {
      case trace::DeriveKind::multi:
        CK(PetscSFGetMultiSF(in(0), &sf));
        CK(PetscObjectReference(reinterpret_cast<PetscObject>(sf)));
        break;
      case trace::DeriveKind::compose: CK(PetscSFCompose(in(0), in(1), &sf)); break;
      case trace::DeriveKind::compose_inverse: CK(PetscSFComposeInverse(in(0), in(1), &sf)); break;
      case trace::DeriveKind::inverse: CK(PetscSFCreateInverseSF(in(0), &sf)); break;
      case trace::DeriveKind::embed_roots:
      case trace::DeriveKind::embed_leaves: {
        std::vector<PetscInt> sel = to_petsc(d.selected[static_cast<size_t>(g_rank)]);
        std::sort(sel.begin(), sel.end());
        sel.erase(std::unique(sel.begin(), sel.end()), sel.end());
        if (d.kind == trace::DeriveKind::embed_roots)
          CK(PetscSFCreateEmbeddedRootSF(in(0), static_cast<PetscInt>(sel.size()), sel.data(), &sf));
        else
          CK(PetscSFCreateEmbeddedLeafSF(in(0), static_cast<PetscInt>(sel.size()), sel.data(), &sf));
        break;
      }
      case trace::DeriveKind::concatenate: {
        std::vector<PetscSF> v;
        std::vector<PetscInt> offsets;
        PetscInt off = 0;
        for (size_t k = 0; k < d.of.size(); ++k) {
          v.push_back(in(k));
          offsets.push_back(off);
          PetscInt nleaves, maxleaf;
          CK(PetscSFGetGraph(in(k), nullptr, &nleaves, nullptr, nullptr));
          CK(PetscSFGetLeafRange(in(k), nullptr, &maxleaf));
          off += nleaves ? maxleaf + 1 : 0;
        }
        CK(PetscSFConcatenate(PETSC_COMM_WORLD, static_cast<PetscInt>(v.size()), v.data(), d.shared_roots ? PETSC_TRUE : PETSC_FALSE,
                              offsets.data(), &sf));
        break;
      }
    }
  }
  (void)nranks;
  // -sf_type applies to the SFs built here; patterned SFs keep their own type (switching it
  // drops the pattern and crashes), and the multi-SF belongs to its parent.
  const bool own_type =
      !std::holds_alternative<trace::PatternSF>(def.def) &&
      !(std::holds_alternative<trace::DerivedSF>(def.def) && std::get<trace::DerivedSF>(def.def).kind == trace::DeriveKind::multi);
  if (own_type) CK(PetscSFSetFromOptions(sf));
  CK(PetscSFSetUp(sf));
  return sf;
}

struct Sizes {
  std::vector<Index> n;
  Index offset(int r) const {
    Index o = 0;
    for (int k = 0; k < r; ++k) o += n[static_cast<size_t>(k)];
    return o;
  }
};

Sizes sizes(const core::Graph& g, bool roots) {
  Sizes s;
  for (int r = 0; r < g.nranks; ++r) s.n.push_back(roots ? g[r].nroots : g[r].leafspace());
  return s;
}

exec::RankArrays run_op(const trace::BuiltTrace& t, const core::OpSpec& op, PetscSF sf) {
  using core::OpKind;
  const core::Graph& g = t.graph_for(op);
  const Sizes rs = sizes(g, true), ls = sizes(g, false);
  const auto mop = core::op_named_mpi_op(op);
  auto root_in = [&] {
    return exec::conformance_input(exec::Side::root, op.unit, op.bs, mop, g_rank, rs.n[static_cast<size_t>(g_rank)], rs.offset(g_rank));
  };
  auto leaf_in = [&] {
    return exec::conformance_input(exec::Side::leaf, op.unit, op.bs, mop, g_rank, ls.n[static_cast<size_t>(g_rank)], ls.offset(g_rank));
  };
  MPI_Datatype dt = base_type(op.unit);
  if (op.bs > 1) {
    MPI_Type_contiguous(op.bs, base_type(op.unit), &dt);
    MPI_Type_commit(&dt);
  }
  exec::RankArrays out;
  const auto w = core::op_traits(op.op).written();  // the arrays' names, in dump order
  switch (op.op) {
    case OpKind::bcast: {
      auto root = root_in(), leaf = leaf_in();
      CK(PetscSFBcastBegin(sf, dt, root.bytes.data(), leaf.bytes.data(), mpi_op(op.mpi_op)));
      CK(PetscSFBcastEnd(sf, dt, root.bytes.data(), leaf.bytes.data(), mpi_op(op.mpi_op)));
      out.push_back({w[0], std::move(leaf)});
      break;
    }
    case OpKind::reduce: {
      auto root = root_in(), leaf = leaf_in();
      CK(PetscSFReduceBegin(sf, dt, leaf.bytes.data(), root.bytes.data(), mpi_op(op.mpi_op)));
      CK(PetscSFReduceEnd(sf, dt, leaf.bytes.data(), root.bytes.data(), mpi_op(op.mpi_op)));
      out.push_back({w[0], std::move(root)});
      break;
    }
    case OpKind::fetch_and_op: {
      auto root = root_in(), leaf = leaf_in();
      exec::Buffer upd(op.unit, op.bs, ls.n[static_cast<size_t>(g_rank)]);
      CK(PetscSFFetchAndOpBegin(sf, dt, root.bytes.data(), leaf.bytes.data(), upd.bytes.data(), mpi_op(op.mpi_op)));
      CK(PetscSFFetchAndOpEnd(sf, dt, root.bytes.data(), leaf.bytes.data(), upd.bytes.data(), mpi_op(op.mpi_op)));
      out.push_back({w[0], std::move(root)});
      out.push_back({w[1], std::move(upd)});
      break;
    }
    case OpKind::gather: {
      exec::Buffer multi(op.unit, op.bs, rs.n[static_cast<size_t>(g_rank)]);
      auto leaf = leaf_in();
      CK(PetscSFGatherBegin(sf, dt, leaf.bytes.data(), multi.bytes.data()));
      CK(PetscSFGatherEnd(sf, dt, leaf.bytes.data(), multi.bytes.data()));
      out.push_back({w[0], std::move(multi)});
      break;
    }
    case OpKind::scatter: {
      auto multi = root_in(), leaf = leaf_in();
      CK(PetscSFScatterBegin(sf, dt, multi.bytes.data(), leaf.bytes.data()));
      CK(PetscSFScatterEnd(sf, dt, multi.bytes.data(), leaf.bytes.data()));
      out.push_back({w[0], std::move(leaf)});
      break;
    }
    case OpKind::degree: {
      const PetscInt* deg = nullptr;
      CK(PetscSFComputeDegreeBegin(sf, &deg));
      CK(PetscSFComputeDegreeEnd(sf, &deg));
      exec::Buffer b(core::Unit::int64, 1, rs.n[static_cast<size_t>(g_rank)]);
      for (Index i = 0; i < b.count; ++i) b.as<std::int64_t>()[i] = deg[i];
      out.push_back({w[0], std::move(b)});
      break;
    }
  }
  if (op.bs > 1) MPI_Type_free(&dt);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  CK(PetscInitialize(&argc, &argv, nullptr, nullptr));
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3) {
    if (g_rank == 0) std::fprintf(stderr, "usage: petsc_dump TRACE OUT.json\n");
    return PetscFinalize() ? 1 : 2;
  }
  try {
    const auto t = trace::read_trace_file(argv[1]);
    if (t.trace().nranks != size) {
      if (g_rank == 0) std::fprintf(stderr, "petsc_dump: trace needs %d ranks, running on %d\n", t.trace().nranks, size);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char type_buf[64] = "basic";
    PetscBool set = PETSC_FALSE;
    CK(PetscOptionsGetString(nullptr, nullptr, "-sf_type", type_buf, sizeof type_buf, &set));
    const std::string sf_type = type_buf;
    std::map<std::string, PetscSF> sfs;
    for (const auto& d : t.trace().sfs) {
      if (std::getenv("SFR_PETSC_VERBOSE") && g_rank == 0) std::fprintf(stderr, "petsc_dump: SF %s\n", d.name.c_str());
      sfs[d.name] = build(d, sfs, size);
    }
    std::vector<exec::DumpEntry> entries;
    std::vector<exec::SkippedOp> skipped;
    for (size_t i = 0; i < t.trace().ops.size(); ++i) {
      const auto& op = t.trace().ops[i];
      const std::string why = exec::petsc::refuses(op, sf_type);
      if (!why.empty()) {
        skipped.push_back({i, why});
        continue;
      }
      if (std::getenv("SFR_PETSC_VERBOSE") && g_rank == 0) std::fprintf(stderr, "petsc_dump: op %zu\n", i);
      exec::OpArrays res = exec::mpi::gather_result(MPI_COMM_WORLD, run_op(t, op, sfs.at(op.sf)));
      if (g_rank == 0) entries.push_back({i, &op, std::move(res)});
    }
    if (g_rank == 0) std::ofstream(argv[2]) << exec::write_dump(t.trace().name, entries, skipped);
    for (auto& [name, sf] : sfs) CK(PetscSFDestroy(&sf));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "petsc_dump: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return PetscFinalize() ? 1 : 0;
}
