#include "analysis/dashboard.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include "analysis/load_results.hpp"
#include "core/backends.hpp"
#include "core/environment.hpp"
#include "core/error.hpp"
#include "core/format.hpp"
#include "core/statistic.hpp"
#include "io/output_file.hpp"

#ifndef SFR_VENDOR_DIR
#define SFR_VENDOR_DIR ""
#endif

namespace sfr::analysis {

using Json = io::Json;
namespace fs = std::filesystem;

ResultSet collect_results(const std::vector<std::string>& paths) {
  ResultSet rs;
  for (const auto& f : result_files(paths)) {
    try {
      const Json j = io::parse_json_strict(io::read_text_file(f), f);
      const std::string format = j.is_object() && j.contains("format") && j["format"].is_string() ? j["format"].get<std::string>() : "";
      // Each kind is read through its type (trace/result_docs.hpp): the charts use the structs.
      if (format == trace::kTimingFormat)
        rs.timings.push_back(trace::timing_doc_from_json(j, f));
      else if (format == trace::kSimulationFormat)
        rs.simulations.push_back(trace::simulation_doc_from_json(j, f));
      else if (format == trace::kModelCheckFormat)
        rs.model_checks.push_back(trace::model_check_doc_from_json(j, f));
      else if (format == "sf-bench")
        rs.benches.push_back(load_bench_doc(f));
      else
        throw InputError(f, "(top level): not an sf-replay result document (sf-timing, sf-simulation, sf-model-check, sf-bench)");
    } catch (const InputError& e) {
      rs.skipped.push_back(e.what());
    }
  }
  return rs;
}

namespace {

// A member of a provenance object (trace/provenance.hpp; null in documents from before it).
std::string prov(const Json& p, const char* key, const std::string& fallback = "unknown") {
  if (p.is_object() && p.contains(key) && p[key].is_string()) return p[key].get<std::string>();
  return fallback;
}

std::string short_commit(const std::string& c) {
  if (c == "unknown") return c;
  const bool dirty = c.size() > 6 && c.compare(c.size() - 6, 6, "-dirty") == 0;
  return c.substr(0, 8) + (dirty ? "+" : "");
}

// The identity of a document's trace: its file's hash when known, else its name.
template <class Doc>
std::string trace_key(const Doc& doc) {
  const std::string sha = prov(doc.provenance, "trace_sha256", "");
  return sha.empty() ? "name:" + doc.trace : sha;
}

// A result's samples; documents from before samples were written: min, median and max.
std::vector<double> samples_of(const trace::TimingResult& r) {
  if (!r.samples_us.empty()) return r.samples_us;
  return {r.min_us, r.median_us, r.max_us};
}

// A timing result's backend as a series: "auto:basic" (auto, having chosen basic) is the series
// "auto"; `chose` is what it chose ("" for a fixed backend).
struct Series {
  std::string backend, chose;
};
Series series_of(const std::string& b) {
  const std::string chose = trace::auto_choice(b);
  return chose.empty() ? Series{b, ""} : Series{core::kAuto.name, chose};
}
std::string series_label(const Series& s) { return s.chose.empty() ? s.backend : s.backend + " (chose " + s.chose + ")"; }
// Two series that run the same backend's code: one is auto having chosen the other (or both auto
// having chosen the same).
bool same_code(const Series& a, const Series& b) {
  const std::string& ca = a.chose.empty() ? a.backend : a.chose;
  const std::string& cb = b.chose.empty() ? b.backend : b.chose;
  return ca == cb;
}

std::string op_label(const trace::TimingResult& r) { return "#" + std::to_string(r.index) + " " + r.op + " " + r.sf; }

// "commits a..b" (or "commit a") and "machines x, y" over some documents (their provenance objects).
std::string range_text(const std::vector<const Json*>& docs) {
  std::vector<std::pair<std::string, std::string>> by_date;  // (date, commit)
  std::set<std::string> hosts;
  for (const Json* d : docs) {
    by_date.push_back({prov(*d, "date"), short_commit(prov(*d, "commit"))});
    hosts.insert(prov(*d, "host"));
  }
  std::sort(by_date.begin(), by_date.end());
  std::string hs;
  for (const auto& h : hosts) hs += (hs.empty() ? "" : ", ") + h;
  std::string commits = by_date.empty() ? "no commit"
                        : by_date.front().second == by_date.back().second
                            ? "commit " + by_date.front().second
                            : "commits " + by_date.front().second + " .. " + by_date.back().second;
  return "machine " + hs + " · " + commits +
         (by_date.empty()
              ? ""
              : " · " + by_date.front().first.substr(0, 10) +
                    (by_date.back().first.substr(0, 10) != by_date.front().first.substr(0, 10) ? " .. " + by_date.back().first.substr(0, 10)
                                                                                               : ""));
}

Json base_spec(const std::string& title, const std::vector<std::string>& subtitle) {
  return {{"$schema", "https://vega.github.io/schema/vega-lite/v5.json"},
          {"title", {{"text", title}, {"subtitle", subtitle}, {"anchor", "start"}}},
          {"config", {{"font", "sans-serif"}, {"view", {{"stroke", "#ccc"}}}, {"legend", {{"labelLimit", 320}}}}}};
}

Json tooltip(std::initializer_list<std::pair<const char*, const char*>> fields) {
  Json t = Json::array();
  for (const auto& [f, type] : fields) t.push_back({{"field", f}, {"type", type}});
  return t;
}

// One colour per backend on every chart: the domain is every backend in the documents (sorted),
// the range colours that stay apart on white and for colour-blind readers (Okabe-Ito first, no
// yellow), repeated only past 12 backends.
Json backend_colors(const ResultSet& rs) {
  static const char* kPalette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
                                   "#000000", "#882255", "#44AA99", "#999933", "#332288", "#888888"};
  std::set<std::string> names;
  for (const auto& d : rs.timings)
    for (const auto& r : d.results) names.insert(series_of(r.backend).backend);
  for (const auto& mc : rs.model_checks)
    for (const auto& p : mc.pairs) names.insert(p.backend);
  Json domain = Json::array(), range = Json::array();
  std::size_t k = 0;
  for (const auto& n : names) {
    domain.push_back(n);
    range.push_back(kPalette[k++ % std::size(kPalette)]);
  }
  return {{"domain", domain}, {"range", range}};
}

struct TraceRuns {
  std::string name;
  std::vector<const trace::TimingDoc*> runs;  // oldest first
};

// The provenance objects of some runs (range_text).
std::vector<const Json*> provenances(const std::vector<const trace::TimingDoc*>& runs) {
  std::vector<const Json*> out;
  for (const auto* d : runs) out.push_back(&d->provenance);
  return out;
}

std::map<std::string, TraceRuns> timings_by_trace(const ResultSet& rs) {
  std::map<std::string, TraceRuns> out;
  for (const auto& d : rs.timings) {
    auto& t = out[trace_key(d)];
    t.name = d.trace;
    t.runs.push_back(&d);
  }
  for (auto& [k, t] : out)
    std::stable_sort(t.runs.begin(), t.runs.end(),
                     [](const trace::TimingDoc* a, const trace::TimingDoc* b) { return prov(a->provenance, "date") < prov(b->provenance, "date"); });
  return out;
}

// (op, series) -> (result, its document)
using ResultsByOp = std::map<std::pair<std::size_t, std::string>, std::pair<const trace::TimingResult*, const trace::TimingDoc*>>;

// The results of some runs (oldest first) by (op, series): a later run's result replaces an earlier one.
ResultsByOp results_of(const std::vector<const trace::TimingDoc*>& runs) {
  ResultsByOp out;
  for (const auto* d : runs)
    for (const auto& r : d->results) out[{r.index, series_of(r.backend).backend}] = {&r, d};
  return out;
}

// The newest result of each (op, backend) of a trace.
ResultsByOp latest_results(const TraceRuns& t) { return results_of(t.runs); }

Chart per_trace_chart(const std::string& id, const TraceRuns& t, const Json& colors) {
  Json rows = Json::array();
  std::vector<const Json*> docs;
  std::set<std::string> backends;
  std::set<std::size_t> ops;
  const auto latest = latest_results(t);
  // Per op, the backends fastest first (median; ties by name): the bars' order.
  std::map<std::size_t, std::vector<std::pair<double, std::string>>> order;
  for (const auto& [key, rd] : latest) order[key.first].push_back({rd.first->median_us, key.second});
  for (auto& [op, v] : order) std::sort(v.begin(), v.end());
  for (const auto& [key, rd] : latest) {
    const trace::TimingResult& r = *rd.first;
    const auto s = samples_of(r);
    const Series ser = series_of(r.backend);
    const auto& v = order[key.first];
    const auto rank = 1 + std::find_if(v.begin(), v.end(), [&](const auto& x) { return x.second == key.second; }) - v.begin();
    rows.push_back({{"op", op_label(r)},
                    {"index", key.first},
                    {"backend", key.second},
                    {"chose", ser.chose},
                    {"series", series_label(ser)},
                    {"rank", rank},
                    {"per_call_us", r.median_us},
                    {"repeat", r.repeat},
                    {"p25_us", core::quantile(s, 0.25)},
                    {"p75_us", core::quantile(s, 0.75)},
                    {"min_us", r.min_us},
                    {"max_us", r.max_us},
                    {"bytes", r.bytes},
                    {"messages", r.messages},
                    {"samples", s.size()},
                    {"commit", short_commit(prov(rd.second->provenance, "commit"))}});
    if (std::find(docs.begin(), docs.end(), &rd.second->provenance) == docs.end()) docs.push_back(&rd.second->provenance);
    backends.insert(key.second);
    ops.insert(key.first);
  }
  Json spec =
      base_spec("Time per op per backend: " + t.name,
                {range_text(docs),
                 "newest run of each op and backend, fastest first; bar: median over timed iterations, per call, whisker: 25th-75th percentile"});
  spec["data"] = {{"values", rows}};
  spec["width"] = std::max<std::size_t>(360, ops.size() * backends.size() * 16);
  spec["height"] = 260;
  spec["encoding"] = {{"x", {{"field", "op"}, {"type", "nominal"}, {"sort", {{"field", "index"}, {"op", "min"}}}, {"title", "op"}}},
                      {"xOffset", {{"field", "rank"}, {"type", "ordinal"}}},
                      {"color", {{"field", "backend"}, {"type", "nominal"}, {"scale", colors}}}};
  spec["layer"] = Json::array({{{"mark", "bar"},
                                {"encoding",
                                 {{"y", {{"field", "per_call_us"}, {"type", "quantitative"}, {"title", "time per call (us)"}}},
                                  {"tooltip", tooltip({{"op", "nominal"},
                                                       {"series", "nominal"},
                                                       {"rank", "quantitative"},
                                                       {"per_call_us", "quantitative"},
                                                       {"repeat", "quantitative"},
                                                       {"p25_us", "quantitative"},
                                                       {"p75_us", "quantitative"},
                                                       {"min_us", "quantitative"},
                                                       {"max_us", "quantitative"},
                                                       {"bytes", "quantitative"},
                                                       {"messages", "quantitative"},
                                                       {"samples", "quantitative"},
                                                       {"commit", "nominal"}})}}}},
                               {{"mark", {{"type", "rule"}, {"color", "#333"}}},
                                {"encoding", {{"y", {{"field", "p25_us"}, {"type", "quantitative"}}}, {"y2", {{"field", "p75_us"}}}}}}});
  return {id, "per-trace", "Time per op per backend: " + t.name, spec};
}

Chart message_size_chart(const std::string& id, const std::map<std::string, TraceRuns>& traces, const Json& colors) {
  Json rows = Json::array(), curve = Json::array();
  std::vector<const Json*> docs;
  for (const auto& [k, t] : traces) {
    std::map<std::pair<std::string, double>, std::vector<double>> by_size;  // (backend, bytes per message) -> medians
    for (const auto& [key, rd] : latest_results(t)) {
      const trace::TimingResult& r = *rd.first;
      const double msgs = static_cast<double>(r.messages);
      if (msgs <= 0 || r.bytes <= 0) continue;
      const double size = static_cast<double>(r.bytes) / msgs;
      rows.push_back({{"trace", t.name},
                      {"op", op_label(r)},
                      {"backend", key.second},
                      {"bytes_per_message", size},
                      {"per_call_us", r.median_us},
                      {"repeat", r.repeat},
                      {"messages", r.messages}});
      by_size[{key.second, size}].push_back(r.median_us);
      if (std::find(docs.begin(), docs.end(), &rd.second->provenance) == docs.end()) docs.push_back(&rd.second->provenance);
    }
    for (const auto& [bs, v] : by_size)
      curve.push_back({{"trace", t.name},
                       {"backend", bs.first},
                       {"series", traces.size() > 1 ? bs.first + " · " + t.name : bs.first},
                       {"bytes_per_message", bs.second},
                       {"per_call_us", core::quantile(v, 0.5)},
                       {"ops", v.size()}});
  }
  const bool one = traces.size() == 1;
  Json spec = base_spec("Time per op vs message size (OSU style)" + (one ? ": " + traces.begin()->second.name : std::string()),
                        {range_text(docs), std::to_string(traces.size()) +
                                               " trace(s); newest run of each op; x: bytes per message (all ranks); point: one op; "
                                               "line: per backend, the median over the ops of each message size"});
  spec["width"] = 560;
  spec["height"] = 320;
  const Json xe = {{"field", "bytes_per_message"}, {"type", "quantitative"}, {"scale", {{"type", "log"}}}, {"title", "bytes per message"}};
  const Json ye = {{"field", "per_call_us"}, {"type", "quantitative"}, {"scale", {{"type", "log"}}}, {"title", "median time per call (us)"}};
  const Json color = {{"field", "backend"}, {"type", "nominal"}, {"scale", colors}};
  Json points_enc = {{"x", xe},
                     {"y", ye},
                     {"color", color},
                     {"tooltip", tooltip({{"trace", "nominal"},
                                          {"op", "nominal"},
                                          {"backend", "nominal"},
                                          {"bytes_per_message", "quantitative"},
                                          {"messages", "quantitative"},
                                          {"per_call_us", "quantitative"}})}};
  if (!one) points_enc["shape"] = {{"field", "trace"}, {"type", "nominal"}};  // one trace: nothing to tell apart
  spec["layer"] =
      Json::array({{{"data", {{"values", curve}}},
                    {"mark", {{"type", "line"}, {"point", false}, {"strokeWidth", 2}}},
                    {"encoding", {{"x", xe}, {"y", ye}, {"color", color}, {"detail", {{"field", "series"}, {"type", "nominal"}}}}}},
                   {{"data", {{"values", rows}}},
                    {"mark", {{"type", "point"}, {"filled", true}, {"size", 50}, {"opacity", 0.7}}},
                    {"encoding", points_enc}}});
  return {id, "message-size", "Time per op vs message size", spec};
}

Chart model_chart(const std::string& id, const trace::ModelCheckDoc& mc, const Json& colors) {
  Json rows = Json::array();
  double lo = INFINITY, hi = 0;
  for (const auto& p : mc.pairs) {
    const double m = p.measured_us, q = p.predicted_us;
    if (!(m > 0) || !(q > 0)) continue;
    rows.push_back({{"trace", p.trace},
                    {"op", p.label},
                    {"backend", p.backend},
                    {"measured_us", m},
                    {"predicted_us", q},
                    {"error_pct", 100 * (q - m) / m}});
    lo = std::min({lo, m, q});
    hi = std::max({hi, m, q});
  }
  if (rows.empty()) lo = 1, hi = 10;
  const double e = mc.median_abs_error;
  Json diag = Json::array();
  for (double x : {lo / 1.5, hi * 1.5}) diag.push_back({{"x", x}, {"lo", x * (1 - std::min(e, 0.95))}, {"hi", x * (1 + e)}});
  char band[96];
  std::snprintf(band, sizeof band, "band: the model's median |error| (%.1f%%) around measured = predicted", 100 * e);
  Json spec = base_spec("Measured vs predicted on " + mc.machine, {range_text({&mc.provenance}), band});
  spec["width"] = 420;
  spec["height"] = 420;
  const Json xs = {{"type", "log"}}, axis_x = {{"field", "x"}, {"type", "quantitative"}, {"scale", xs}, {"title", "measured (us)"}};
  spec["layer"] = Json::array(
      {{{"data", {{"values", diag}}},
        {"mark", {{"type", "area"}, {"opacity", 0.25}, {"color", "#999"}}},
        {"encoding", {{"x", axis_x}, {"y", {{"field", "lo"}, {"type", "quantitative"}, {"scale", xs}}}, {"y2", {{"field", "hi"}}}}}},
       {{"data", {{"values", diag}}},
        {"mark", {{"type", "line"}, {"color", "#555"}, {"strokeDash", {4, 4}}}},
        {"encoding", {{"x", axis_x}, {"y", {{"field", "x"}, {"type", "quantitative"}, {"scale", xs}}}}}},
       {{"data", {{"values", rows}}},
        {"mark", {{"type", "point"}, {"filled", true}, {"size", 60}}},
        {"encoding",
         {{"x", {{"field", "measured_us"}, {"type", "quantitative"}, {"scale", xs}, {"title", "measured (us)"}}},
          {"y", {{"field", "predicted_us"}, {"type", "quantitative"}, {"scale", xs}, {"title", "predicted (us)"}}},
          {"color", {{"field", "backend"}, {"type", "nominal"}, {"scale", colors}}},
          {"shape", {{"field", "trace"}, {"type", "nominal"}}},
          {"tooltip", tooltip({{"trace", "nominal"},
                               {"op", "nominal"},
                               {"backend", "nominal"},
                               {"measured_us", "quantitative"},
                               {"predicted_us", "quantitative"},
                               {"error_pct", "quantitative"}})}}}}});
  return {id, "model", "Measured vs predicted on " + mc.machine, spec};
}

// The newest simulation of each (trace file, machine).
std::map<std::pair<std::string, std::string>, const trace::SimulationDoc*> newest_simulations(const ResultSet& rs) {
  std::map<std::pair<std::string, std::string>, const trace::SimulationDoc*> out;
  for (const auto& s : rs.simulations) {
    const trace::SimulationDoc*& cur = out[{trace_key(s), s.machine}];
    if (!cur || prov(cur->provenance, "date") <= prov(s.provenance, "date")) cur = &s;
  }
  return out;
}

// Per trace: the newest measured time of each op and backend next to every prediction of it: the
// newest simulation on each machine (a machine no model check of the trace was made for is a
// what-if) and validate-model's pairs, each with its error against its measurement. "auto" is
// compared with the prediction for the backend it chose.
Chart predicted_chart(const std::string& id, const std::string& key, const TraceRuns& t, const ResultSet& rs, const Json& colors) {
  Json rows = Json::array();
  std::vector<const Json*> docs;
  std::set<std::string> checked_machines;
  for (const auto& mc : rs.model_checks)
    for (const auto& p : mc.pairs)
      if (p.trace == t.name) checked_machines.insert(mc.machine);
  const auto latest = latest_results(t);
  for (const auto& [k, rd] : latest) {
    const trace::TimingResult& r = *rd.first;
    rows.push_back({{"op", op_label(r)},
                    {"index", k.first},
                    {"backend", k.second},
                    {"series", series_label(series_of(r.backend))},
                    {"source", "measured (" + prov(rd.second->provenance, "host") + ")"},
                    {"time_us", r.median_us},
                    {"measured_us", r.median_us}});
    if (std::find(docs.begin(), docs.end(), &rd.second->provenance) == docs.end()) docs.push_back(&rd.second->provenance);
  }
  for (const auto& [km, sim] : newest_simulations(rs)) {
    if (km.first != key) continue;
    const std::string machine = km.second;
    const std::string source = (checked_machines.count(machine) ? "predicted on " : "what-if on ") + machine;
    docs.push_back(&sim->provenance);
    for (const auto& [k, rd] : latest) {
      const trace::TimingResult& r = *rd.first;
      const Series ser = series_of(r.backend);
      const std::string ran = ser.chose.empty() ? ser.backend : ser.chose;
      for (const auto& b : sim->backends)
        if (b.backend == ran)
          for (const auto& op : b.ops)
            if (op.index == k.first) {
              const double q = op.per_call_us(), m = r.median_us;
              Json row = {{"op", op_label(r)}, {"index", k.first}, {"backend", k.second}, {"series", series_label(ser)},
                          {"source", source},  {"time_us", q},     {"measured_us", m}};
              if (m > 0) row["error_pct"] = 100 * (q - m) / m;
              row["which"] = row["source"].get<std::string>() + " · " + row["backend"].get<std::string>();  // one bar each, side by side
              rows.push_back(row);
            }
    }
  }
  for (const auto& mc : rs.model_checks)
    for (const auto& p : mc.pairs) {
      if (p.trace != t.name) continue;
      const double m = p.measured_us, q = p.predicted_us;
      const std::size_t op = p.op;
      std::string label = "#" + std::to_string(op) + " " + p.label;
      for (const auto& [k, rd] : latest)
        if (k.first == op) label = op_label(*rd.first);
      Json row = {{"op", label},
                  {"index", op},
                  {"backend", p.backend},
                  {"series", p.backend},
                  {"source", "model check on " + mc.machine},
                  {"time_us", q},
                  {"measured_us", m}};
      if (m > 0) row["error_pct"] = 100 * (q - m) / m;
      row["which"] = row["source"].get<std::string>() + " · " + row["backend"].get<std::string>();  // one bar each, side by side
      rows.push_back(row);
      if (std::find(docs.begin(), docs.end(), &mc.provenance) == docs.end()) docs.push_back(&mc.provenance);
    }
  Json spec = base_spec("Measured and predicted per op: " + t.name,
                        {range_text(docs),
                         "measured: newest run's median; predicted: newest simulation per machine (what-if: a machine "
                         "no model check was made for) and validate-model; error = (predicted - measured) / measured"});
  spec["data"] = {{"values", rows}};
  const Json x = {{"field", "op"}, {"type", "nominal"}, {"sort", {{"field", "index"}, {"op", "min"}}}, {"title", "op"}};
  const Json tip = tooltip({{"op", "nominal"},
                            {"series", "nominal"},
                            {"source", "nominal"},
                            {"time_us", "quantitative"},
                            {"measured_us", "quantitative"},
                            {"error_pct", "quantitative"}});
  std::set<std::size_t> ops;
  for (const auto& r : rows) ops.insert(r["index"].get<std::size_t>());
  const std::size_t width = std::max<std::size_t>(420, ops.size() * 40);
  spec["vconcat"] =
      Json::array({{{"width", width},
                    {"height", 260},
                    {"transform", Json::array({{{"filter", "datum.time_us > 0"}}})},  // a log axis: a zero would hide the rest
                    {"mark", {{"type", "point"}, {"filled", true}, {"size", 70}}},
                    {"encoding",
                     {{"x", x},
                      {"xOffset", {{"field", "backend"}, {"type", "nominal"}}},
                      {"y", {{"field", "time_us"}, {"type", "quantitative"}, {"scale", {{"type", "log"}}}, {"title", "time per call (us)"}}},
                      {"color", {{"field", "backend"}, {"type", "nominal"}, {"scale", colors}}},
                      {"shape", {{"field", "source"}, {"type", "nominal"}}},
                      {"tooltip", tip}}}},
                   {{"width", width},
                    {"height", 160},
                    {"transform", Json::array({{{"filter", "isValid(datum.error_pct)"}}})},
                    {"mark", "bar"},
                    {"encoding",
                     {{"x", x},
                      {"xOffset", {{"field", "which"}, {"type", "nominal"}}},
                      {"y", {{"field", "error_pct"}, {"type", "quantitative"}, {"title", "error (%)"}, {"stack", nullptr}}},
                      {"color", {{"field", "backend"}, {"type", "nominal"}, {"scale", colors}}},
                      {"opacity", {{"field", "source"}, {"type", "nominal"}, {"legend", {{"title", "error of"}}}}},
                      {"tooltip", tip}}}}});
  return {id, "predicted", "Measured and predicted per op: " + t.name, spec};
}

Chart history_chart(const std::string& id, const TraceRuns& t, const Json& colors) {
  Json rows = Json::array(), order = Json::array();
  for (std::size_t k = 0; k < t.runs.size(); ++k) {
    const trace::TimingDoc& d = *t.runs[k];
    const Json& pv = d.provenance;
    const std::string run = std::to_string(k + 1) + " " + short_commit(prov(pv, "commit")) + " " + prov(pv, "date").substr(5, 11);
    order.push_back(run);
    std::map<std::string, std::array<double, 4>> per_backend;  // median, p10, p90, ops: summed over ops
    for (const auto& r : d.results) {
      const auto s = samples_of(r);
      auto& a = per_backend[series_of(r.backend).backend];
      a[0] += r.median_us;
      a[1] += core::quantile(s, 0.10);
      a[2] += core::quantile(s, 0.90);
      a[3] += 1;
    }
    for (const auto& [b, a] : per_backend)
      rows.push_back({{"run", run},
                      {"backend", b},
                      {"sum_per_call_us", a[0]},
                      {"p10_us", a[1]},
                      {"p90_us", a[2]},
                      {"ops", a[3]},
                      {"commit", prov(pv, "commit")},
                      {"date", prov(pv, "date")},
                      {"host", prov(pv, "host")}});
  }
  Json spec = base_spec("History over commits: " + t.name,
                        {range_text(provenances(t.runs)), "line: sum over ops of the median time per call; band: sum of 10th-90th percentiles (noise)"});
  spec["data"] = {{"values", rows}};
  spec["width"] = std::max<std::size_t>(360, t.runs.size() * 70);
  spec["height"] = 260;
  spec["encoding"] = {
      {"x", {{"field", "run"}, {"type", "ordinal"}, {"sort", order}, {"title", "run (commit, date)"}, {"axis", {{"labelAngle", -30}}}}},
      {"color", {{"field", "backend"}, {"type", "nominal"}, {"scale", colors}}}};
  // The legend is the lines' (full colour), not the faint band's.
  spec["layer"] = Json::array({{{"mark", {{"type", "errorband"}, {"opacity", 0.12}}},
                                {"encoding",
                                 {{"y", {{"field", "p10_us"}, {"type", "quantitative"}, {"title", "time of all ops (us)"}}},
                                  {"y2", {{"field", "p90_us"}}},
                                  {"color", {{"field", "backend"}, {"type", "nominal"}, {"scale", colors}, {"legend", nullptr}}}}}},
                               {{"mark", {{"type", "line"}, {"point", {{"filled", true}, {"size", 50}}}, {"strokeWidth", 2.5}}},
                                {"encoding",
                                 {{"y", {{"field", "sum_per_call_us"}, {"type", "quantitative"}}},
                                  {"tooltip", tooltip({{"run", "nominal"},
                                                       {"backend", "nominal"},
                                                       {"sum_per_call_us", "quantitative"},
                                                       {"p10_us", "quantitative"},
                                                       {"p90_us", "quantitative"},
                                                       {"ops", "quantitative"},
                                                       {"commit", "nominal"},
                                                       {"host", "nominal"}})}}}}});
  return {id, "history", "History over commits: " + t.name, spec};
}

std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

// Per trace, per op: backends by measured median in the newest run alone (a ranking never mixes
// runs), and the simulator's order from the newest simulation of the same trace file.
std::string ranking_tables(const ResultSet& rs, const std::map<std::string, TraceRuns>& traces) {
  std::map<std::string, const trace::SimulationDoc*> newest_sim;
  for (const auto& s : rs.simulations) {
    const trace::SimulationDoc*& cur = newest_sim[trace_key(s)];
    if (!cur || prov(cur->provenance, "date") <= prov(s.provenance, "date")) cur = &s;
  }
  std::ostringstream o;
  for (const auto& [key, t] : traces) {
    std::map<std::size_t, std::vector<std::pair<double, Series>>> by_op;
    std::map<std::size_t, std::string> labels;
    const std::vector<const trace::TimingDoc*> docs = {t.runs.back()};
    for (const auto& [k, rd] : results_of(docs)) {
      by_op[k.first].push_back({rd.first->median_us, series_of(rd.first->backend)});
      labels[k.first] = op_label(*rd.first);
    }
    const auto sim = newest_sim.find(key);
    o << "<h3>Backend ranking: " << esc(t.name) << "</h3>\n<p class=\"sub\">" << esc(range_text(provenances(docs)))
      << (sim != newest_sim.end() ? " · predicted on " + esc(sim->second->machine)
                                  : std::string(" · no simulation of this trace"))
      << "</p>\n<table class=\"rank\"><tr><th>op</th><th>measured in the newest run, fastest first (median us per call)</th><th>winner's "
         "margin</th><th>predicted "
         "order</th></tr>\n";
    for (auto& [op, v] : by_op) {
      std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return std::pair(a.first, series_label(a.second)) < std::pair(b.first, series_label(b.second)); });
      std::string measured, margin = "-", predicted = "-";
      for (const auto& [us, s] : v) measured += (measured.empty() ? "" : " &lt; ") + esc(series_label(s)) + " " + core::format_number("%.2f", us);
      // The winner's margin is to the next other implementation: auto that chose basic and basic
      // run the same code, so neither is the other's runner-up.
      const auto runner_up = std::find_if(v.begin() + (v.empty() ? 0 : 1), v.end(), [&](const auto& x) { return !same_code(x.second, v[0].second); });
      if (runner_up != v.end() && v[0].first > 0)
        margin = "+" + core::format_number("%.2f", 100 * (runner_up->first / v[0].first - 1)) + "% to " + esc(series_label(runner_up->second));
      if (sim != newest_sim.end() && sim->second->ranking) {
        for (const auto& ro : sim->second->ranking->ops)
          if (ro.index == op && !ro.order.empty()) {
            predicted.clear();
            for (const auto& b : ro.order) predicted += (predicted.empty() ? "" : " &lt; ") + esc(b);
          }
      }
      o << "<tr><td>" << esc(labels[op]) << "</td><td>" << measured << "</td><td>" << margin << "</td><td>" << predicted << "</td></tr>\n";
    }
    o << "</table>\n";
  }
  if (!rs.benches.empty()) {
    o << "<h3>Benchmark results</h3>\n<table class=\"rank\"><tr><th>benchmark</th><th>commit</th><th>date</th><th>machine</th></tr>\n";
    for (const auto& b : rs.benches)
      o << "<tr><td>" << esc(b.value("benchmark", prov(b.at("provenance"), "command"))) << "</td><td>"
        << esc(short_commit(prov(b.at("provenance"), "commit"))) << "</td><td>" << esc(prov(b.at("provenance"), "date")) << "</td><td>"
        << esc(prov(b.at("provenance"), "host")) << "</td></tr>\n";
    o << "</table>\n";
  }
  return o.str();
}

