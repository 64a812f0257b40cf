// Deterministic input data of conformance mode (spec section 3) and the buffers each op uses.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/budget.hpp"
#include "core/ops.hpp"
#include "exec/buffer.hpp"
#include "trace/trace.hpp"

namespace sfr::exec {

enum class Side { root, leaf };

// g (root side) and h (leaf side) of the spec, before any op-specific transform.
core::Index conformance_g(int rank, core::Index vertex, int comp);
core::Index conformance_h(int rank, core::Index vertex, int comp);

// Input buffer of `count` vertices on `rank` for `side`; `mpi_op` selects the prod/logical value
// transforms (none when absent); `global_offset` is the number of entries of this array on lower
// ranks (for int32_pair's global vertex number).
Buffer conformance_input(Side side, core::Unit unit, int bs, std::optional<core::MpiOp> mpi_op, int rank, core::Index count,
                         core::Index global_offset);

// The input buffers of every rank of `g` for `op` (roots: nroots each; leaves: the leaf space).
std::vector<Buffer> conformance_inputs(const core::Graph& g, Side side, const core::OpSpec& op, bool roots);

// The named arrays an op writes to the dump, per rank, in dump order.
struct NamedBuffer {
  std::string name;
  Buffer buffer;
};
using RankArrays = std::vector<NamedBuffer>;
// What one op wrote: per rank, its named arrays.
struct OpArrays {
  std::vector<RankArrays> ranks;
};

// Bytes of the data arrays an executor holds for the trace's ops (root, leaf and leaf-update
// buffers), on `rank` or, for rank < 0, on all ranks; `kept`: every op's results are kept instead
// of one op's at a time; `text`: they are also written as a dump (about 24 bytes per number).
// Builds the graphs the ops use (within the trace's memory limit). Named after the op with the
// most data.
core::SizeEstimate data_estimate(const trace::BuiltTrace& t, int rank, bool kept, bool text);

}  // namespace sfr::exec
