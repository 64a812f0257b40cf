// Node-aware irregular point-to-point scenarios (Fig. 4.3 of the node-aware paper): one sending node
// whose ranks (GPUs) send m inter-node messages to ranks on n destination nodes.
#pragma once

#include "common.hpp"

namespace sfr::gen {

struct ScenarioOptions {
  int msgs = 32;          // m: inter-node messages sent by the sending node in total
  int nodes = 4;          // n: destination nodes
  Index size = 1024;      // bytes per message (float64 entries: max(1, size / 8))
  double duplicates = 0;  // fraction of each message that duplicates data sent to the same node
  Placement place{4, 0};  // ranks per node (the paper: 4 GPUs per node on Lassen)
};

// P = (1 + n) * R ranks; node 0 (ranks 0..R-1) sends. Message g = 0..m-1 is sent by rank g mod R
// to node 1 + (g / R) mod n, rank (g / (R n)) mod R of that node: messages are spread evenly over
// the sending ranks and the destination nodes. Each message has k = max(1, size/8) entries; its
// last d = round(duplicates * k) entries refer to a block of d roots that the sending rank shares
// among all its messages to the same destination node (so those values are duplicates on the
// destination node), the first k - d entries to fresh roots. Roots of a sending rank: fresh blocks
// in message order, then the shared blocks in order of first use. Leaves of a receiving rank: its
// messages in order of g, each contiguous.
core::Graph scenario_graph(const ScenarioOptions& o);
// SF "exchange" with op bcast/replace of float64.
trace::Trace scenario_trace(const ScenarioOptions& o);

}  // namespace sfr::gen
