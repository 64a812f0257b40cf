// The serial reference executor: every rank inside one process, plain loops. It is the definition
// of correct results for every backend and the simulator.
//
// Order of application at a root (matters only for REPLACE reduces and fetch_and_op's leafupdate):
// PETSc's basic backend order, i.e. the root's own rank's leaves first, then the other ranks in
// ascending order, each rank's leaves by ascending leaf position. On an SF defined as an allgather
// pattern PETSc uses its patterned implementation, and so do we: a REPLACE reduce keeps the root's
// own rank's leaf (applied last), fetch_and_op goes in plain rank order (an MPI_Exscan).
#pragma once

#include <vector>

#include "core/graph.hpp"
#include "core/ops.hpp"
#include "exec/buffer.hpp"
#include "exec/conformance.hpp"
#include "trace/trace.hpp"

namespace sfr::exec::reference {

// leaf[pos] = leaf[pos] OP root[idx] for every leaf (per component).
void bcast(const core::Graph& g, core::MpiOp op, const std::vector<Buffer>& root, std::vector<Buffer>& leaf);
// Which rank's leaves a root applies first.
enum class Order {
  petsc_basic,    // own rank first, then ascending ranks
  rank_order,     // ascending ranks (PETSc's allgather fetch_and_op)
  own_rank_last,  // ascending other ranks, own rank last (PETSc's allgather REPLACE reduce)
};

// root[idx] = root[idx] OP leaf[pos] for every leaf, in the documented order.
void reduce(const core::Graph& g, core::MpiOp op, const std::vector<Buffer>& leaf, std::vector<Buffer>& root,
            Order order = Order::petsc_basic);
// leafupdate[pos] = root[idx]; root[idx] = root[idx] OP leaf[pos], leaf by leaf in the same order.
void fetch_and_op(const core::Graph& g, core::MpiOp op, std::vector<Buffer>& root, const std::vector<Buffer>& leaf,
                  std::vector<Buffer>& leafupdate, Order order = Order::petsc_basic);

// Runs one op of a trace on conformance data and returns what the dump holds.
OpArrays run_op(const trace::BuiltTrace& t, const core::OpSpec& op);

}  // namespace sfr::exec::reference