// Every chart, ranking and error compares ops per call: a captured op record stands for `repeat`
// calls, its measured iteration for all of them, and the simulator predicts one.
ResultSet per_call(ResultSet rs) {
  for (auto& doc : rs.timings)
    for (auto& r : doc.results) r = trace::per_call(std::move(r));
  return rs;
}

}  // namespace

DashboardContent build_dashboard(const ResultSet& measured) {
  const ResultSet rs = per_call(measured);
  DashboardContent d;
  const auto traces = timings_by_trace(rs);
  const Json colors = backend_colors(rs);
  int n = 0;
  auto next_id = [&] { return "chart-" + std::to_string(++n); };
  for (const auto& [k, t] : traces) d.charts.push_back(per_trace_chart(next_id(), t, colors));
  for (const auto& [k, t] : traces) {
    bool predicted = false;
    for (const auto& s : rs.simulations) predicted = predicted || trace_key(s) == k;
    for (const auto& mc : rs.model_checks)
      for (const auto& p : mc.pairs) predicted = predicted || p.trace == t.name;
    if (predicted) d.charts.push_back(predicted_chart(next_id(), k, t, rs, colors));
  }
  if (!traces.empty()) d.charts.push_back(message_size_chart(next_id(), traces, colors));
  for (const auto& mc : rs.model_checks) d.charts.push_back(model_chart(next_id(), mc, colors));
  for (const auto& [k, t] : traces) d.charts.push_back(history_chart(next_id(), t, colors));
  d.tables_html = ranking_tables(rs, traces);
  std::ostringstream s;
  s << "<p>" << rs.documents() << " result document(s): " << rs.timings.size() << " timing, " << rs.simulations.size() << " simulation, "
    << rs.model_checks.size() << " model check, " << rs.benches.size() << " benchmark; " << traces.size() << " trace(s).</p>\n";
  if (!rs.skipped.empty()) {
    s << "<details><summary>" << rs.skipped.size() << " file(s) skipped</summary><ul>\n";
    for (const auto& why : rs.skipped) s << "<li>" << esc(why) << "</li>\n";
    s << "</ul></details>\n";
  }
  d.summary_html = s.str();
  return d;
}

