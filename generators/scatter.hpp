// VecScatter patterns: the three routines of the GPU neighborhood-collectives paper and the
// ring-send example of the PETSc 2.0 paper.
#pragma once

#include <string>

#include "common.hpp"

namespace sfr::gen {

enum class ScatterPattern { par_to_par, seq_to_par, par_to_seq, ring_send };
ScatterPattern parse_scatter_pattern(const std::string& s);
const char* scatter_pattern_name(ScatterPattern p);

struct ScatterOptions {
  ScatterPattern pattern = ScatterPattern::par_to_par;
  int nranks = 8;
  Index per_rank = 100;  // n: entries of the parallel vector per rank (message length for ring-send)
  Placement place;
};

// Roots are the "from" vector, leaves the "to" vector (VecScatter x -> y is a bcast), N = P*n:
// par-to-par: ring shift, y[g] = x[(g - n) mod N]: rank r's leaf j <- root j of rank r-1 (mod P).
// seq-to-par: every rank holds a sequential vector of n entries (roots); parallel entry g (n per
//   rank, leaves) <- entry g / P of rank g mod P's sequential vector (every rank contributes).
// par-to-seq: VecScatterCreateToAll: every rank's sequential vector of N entries (leaves) <- the
//   whole parallel vector (n roots per rank).
// ring-send: rank r+1's n leaves <- rank r's n roots, for r < P-1 (the last rank sends nothing; the
//   serialization the paper describes comes from blocking sends, not from the graph).
core::Graph scatter_graph(const ScatterOptions& o);
// SF "scatter" with op bcast/replace of float64.
trace::Trace scatter_trace(const ScatterOptions& o);

}  // namespace sfr::gen
