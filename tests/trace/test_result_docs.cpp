// The result documents as types (trace/result_docs.hpp): struct -> JSON -> struct is the identity
// for each kind, the timing writer's text is what the hand-written writer produced (runner.cpp
// before the types, kept below as the reference), and every malformed case the readers refuse is
// refused by the type's conversion with a one-line error naming the file and the JSON pointer.
#include <gtest/gtest.h>

#include <functional>

#include "core/error.hpp"
#include "trace/result_docs.hpp"

using namespace sfr;
using Json = io::Json;

namespace {

const Json kProvenance = {{"command", "run"}, {"commit", "abc-dirty"}, {"date", "2026-11-26T10:00:00Z"}, {"host", "h"},
                          {"trace_sha256", "00ff"}};

trace::TimingDoc timing() {
  trace::TimingDoc d;
  d.provenance = kProvenance;
  d.trace = "t";
  d.nranks = 4;
  d.warmup = 2;
  d.iters = 3;
  d.split_cap = 65536;
  d.results.push_back({0, "bcast", "A", "basic", "float64", 2, "", 3, 4096, 6, 1.5, 2.25, 3.125, {1.5, 2.25, 3.125}, 2.3, true,
                                trace::DeviceWork{2, 1, 1, 0, 0, 1, 4096, 1, 4096, 0, 0}});
  d.results.push_back({1, "reduce", "A", "auto:neighbor", "int32", 1, "MPI_SUM", 1, 0, 0, 0.1, 0.2, 0.30000000000000004, {0.1, 0.2, 0.30000000000000004}, std::nullopt, false, std::nullopt});
  return d;
}

trace::SimulationDoc simulation() {
  trace::SimulationDoc d;
  d.provenance = kProvenance;
  d.trace = "t";
  d.machine = "generic";
  d.model = "flow";
  const trace::SimBreakdown b{1e-6, 2e-6, 0, 0, 1e-7, 0, 0, 3e-9};
  trace::SimOp o{0, "bcast A float64x1", 2, 4e-6, 2e-6, 8, 4, 1024, b, "latency 50%"};
  d.backends.push_back({"basic", 4e-6, 8, b, "latency 50%", {o}});
  o.per_call = 1e-6;
  d.backends.push_back({"neighbor", 2e-6, 8, b, "bandwidth 60%", {o}});
  d.ranking = trace::SimRanking{{"neighbor", "basic"}, "fewer messages", {{0, {"neighbor", "basic"}, "why not"}}};
  return d;
}

trace::ModelCheckDoc model_check() {
  trace::ModelCheckDoc d;
  d.machine = "calibrated:h";
  d.pairs = {{"t", 0, "bcast A", "basic", 10, 11, 0.1}, {"t", 0, "bcast A", "neighbor", 12, 9, -0.25}};
  d.ops = {{"t", 0, "basic", "neighbor", false}};
  d.by_backend = {{"basic", 1, 0.1, 0.1, "t", 0}, {"neighbor", 1, 0.25, -0.25, "t", 0}};
  d.summary_pairs = 2;
  d.summary_ops_ranked = 1;
  d.median_abs_error = 0.175;
  d.ranking_right = 0;
  d.provenance = kProvenance;
  return d;
}

// The message of the InputError `f` throws ("" when none).
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// Parses a written document, lets `edit` break it, and returns the reader's error.
template <class Doc, class Read>
std::string broken(const Doc& d, Read read, const std::function<void(Json&)>& edit) {
  Json j = trace::to_json(d);
  edit(j);
  return error_of([&] { read(j, "doc.json"); });
}

#define EXPECT_REFUSED(msg, ...)                                                     \
  do {                                                                               \
    const std::string m_ = (msg);                                                    \
    EXPECT_NE(m_, "") << "accepted";                                                 \
    for (const char* part : {__VA_ARGS__}) EXPECT_NE(m_.find(part), std::string::npos) << m_ << " lacks " << part; \
    EXPECT_EQ(m_.find('\n'), std::string::npos) << m_;                               \
  } while (0)

}  // namespace

