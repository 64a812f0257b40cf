// The simulator's and validate-model's documents are now written through trace::SimulationDoc and
// trace::ModelCheckDoc: the text must stay what the hand-written writers produced (stored
// documents, dashboards and other tools read it). The writers as they were before the types
// (commit 0bd4d20, sim/simulate.cpp render_json and sim/model_check.cpp model_check_json) are
// kept here verbatim as the reference; each test writes the same result both ways and compares
// the bytes, then reads the old text back through the type and writes it again.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "sim/engine.hpp"
#include "sim/model_check.hpp"
#include "sim/render.hpp"
#include "sim/simulate.hpp"
#include "sim_support.hpp"
#include "trace/result_docs.hpp"

using namespace sfr_simtest;
using core::OpKind;

namespace old_writer {
using namespace sfr::sim;

template <class TimeOf>
std::vector<std::size_t> rank_by(std::size_t n, TimeOf time_of) {
  std::vector<std::size_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return time_of(a) < time_of(b); });
  return idx;
}

io::Json breakdown_json(const Breakdown& b) {
  io::Json j = io::Json::object();
  for (int k = 0; k < Breakdown::kTerms; ++k) j[Breakdown::term_name(k)] = b.term(k);
  return j;
}

std::string render_json(const SimResult& r, const io::Json& provenance) {
  io::Json j;
  j["format"] = "sf-simulation";
  j["version"] = 1;
  j["provenance"] = provenance;
  j["trace"] = r.trace;
  j["machine"] = r.machine;
  j["model"] = r.model;
  j["unit"] = "seconds";
  j["backends"] = io::Json::array();
  for (const auto& b : r.backends) {
    io::Json jb;
    jb["backend"] = b.backend.name();
    jb["total"] = b.total_s;
    jb["messages"] = b.messages;
    jb["breakdown"] = breakdown_json(b.breakdown);
    jb["dominant"] = dominant_terms(b.breakdown, b.total_s);
    jb["ops"] = io::Json::array();
    for (const auto& o : b.ops)
      jb["ops"].push_back({{"index", o.index},
                           {"op", o.label},
                           {"repeat", o.repeat},
                           {"total", o.total_s},
                           {"per_call", o.per_call_s},
                           {"messages", o.messages},
                           {"messages_per_call", o.call_messages},
                           {"bytes_per_call", o.call_bytes},
                           {"breakdown", breakdown_json(o.breakdown)},
                           {"dominant", dominant_terms(o.breakdown, o.per_call_s)}});
    j["backends"].push_back(std::move(jb));
  }
  io::Json rk;
  if (!r.backends.empty()) {
    const auto all = rank_by(r.backends.size(), [&](std::size_t i) { return r.backends[i].total_s; });
    rk["order"] = io::Json::array();
    for (auto i : all) rk["order"].push_back(r.backends[i].backend.name());
    if (all.size() >= 2) {
      const auto &w = r.backends[all[0]], &s = r.backends[all[1]];
      rk["why"] = why_faster(w.backend.name(), w.breakdown, w.total_s, w.messages, s.backend.name(), s.breakdown, s.total_s, s.messages);
    }
    rk["ops"] = io::Json::array();
    for (std::size_t oi = 0; oi < r.backends[0].ops.size(); ++oi) {
      const auto order = rank_by(r.backends.size(), [&](std::size_t i) { return r.backends[i].ops[oi].per_call_s; });
      io::Json jo;
      jo["index"] = oi;
      jo["order"] = io::Json::array();
      for (auto i : order) jo["order"].push_back(r.backends[i].backend.name());
      if (order.size() >= 2) {
        const auto &w = r.backends[order[0]].ops[oi], &s = r.backends[order[1]].ops[oi];
        const auto rep = static_cast<std::uint64_t>(std::max<core::Index>(1, w.repeat));
        jo["why"] = why_faster(r.backends[order[0]].backend.name(), w.breakdown, w.per_call_s, w.messages / rep,
                               r.backends[order[1]].backend.name(), s.breakdown, s.per_call_s, s.messages / rep);
      }
      rk["ops"].push_back(std::move(jo));
    }
  }
  j["ranking"] = rk;
  return j.dump(1) + "\n";
}

