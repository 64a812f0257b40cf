#include "scatter.hpp"

#include "core/error.hpp"

namespace sfr::gen {

namespace {
constexpr std::array<Choice<ScatterPattern>, 4> kScatterPatterns{{{ScatterPattern::par_to_par, "par-to-par"},
                                                                  {ScatterPattern::seq_to_par, "seq-to-par"},
                                                                  {ScatterPattern::par_to_seq, "par-to-seq"},
                                                                  {ScatterPattern::ring_send, "ring-send"}}};
}  // namespace

ScatterPattern parse_scatter_pattern(const std::string& s) { return parse_choice("--pattern", "pattern", s, kScatterPatterns); }
const char* scatter_pattern_name(ScatterPattern p) { return choice_name(p, kScatterPatterns); }

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
  t.ops.push_back(make_op(core::OpKind::bcast, "scatter", core::MpiOp::replace));
  return t;
}

}  // namespace sfr::gen
