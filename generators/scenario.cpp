#include "scenario.hpp"

#include <cmath>
#include <map>

#include "core/error.hpp"

namespace sfr::gen {

core::Graph scenario_graph(const ScenarioOptions& o) {
  require_positive("--msgs", o.msgs);
  require_positive("--nodes", o.nodes);
  require_positive("--size", o.size);
  require_fraction("--duplicates", o.duplicates);
  check_placement(o.place);
  const int rpn = o.place.ranks_per_node, p = (1 + o.nodes) * rpn;
  const Index k = std::max<Index>(1, o.size / 8), d = std::llround(o.duplicates * static_cast<double>(k));
  core::Graph g(p);
  // Pass 1: fresh roots per message; pass 2: shared blocks (so that fresh blocks come first).
  std::vector<Index> fresh_start(static_cast<std::size_t>(o.msgs));
  for (int m = 0; m < o.msgs; ++m) {
    core::RankGraph& s = g[m % rpn];
    fresh_start[static_cast<std::size_t>(m)] = s.nroots;
    s.nroots += k - d;
  }
  std::map<std::pair<int, int>, Index> shared;  // (sender, destination node) -> first root of its block
  // Sender s's messages are numbered q = s*M + j (j-th of its M); q cycles over the destination
  // nodes, so each sender reaches min(M, n) nodes and every node receives m/n messages (Table 7's
  // m_proc->node and s_node->node), spread over the node's ranks.
  const int per_sender = (o.msgs + rpn - 1) / rpn;
  for (int m = 0; m < o.msgs; ++m) {
    const int sender = m % rpn, q = sender * per_sender + m / rpn;
    const int node = 1 + q % o.nodes, dest = node * rpn + (q / o.nodes) % rpn;
    auto [it, fresh] = shared.try_emplace({sender, node}, g[sender].nroots);
    if (fresh) g[sender].nroots += d;
    core::RankGraph& r = g[dest];
    for (Index e = 0; e < k - d; ++e) r.add_leaf(r.nleaves(), sender, fresh_start[static_cast<std::size_t>(m)] + e);
    for (Index e = 0; e < d; ++e) r.add_leaf(r.nleaves(), sender, it->second + e);
  }
  return g;
}

trace::Trace scenario_trace(const ScenarioOptions& o) {
  core::Graph g = scenario_graph(o);
  const int p = g.nranks;
  nlohmann::json params = {
      {"msgs", o.msgs}, {"nodes", o.nodes}, {"size", o.size}, {"duplicates", o.duplicates}, {"ranks_per_node", o.place.ranks_per_node}};
  trace::Trace t = make_trace("scenario-m" + std::to_string(o.msgs) + "-n" + std::to_string(o.nodes) + "-s" + std::to_string(o.size), p,
                              o.place, "scenario", std::move(params), 0);
  t.sfs.push_back(explicit_sf("exchange", std::move(g)));
  t.ops.push_back(make_op(core::OpKind::bcast, "exchange", core::MpiOp::replace));
  return t;
}

}  // namespace sfr::gen
