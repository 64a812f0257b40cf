// The serial reference executor: every rank inside one process, plain loops. It is the definition
// of correct results for every backend and the simulator.
//
// Order of application at a root (matters only for REPLACE reduces and fetch_and_op's leafupdate):
// PETSc's basic backend order, i.e. the root's own rank's leaves first, then the other ranks in
// ascending order, each rank's leaves by ascending leaf position.
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
// root[idx] = root[idx] OP leaf[pos] for every leaf, in the documented order.
void reduce(const core::Graph& g, core::MpiOp op, const std::vector<Buffer>& leaf, std::vector<Buffer>& root);
// leafupdate[pos] = root[idx]; root[idx] = root[idx] OP leaf[pos], leaf by leaf in the same order.
void fetch_and_op(const core::Graph& g, core::MpiOp op, std::vector<Buffer>& root, const std::vector<Buffer>& leaf,
                  std::vector<Buffer>& leafupdate);

// Runs one op of a trace on conformance data and returns what the dump holds.
OpResult run_op(const trace::BuiltTrace& t, const trace::OpSpec& op);

}  // namespace sfr::exec::reference