TEST(ResultDocs, RoundTrips) {
  const auto t = timing();
  EXPECT_EQ(trace::timing_doc_from_json(Json::parse(trace::to_json(t).dump(1)), "t.json"), t);
  const auto s = simulation();
  EXPECT_EQ(trace::simulation_doc_from_json(Json::parse(trace::to_json(s).dump(1)), "s.json"), s);
  auto s0 = s;  // no backends: no ranking (written as null)
  s0.backends.clear();
  s0.ranking.reset();
  EXPECT_TRUE(trace::to_json(s0)["ranking"].is_null());
  EXPECT_EQ(trace::simulation_doc_from_json(trace::to_json(s0), "s.json"), s0);
  const auto m = model_check();
  EXPECT_EQ(trace::model_check_doc_from_json(Json::parse(trace::to_json(m).dump(2)), "m.json"), m);
  auto m0 = m;  // without provenance: none written
  m0.provenance = Json();
  EXPECT_FALSE(trace::to_json(m0).contains("provenance"));
  EXPECT_EQ(trace::model_check_doc_from_json(trace::to_json(m0), "m.json"), m0);
}

// runner.cpp's timing_json before the types (commit 0bd4d20), with the values it took from the
// trace and the timings: the typed writer gives the same text plus the members added since
// (samples_exact, mean_us), and the old text reads as the same document with their defaults.
TEST(ResultDocs, TimingTextIsTheOldWritersPlusTheAdditions) {
  const auto d = timing();
  Json results = Json::array(), added = Json::array();
  for (const auto& r : d.results) {
    results.push_back({{"index", r.index},
                       {"op", r.op},
                       {"sf", r.sf},
                       {"backend", r.backend},
                       {"unit", r.unit},
                       {"bs", static_cast<int>(r.bs)},
                       {"mpi_op", r.mpi_op},
                       {"repeat", r.repeat},
                       {"bytes", static_cast<long long>(r.bytes)},
                       {"messages", static_cast<long long>(r.messages)},
                       {"min_us", r.min_us},
                       {"median_us", r.median_us},
                       {"max_us", r.max_us},
                       {"samples_us", r.samples_us}});
    added.push_back(results.back());
    added.back()["samples_exact"] = r.samples_exact;
    added.back()["per_call_us"] = r.median_us / static_cast<double>(r.repeat);  // named per call: the median over `repeat` calls
    if (r.mean_us) added.back()["mean_us"] = *r.mean_us;
    if (r.device)
      added.back()["device"] = {{"launches", 2.0}, {"stream_syncs", 1.0}, {"event_syncs", 1.0}, {"device_syncs", 0.0}, {"memsets", 0.0}, {"h2d", 1.0},
                                {"h2d_bytes", 4096.0}, {"d2h", 1.0}, {"d2h_bytes", 4096.0}, {"d2d", 0.0}, {"d2d_bytes", 0.0}};
  }
  for (const std::int64_t split_cap : {std::int64_t{0}, std::int64_t{65536}}) {
    Json doc = {{"format", "sf-timing"}, {"version", 1},   {"trace", d.trace},           {"nranks", static_cast<int>(d.nranks)},
                {"warmup", 2},           {"iters", 3},     {"provenance", kProvenance}, {"results", results}};
    if (split_cap > 0) doc["split_cap"] = split_cap;
    auto typed = d;
    typed.split_cap = split_cap;
    Json now = doc;
    now["results"] = added;
    EXPECT_EQ(trace::to_json(typed).dump(1), now.dump(1));
    for (auto& r : typed.results) {
      r.mean_us.reset();
      r.samples_exact = true;
      r.device.reset();
    }
    EXPECT_EQ(trace::timing_doc_from_json(Json::parse(doc.dump(1)), "old.json"), typed);
  }
}

// Documents written before some members existed still read (their defaults).
TEST(ResultDocs, OlderDocumentsRead) {
  const Json result = {{"index", 0},   {"op", "bcast"}, {"sf", "A"},     {"backend", "basic"}, {"unit", "float64"}, {"bs", 1},
                       {"bytes", 8},   {"messages", 1}, {"min_us", 1}, {"median_us", 2},     {"max_us", 3}};
  const Json old = {{"format", "sf-timing"}, {"trace", "t"}, {"nranks", 2}, {"iters", 5}, {"results", Json::array({result})}};
  const auto t = trace::timing_doc_from_json(old, "old.json");
  EXPECT_TRUE(t.provenance.is_null());
  EXPECT_EQ(t.results.at(0).repeat, 1);
  EXPECT_TRUE(t.results.at(0).samples_us.empty());
  // A simulation without "format" (before it existed) and ops without per_call.
  const Json op = {{"index", 0}, {"total", 4e-6}, {"repeat", 2}};
  const Json backend = {{"backend", "basic"}, {"total", 4e-6}, {"messages", 2}, {"ops", Json::array({op})}};
  const Json sim = {{"trace", "t"}, {"machine", "m"}, {"model", "postal"}, {"backends", Json::array({backend})}};
  const auto s = trace::simulation_doc_from_json(sim, "old.json");
  EXPECT_FALSE(s.backends.at(0).ops.at(0).per_call.has_value());
  EXPECT_DOUBLE_EQ(s.backends.at(0).ops.at(0).per_call_us(), 2.0);
  EXPECT_FALSE(s.ranking.has_value());
}