io::Json model_check_json(const ModelCheck& c, const std::string& machine) {
  io::Json j;
  j["format"] = "sf-model-check";
  j["version"] = 1;
  j["machine"] = machine;
  j["pairs"] = io::Json::array();
  for (const auto& p : c.pairs)
    j["pairs"].push_back({{"trace", p.trace},
                          {"op", p.op},
                          {"label", p.label},
                          {"backend", p.backend},
                          {"measured_us", p.measured_us},
                          {"predicted_us", p.predicted_us},
                          {"error", p.error()}});
  j["ops"] = io::Json::array();
  for (const auto& r : c.ops)
    j["ops"].push_back(
        {{"trace", r.trace}, {"op", r.op}, {"measured_best", r.measured_best}, {"predicted_best", r.predicted_best}, {"right", r.right()}});
  j["summary"] = {{"pairs", c.pairs.size()},
                  {"median_abs_error", c.median_abs_error},
                  {"ops_ranked", c.ops.size()},
                  {"ranking_right", c.ranking_right}};
  return j;
}
}  // namespace old_writer

namespace {
const sfr::io::Json kProvenance = {{"command", "simulate"}, {"commit", "abc"}, {"date", "2026-11-26T00:00:00Z"}, {"host", "h"},
                                   {"trace_sha256", nullptr}};
}

TEST(ResultDocsCompat, SimulationTextIsTheOldWritersAndReadsBack) {
  auto g = random_graph(16, 12, 10, 3);
  const auto bt = make_trace(g, {op(OpKind::bcast, core::Unit::float64, 3, 2, 1.5), op(OpKind::reduce), op(OpKind::gather, core::Unit::int32)},
                             trace::Machine{4, 2, 2});
  // Additive since: the placement the simulation used; without it the text is the old writer's.
  auto without_placement = [](const std::string& text) {
    auto j = io::Json::parse(text);
    j.erase("placement");
    return j.dump(1) + "\n";
  };
  for (const bool many : {true, false}) {
    const auto res = sim::simulate(bt, *sim::preset("generic"), many ? sim::all_backends(false) : std::vector<sim::BackendVariant>{sim::BackendVariant{}});
    const std::string old_text = old_writer::render_json(res, kProvenance), text = sim::render_json(res, kProvenance);
    EXPECT_EQ(without_placement(text), old_text);
    const auto placement = io::Json::parse(text)["placement"];
    EXPECT_EQ(placement["ranks_per_node"], 4);  // the trace's machine: 16 ranks, 4 per node, 2 per socket
    EXPECT_EQ(placement["ranks_per_socket"], 2);
    EXPECT_EQ(placement["nodes"], 4);
    // The old text, read through the type and written again: the same bytes.
    const auto doc = trace::simulation_doc_from_json(io::Json::parse(old_text), "old.json");
    EXPECT_EQ(trace::to_json(doc).dump(1) + "\n", old_text);
    auto now = sim::simulation_doc(res, kProvenance);
    EXPECT_EQ(trace::simulation_doc_from_json(io::Json::parse(text), "new.json"), now);
    now.placement = nullptr;
    EXPECT_EQ(doc, now);
  }
  // No backends: the ranking is null, as before.
  sim::SimResult empty;
  empty.trace = "t", empty.machine = "m", empty.model = "postal";
  EXPECT_EQ(without_placement(sim::render_json(empty, kProvenance)), old_writer::render_json(empty, kProvenance));
}

TEST(ResultDocsCompat, ModelCheckTextIsTheOldWritersAndReadsBack) {
  const auto c = sim::check_model({{"t", 0, "bcast", "basic", 10.0, 11.0},
                                   {"t", 0, "bcast", "neighbor", 10.4, 8.32},
                                   {"t", 1, "reduce", "window", 10.0, 13.0},
                                   {"u", 0, "bcast", "basic", 5.0, 5.0}});
  // validate-model appends the provenance after the comparison and writes with indent 2.
  io::Json old = old_writer::model_check_json(c, "m.json");
  old["provenance"] = kProvenance;
  auto doc = sim::model_check_doc(c, "m.json");
  doc.provenance = kProvenance;
  // Additive since: the measurements' spread per pair, per op and in the summary, and the accuracy
  // per backend in the summary; without those members the document is the old writer's, member
  // for member and in order.
  auto without_spread = [](io::Json j) {
    for (auto& p : j["pairs"]) p.erase("spread"), p.erase("within_spread");
    for (auto& r : j["ops"]) r.erase("within_spread");
    j["summary"].erase("median_spread");
    j["summary"].erase("within_spread");
    j["summary"].erase("ranking_within_spread");
    j["summary"].erase("by_backend");
    return j;
  };
  EXPECT_EQ(without_spread(trace::to_json(doc)).dump(2), old.dump(2));
  EXPECT_EQ(without_spread(sim::model_check_json(c, "m.json")).dump(2), old_writer::model_check_json(c, "m.json").dump(2));
  // An old document reads back as one without repeats (no spread) and without the accuracy per
  // backend.
  const auto back = trace::model_check_doc_from_json(io::Json::parse(old.dump(2)), "old.json");
  doc.by_backend.clear();
  EXPECT_EQ(back, doc);
}
