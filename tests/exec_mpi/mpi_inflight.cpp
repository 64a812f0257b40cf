// Several ops in flight at once on one SF and across SFs (begin A, begin B, begin C, end C, end A,
// end B) must give the reference results. Run under mpiexec by ctest; exit status 0 on success.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "exec/mpi/star_forest.hpp"
#include "exec/reference/reference.hpp"
#include "support/random_trace.hpp"

using namespace sfr;

namespace {

exec::Buffer input(const trace::BuiltTrace& t, const core::OpSpec& op, exec::Side side, int me) {
  const core::Graph& g = t.graph_for(op);
  core::Index off = 0;
  for (int r = 0; r < me; ++r) off += side == exec::Side::root ? g[r].nroots : g[r].leafspace();
  return exec::conformance_input(side, op.unit, op.bs, core::op_named_mpi_op(op), me,
                                 side == exec::Side::root ? g[me].nroots : g[me].leafspace(), off);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, n = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  const core::BackendInfo* info = core::find_backend(argc > 1 ? argv[1] : "basic");
  if (!info) {
    std::fprintf(stderr, "unknown backend %s\n", argv[1]);
    return 2;
  }
  const core::BackendId backend = info->id;
  const int ranks_per_node = argc > 2 ? std::atoi(argv[2]) : 0;  // node-aware backends: emulated nodes
  int failures = 0;
  {
    const core::Graph g1 = sfr_test::random_graph(n, 77), g2 = sfr_test::random_graph(n, 78);
    trace::Trace tr;
    tr.name = "inflight";
    tr.nranks = n;
    tr.sfs.push_back({"A", trace::ExplicitSF{std::make_shared<const core::Graph>(g1)}});
    tr.sfs.push_back({"B", trace::ExplicitSF{std::make_shared<const core::Graph>(g2)}});
    using K = core::OpKind;
    const core::OpSpec opA{K::bcast, "A", core::Unit::float64, 3, core::MpiOp::sum, core::MemType::host, core::MemType::host, 1, 0};
    const core::OpSpec opA2{K::reduce, "A", core::Unit::float64, 3, core::MpiOp::max, core::MemType::host, core::MemType::host, 1, 0};
    const core::OpSpec opB{K::fetch_and_op, "B", core::Unit::int64, 1, core::MpiOp::sum, core::MemType::host, core::MemType::host, 1, 0};
    tr.ops = {opA, opA2, opB};
    const trace::BuiltTrace t(tr);
    exec::mpi::StarForest A(MPI_COMM_WORLD, t.graph("A"), backend, ranks_per_node),
        B(MPI_COMM_WORLD, t.graph("B"), backend, ranks_per_node);
    auto a_root = input(t, opA, exec::Side::root, me), a_leaf = input(t, opA, exec::Side::leaf, me);
    auto a2_root = input(t, opA2, exec::Side::root, me), a2_leaf = input(t, opA2, exec::Side::leaf, me);
    auto b_root = input(t, opB, exec::Side::root, me), b_leaf = input(t, opB, exec::Side::leaf, me);
    exec::Buffer b_upd(opB.unit, opB.bs, b_leaf.count);
    const auto ha = A.bcast_begin(opA.unit, opA.bs, opA.mpi_op, exec::host_data(a_root.bytes.data()), exec::host_data(a_leaf.bytes.data()));
    const auto hb = B.fetch_and_op_begin(opB.unit, opB.bs, opB.mpi_op, exec::host_data(b_root.bytes.data()), exec::host_data(b_leaf.bytes.data()),
                                         exec::host_data(b_upd.bytes.data()));
    const auto ha2 = A.reduce_begin(opA2.unit, opA2.bs, opA2.mpi_op, exec::host_data(a2_leaf.bytes.data()), exec::host_data(a2_root.bytes.data()));
    A.end(ha2);
    A.end(ha);
    B.end(hb);
    const auto want_a = exec::reference::run_op(t, opA), want_a2 = exec::reference::run_op(t, opA2),
               want_b = exec::reference::run_op(t, opB);
    const auto r = static_cast<size_t>(me);
    if (!(a_leaf == want_a.ranks[r][0].buffer)) ++failures;
    if (!(a2_root == want_a2.ranks[r][0].buffer)) ++failures;
    if (!(b_root == want_b.ranks[r][0].buffer) || !(b_upd == want_b.ranks[r][1].buffer)) ++failures;  // basic order == reference order
    if (failures) std::fprintf(stderr, "rank %d (%s): %d in-flight results differ from the reference\n", me, info->name, failures);
  }
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0) std::printf("in-flight ops with backend %s: %s\n", info->name, total ? "FAILED" : "ok");
  MPI_Finalize();
  return total ? 1 : 0;
}