TEST(ResultDocs, MalformedTimingIsRefused) {
  const auto d = timing();
  auto read = [](const Json& j, const std::string& f) { trace::timing_doc_from_json(j, f); };
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j["format"] = "sf-simulation"; }), "doc.json", "sf-simulation");
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j.erase("format"); }), "doc.json", "no \"format\"");
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j["version"] = 2; }), "doc.json", "/version");
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j.erase("trace"); }), "doc.json", "/trace", "missing");
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j["nranks"] = "4"; }), "doc.json", "/nranks", "an integer");
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j["results"] = Json::object(); }), "/results", "an array");
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j["results"][1].erase("median_us"); }), "/results/1/median_us", "missing");
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j["results"][0]["backend"] = 3; }), "/results/0/backend", "a string");
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j["results"][0]["index"] = -1; }), "/results/0/index", ">= 0");
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j["results"][0]["bytes"] = 1.5; }), "/results/0/bytes", "an integer");
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j["results"][0]["samples_us"][2] = -1; }), "/results/0/samples_us/2", ">= 0");
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j["results"][0]["mpi_op"] = 0; }), "/results/0/mpi_op", "a string");
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j["split_cap"] = "64k"; }), "/split_cap", "an integer");
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j["provenance"].erase("host"); }), "/provenance/host", "missing");
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j["provenance"]["trace_sha256"] = 1; }), "/provenance/trace_sha256");
}

TEST(ResultDocs, MalformedSimulationIsRefused) {
  const auto d = simulation();
  auto read = [](const Json& j, const std::string& f) { trace::simulation_doc_from_json(j, f); };
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j["format"] = "sf-timing"; }), "doc.json", "sf-timing");
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j.erase("backends"); }), "doc.json", "not a simulation result");
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j["version"] = "1"; }), "/version", "an integer");
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j.erase("model"); }), "/model", "missing");
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j["machine"] = 1; }), "/machine", "a string");
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j["backends"][1].erase("ops"); }), "/backends/1/ops", "missing");
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j["backends"][0]["total"] = "fast"; }), "/backends/0/total", "a number");
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j["backends"][0]["messages"] = -2; }), "/backends/0/messages", ">= 0");
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j["backends"][0]["ops"][0].erase("total"); }), "/backends/0/ops/0/total", "missing");
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j["backends"][1]["ops"][0]["per_call"] = true; }), "/backends/1/ops/0/per_call", "a number");
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j["backends"][0]["breakdown"]["latency"] = "x"; }), "/backends/0/breakdown/latency");
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j["ranking"]["order"][1] = 1; }), "/ranking/order/1", "a string");
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j["ranking"]["ops"][0].erase("order"); }), "/ranking/ops/0/order", "missing");
}

TEST(ResultDocs, MalformedModelCheckIsRefused) {
  const auto d = model_check();
  auto read = [](const Json& j, const std::string& f) { trace::model_check_doc_from_json(j, f); };
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j["format"] = "sf-timing"; }), "doc.json", "sf-timing");
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j.erase("format"); }), "doc.json", "no \"format\"");
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j.erase("summary"); }), "/summary", "missing");
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j["summary"].erase("median_abs_error"); }), "/summary/median_abs_error", "missing");
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j["pairs"][1]["predicted_us"] = "9"; }), "/pairs/1/predicted_us", "a number");
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j["pairs"][0].erase("trace"); }), "/pairs/0/trace", "missing");
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j["ops"][0]["right"] = 1; }), "/ops/0/right", "true or false");
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j["provenance"]["date"] = 0; }), "/provenance/date", "a string");
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j["summary"]["calibration_ring"] = 1.0; }), "/summary/calibration_ring", "an object");
  EXPECT_REFUSED(broken(d, read, [](Json& j) { j["summary"]["calibration_ring"] = {{"calibrated_us", 0.7}}; }),
                 "/summary/calibration_ring/now_us", "missing");
}