std::string render_dashboard_html(const DashboardContent& d, const ResultSet&) {
  Json charts = Json::array();
  for (const auto& c : d.charts) charts.push_back({{"id", c.id}, {"spec", c.spec}});
  // '<' never appears outside strings in JSON; escaping it keeps "</script>" out of the page.
  std::string data = charts.dump();
  std::string safe;
  for (char c : data) safe += c == '<' ? std::string("\\u003c") : std::string(1, c);
  std::ostringstream o;
  o << R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>sf-replay dashboard</title>
<script>
// Errors and console.error calls are counted (the browser test reads them from <body>).
window.sfrErrors = [];
window.addEventListener('error', function (e) { window.sfrErrors.push(String(e.message || e)); });
(function () { var orig = console.error; console.error = function () { window.sfrErrors.push(Array.prototype.join.call(arguments, ' ')); orig.apply(console, arguments); }; })();
</script>
<script src="vendor/vega.min.js"></script>
<script src="vendor/vega-lite.min.js"></script>
<script src="vendor/vega-embed.min.js"></script>
<style>
body { font-family: sans-serif; margin: 1.5em 2em; color: #222; }
h2 { border-bottom: 1px solid #ddd; padding-bottom: .2em; margin-top: 1.6em; }
.chart { margin: 1em 0 2em 0; }
.sub { color: #666; font-size: 90%; margin-top: -.6em; }
table.rank { border-collapse: collapse; font-size: 90%; margin-bottom: 1.5em; }
table.rank td, table.rank th { border: 1px solid #ddd; padding: .25em .6em; text-align: left; }
#sfr-status { color: #666; font-size: 85%; }
</style></head>
<body data-rendered="0" data-errors="0">
<h1>sf-replay dashboard</h1>
)" << d.summary_html
    << R"(<p id="sfr-status">rendering...</p>
)";
  const std::vector<std::pair<std::string, std::string>> sections = {{"per-trace", "Time per op per backend"},
                                                                     {"predicted", "Measured and predicted per op"},
                                                                     {"message-size", "Time vs message size"},
                                                                     {"model", "Measured vs predicted"},
                                                                     {"history", "History over commits"}};
  for (const auto& [sec, heading] : sections) {
    bool any = false;
    for (const auto& c : d.charts)
      if (c.section == sec) {
        if (!any) o << "<h2>" << heading << "</h2>\n";
        any = true;
        o << "<div class=\"chart\" id=\"" << c.id << "\" title=\"" << esc(c.title) << "\"></div>\n";
      }
  }
  o << "<h2>Backend rankings</h2>\n" << (d.tables_html.empty() ? "<p>No timing results.</p>\n" : d.tables_html);
  o << R"(<script id="sfr-charts" type="application/json">)" << safe << R"(</script>
<script>
(function () {
  var status = document.getElementById('sfr-status');
  var charts = JSON.parse(document.getElementById('sfr-charts').textContent);
  var done = function (n) {
    document.body.setAttribute('data-rendered', String(n));
    document.body.setAttribute('data-errors', String(window.sfrErrors.length));
    status.textContent = 'rendered ' + n + ' of ' + charts.length + ' charts; ' + window.sfrErrors.length + ' error(s)' +
      (window.sfrErrors.length ? ': ' + window.sfrErrors.join(' | ') : '');
  };
  if (typeof vegaEmbed !== 'function') { window.sfrErrors.push('vega-embed did not load (vendor/ missing?)'); done(0); return; }
  Promise.all(charts.map(function (c) {
    return vegaEmbed('#' + c.id, c.spec, {renderer: 'svg', actions: false}).then(function () { return 1; },
      function (e) { window.sfrErrors.push(c.id + ': ' + e); return 0; });
  })).then(function (ok) { done(ok.reduce(function (a, b) { return a + b; }, 0)); });
})();
</script>
</body></html>
)";
  return o.str();
}

namespace {
const char* kVendorScripts[] = {"vega.min.js", "vega-lite.min.js", "vega-embed.min.js"};
bool has_vendor(const fs::path& dir) {
  std::error_code ec;
  for (const char* f : kVendorScripts)
    if (!fs::is_regular_file(dir / f, ec)) return false;
  return true;
}
}  // namespace

std::string find_vendor_dir() {
  std::vector<fs::path> tried;
  if (const char* env = core::env_value(core::Env::vega_dir)) {
    if (has_vendor(env)) return env;
    throw InputError(core::env_name(core::Env::vega_dir), std::string("'") + env + "' does not hold vega.min.js, vega-lite.min.js and vega-embed.min.js");
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) tried.push_back(exe.parent_path().parent_path() / "share" / "sf-replay" / "vendor");
  tried.push_back(SFR_VENDOR_DIR);
  for (const auto& p : tried)
    if (!p.empty() && has_vendor(p)) return p.string();
  throw InputError("dashboard",
                   "the charting library (vega, vega-lite, vega-embed) is not found: set SFR_VEGA_DIR to a folder with its "
                   "*.min.js (the source tree's reports/vendor/dist)");
}

void write_site(const std::string& site, const std::string& html, const std::string& vendor_dir) {
  std::error_code ec;
  const fs::path target(site);
  if (fs::exists(target, ec)) {
    if (!fs::is_directory(target, ec)) throw InputError("--output", "'" + site + "' exists and is not a folder");
    for (const auto& e : fs::directory_iterator(target, ec)) {
      const auto name = e.path().filename().string();
      if (name != "index.html" && name != "vendor")
        throw InputError("--output", "'" + site + "' holds other files (" + name + "): not an earlier dashboard; choose another folder");
    }
  }
  const fs::path parent = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  if (!fs::is_directory(parent, ec)) throw InputError("--output", "folder '" + parent.string() + "' does not exist");
  const fs::path tmp = parent / ("." + target.filename().string() + ".tmp." + std::to_string(::getpid()));
  fs::remove_all(tmp, ec);
  try {
    fs::create_directories(tmp / "vendor");
    for (const char* f : kVendorScripts) fs::copy_file(fs::path(vendor_dir) / f, tmp / "vendor" / f);
    // Licences and the version list travel with the scripts.
    for (const auto& e : fs::directory_iterator(vendor_dir)) {
      const auto name = e.path().filename().string();
      if (name.rfind("LICENSE", 0) == 0 || name == "VERSIONS") fs::copy_file(e.path(), tmp / "vendor" / name);
    }
    io::write_file_atomic((tmp / "index.html").string(), html);
    fs::remove_all(target, ec);
    fs::rename(tmp, target);
  } catch (const fs::filesystem_error& e) {
    fs::remove_all(tmp, ec);
    throw InputError(site, std::string("cannot write the site: ") + e.code().message());
  } catch (...) {
    fs::remove_all(tmp, ec);
    throw;
  }
}

}  // namespace sfr::analysis
