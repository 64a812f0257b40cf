#include "scatter.hpp"

#include "core/error.hpp"

namespace sfr::gen {

ScatterPattern parse_scatter_pattern(const std::string& s) {
  if (s == "par-to-par") return ScatterPattern::par_to_par;
  if (s == "seq-to-par") return ScatterPattern::seq_to_par;
  if (s == "par-to-seq") return ScatterPattern::par_to_seq;
  if (s == "ring-send") return ScatterPattern::ring_send;
  throw InputError("--pattern", "unknown pattern '" + s + "' (expected par-to-par, seq-to-par, par-to-seq or ring-send)");
}

const char* scatter_pattern_name(ScatterPattern p) {
  switch (p) {
    case ScatterPattern::par_to_par: return "par-to-par";
    case ScatterPattern::seq_to_par: return "seq-to-par";
    case ScatterPattern::par_to_seq: return "par-to-seq";
    case ScatterPattern::ring_send: return "ring-send";
  }
  return "?";
}

core::Graph scatter_graph(const ScatterOptions& o) {
  require_positive("--ranks", o.nranks);
  require_positive("--per-rank", o.per_rank);
  const int p = o.nranks;
  const Index n = o.per_rank;
  core::Graph g(p);
  for (int r = 0; r < p; ++r) {
    core::RankGraph& rg = g[r];
    rg.nroots = n;
    switch (o.pattern) {
      case ScatterPattern::par_to_par:
        for (Index j = 0; j < n; ++j) rg.add_leaf(j, (r + p - 1) % p, j);
        break;
      case ScatterPattern::seq_to_par:
        for (Index j = 0; j < n; ++j) {
          const Index gidx = r * n + j;
          rg.add_leaf(j, static_cast<int>(gidx % p), gidx / p);
        }
        break;
      case ScatterPattern::par_to_seq:
        for (Index gidx = 0; gidx < n * p; ++gidx) rg.add_leaf(gidx, static_cast<int>(gidx / n), gidx % n);
        break;
      case ScatterPattern::ring_send:
        if (r > 0)
          for (Index j = 0; j < n; ++j) rg.add_leaf(j, r - 1, j);
        break;
    }
  }
  return g;
}

trace::Trace scatter_trace(const ScatterOptions& o) {
  core::Graph g = scatter_graph(o);
  nlohmann::json params = {{"pattern", scatter_pattern_name(o.pattern)}, {"ranks", o.nranks}, {"per_rank", o.per_rank}};
  trace::Trace t = make_trace(std::string("scatter-") + scatter_pattern_name(o.pattern) + "-p" + std::to_string(o.nranks), o.nranks,
                              o.place, "scatter", std::move(params), 0);
  t.sfs.push_back(explicit_sf("scatter", std::move(g)));
  t.ops.push_back(make_op(trace::OpKind::bcast, "scatter", core::MpiOp::replace));
  return t;
}

}  // namespace sfr::gen
