// Dashboard content from hand-made result documents: which files are skipped, which run each chart
// shows (the newest per op and backend; every run in the history, summed per backend), the model
// chart's error band, escaping of names in the page, and how the site is written.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <vector>

#include "analysis/dashboard.hpp"
#include "core/error.hpp"
#include "support/process.hpp"
#include "trace/provenance.hpp"

using namespace sfr;
using Json = io::Json;
namespace fs = std::filesystem;

namespace {

Json timing(const std::string& date, const std::string& commit, double basic_us, double neighbor_us, const std::string& name = "t") {
  Json d = {{"format", "sf-timing"},
            {"version", 1},
            {"trace", name},
            {"nranks", 2},
            {"iters", 3},
            {"provenance", {{"commit", commit}, {"date", date}, {"host", "h1"}, {"trace_sha256", "abc"}}},
            {"results", Json::array()}};
  for (int op = 0; op < 2; ++op)
    for (const auto& [b, us] : {std::pair<std::string, double>{"basic", basic_us}, {"neighbor", neighbor_us}})
      d["results"].push_back({{"index", op},
                              {"op", "bcast"},
                              {"sf", "A"},
                              {"backend", b},
                              {"unit", "float64"},
                              {"bs", 1},
                              {"bytes", 800},
                              {"messages", 2},
                              {"min_us", us * (1 + op) - 1},
                              {"median_us", us * (1 + op)},
                              {"max_us", us * (1 + op) + 1},
                              {"samples_us", {us * (1 + op) - 1, us * (1 + op), us * (1 + op) + 1}}});
  return d;
}

// The hand-made documents above, read through their types as the dashboard reads files.
std::vector<trace::TimingDoc> T(const std::vector<Json>& js) {
  std::vector<trace::TimingDoc> out;
  for (const auto& j : js) out.push_back(trace::timing_doc_from_json(j, "test"));
  return out;
}
std::vector<trace::SimulationDoc> S(const std::vector<Json>& js) {
  std::vector<trace::SimulationDoc> out;
  for (const auto& j : js) out.push_back(trace::simulation_doc_from_json(j, "test"));
  return out;
}
trace::ModelCheckDoc M(const Json& j) { return trace::model_check_doc_from_json(j, "test"); }

struct TempDir {
  fs::path p = fs::temp_directory_path() / ("sfr_dash_unit_" + std::to_string(::getpid()));
  TempDir() {
    fs::remove_all(p);
    fs::create_directories(p);
  }
  ~TempDir() { fs::remove_all(p); }
  void put(const std::string& name, const std::string& text) const { std::ofstream(p / name) << text; }
};

const analysis::Chart& chart(const analysis::DashboardContent& d, const std::string& section, std::size_t k = 0) {
  for (const auto& c : d.charts)
    if (c.section == section && k-- == 0) return c;
  throw std::runtime_error("no chart " + section);
}

}  // namespace

TEST(Dashboard, CollectSkipsMalformedForeignAndInvalidFiles) {
  TempDir t;
  t.put("a.json", timing("2026-01-02T00:00:00Z", "c2", 10, 12).dump());
  t.put("b.json", "{\"format\": \"sf-timing\",\n");
  t.put("c.json", "[1, 2]");
  Json bad = timing("2026-01-02T00:00:00Z", "c2", 10, 12);
  bad["results"][1]["median_us"] = "slow";
  t.put("d.json", bad.dump());
  t.put("notes.txt", "not json, not looked at");
  const auto rs = analysis::collect_results({t.p.string()});
  EXPECT_EQ(rs.timings.size(), 1u);
  ASSERT_EQ(rs.skipped.size(), 3u);
  EXPECT_NE(rs.skipped[0].find("b.json:"), std::string::npos) << rs.skipped[0];
  EXPECT_NE(rs.skipped[1].find("c.json: (top level)"), std::string::npos) << rs.skipped[1];
  EXPECT_NE(rs.skipped[2].find("d.json: /results/1/median_us"), std::string::npos) << rs.skipped[2];
}

TEST(Dashboard, ChartsShowTheNewestRunAndTheWholeHistory) {
  analysis::ResultSet rs;
  // Filed out of date order: the newest (c3) must win in the per-op chart.
  rs.timings = T({timing("2026-01-03T00:00:00Z", "c3", 20, 30), timing("2026-01-01T00:00:00Z", "c1", 10, 12),
                timing("2026-01-02T00:00:00Z", "c2", 11, 13)});
  const auto d = analysis::build_dashboard(rs);
  EXPECT_EQ(d.charts.size(), 3u);  // per trace, message size, history
  const auto& per = chart(d, "per-trace").spec["data"]["values"];
  ASSERT_EQ(per.size(), 4u);
  for (const auto& row : per) {
    const double base = row["backend"] == "basic" ? 20 : 30;
    EXPECT_DOUBLE_EQ(row["per_call_us"].get<double>(), base * (1 + row["index"].get<int>())) << row.dump();
    EXPECT_EQ(row["commit"], "c3");
  }
  const auto& hist = chart(d, "history");
  const auto& rows = hist.spec["data"]["values"];
  ASSERT_EQ(rows.size(), 6u);  // 3 runs x 2 backends
  // Oldest first; per run and backend, the sum over both ops: us * 1 + us * 2.
  const double want[3][2] = {{30, 36}, {33, 39}, {60, 90}};
  for (std::size_t k = 0; k < rows.size(); ++k) {
    EXPECT_DOUBLE_EQ(rows[k]["sum_per_call_us"].get<double>(), want[k / 2][rows[k]["backend"] == "basic" ? 0 : 1]) << rows[k].dump();
    EXPECT_LE(rows[k]["p10_us"].get<double>(), rows[k]["sum_per_call_us"].get<double>());
    EXPECT_GE(rows[k]["p90_us"].get<double>(), rows[k]["sum_per_call_us"].get<double>());
  }
  EXPECT_EQ(hist.spec["encoding"]["x"]["sort"][0].get<std::string>().substr(0, 4), "1 c1");
  EXPECT_NE(hist.spec["title"]["subtitle"][0].get<std::string>().find("commits c1 .. c3"), std::string::npos) << hist.spec["title"].dump();
  const auto& osu = chart(d, "message-size").spec["layer"][1]["data"]["values"];
  ASSERT_EQ(osu.size(), 4u);
  EXPECT_DOUBLE_EQ(osu[0]["bytes_per_message"].get<double>(), 400);
}

TEST(Dashboard, ModelChartBandIsTheMedianError) {
  analysis::ResultSet rs;
  rs.model_checks.push_back(M(
      {{"format", "sf-model-check"},
       {"machine", "m"},
       {"pairs", {{{"trace", "t"}, {"op", 0}, {"label", "bcast A"}, {"backend", "basic"}, {"measured_us", 10}, {"predicted_us", 12}}}},
       {"summary", {{"median_abs_error", 0.2}}}}));
  const auto d = analysis::build_dashboard(rs);
  ASSERT_EQ(d.charts.size(), 1u);
  const auto& band = d.charts[0].spec["layer"][0]["data"]["values"];
  for (const auto& p : band) {
    EXPECT_NEAR(p["lo"].get<double>(), 0.8 * p["x"].get<double>(), 1e-9);
    EXPECT_NEAR(p["hi"].get<double>(), 1.2 * p["x"].get<double>(), 1e-9);
  }
  EXPECT_NEAR(d.charts[0].spec["layer"][2]["data"]["values"][0]["error_pct"].get<double>(), 20, 1e-9);
}

TEST(Dashboard, NamesAreEscapedInThePage) {
  analysis::ResultSet rs;
  rs.timings = T({timing("2026-01-01T00:00:00Z", "c1", 10, 12, "</script><b>x&y")});
  const auto d = analysis::build_dashboard(rs);
  const auto html = analysis::render_dashboard_html(d, rs);
  EXPECT_EQ(html.find("</script><b>"), std::string::npos);
  EXPECT_NE(html.find("&lt;/script&gt;&lt;b&gt;x&amp;y"), std::string::npos);  // in the ranking table
  // The chart data still carries the name (as \u003c inside the JSON).
  EXPECT_NE(html.find("\\u003c/script>\\u003cb>x&y"), std::string::npos);
}

TEST(Dashboard, SiteIsWrittenWholeAndNeverOverAForeignFolder) {
  TempDir t;
  const fs::path vendor = t.p / "vendor-src";
  fs::create_directories(vendor);
  for (const char* f : {"vega.min.js", "vega-lite.min.js", "vega-embed.min.js", "LICENSE-vega-lite", "VERSIONS"})
    std::ofstream(vendor / f) << "// " << f;
  const fs::path site = t.p / "site";
  analysis::write_site(site.string(), "<html>1</html>", vendor.string());
  EXPECT_EQ(sfr_test::slurp(site / "index.html"), "<html>1</html>");
  for (const char* f : {"vega.min.js", "vega-lite.min.js", "vega-embed.min.js", "LICENSE-vega-lite", "VERSIONS"})
    EXPECT_EQ(sfr_test::slurp(site / "vendor" / f), std::string("// ") + f);
  analysis::write_site(site.string(), "<html>2</html>", vendor.string());  // an earlier dashboard is replaced
  EXPECT_EQ(sfr_test::slurp(site / "index.html"), "<html>2</html>");
  std::ofstream(site / "mine.txt") << "keep";
  EXPECT_THROW(analysis::write_site(site.string(), "<html>3</html>", vendor.string()), InputError);
  EXPECT_EQ(sfr_test::slurp(site / "index.html"), "<html>2</html>");
  // A vendor folder without the scripts: nothing is written, no temporary is left.
  const fs::path site2 = t.p / "site2";
  EXPECT_THROW(analysis::write_site(site2.string(), "x", (t.p / "nothing").string()), InputError);
  EXPECT_FALSE(fs::exists(site2));
  for (const auto& e : fs::directory_iterator(t.p)) EXPECT_EQ(e.path().filename().string().find(".site2.tmp"), std::string::npos);
  ::setenv("SFR_VEGA_DIR", (t.p / "nothing").c_str(), 1);
  EXPECT_THROW(analysis::find_vendor_dir(), InputError);
  ::setenv("SFR_VEGA_DIR", vendor.c_str(), 1);
  EXPECT_EQ(analysis::find_vendor_dir(), vendor.string());
  ::unsetenv("SFR_VEGA_DIR");
}

// The checked-in charting library is what reports/vendor/update.sh recorded (sha256 per file).
TEST(Dashboard, VendoredScriptsMatchTheirRecordedHashes) {
  const fs::path dist = fs::path(SFR_TRACES_DIR) / ".." / "reports" / "vendor" / "dist";
  std::ifstream in(dist / "VERSIONS");
  ASSERT_TRUE(in) << dist;
  std::string line;
  std::size_t checked = 0;
  while (std::getline(in, line)) {
    const auto dot = line.find("./");
    if (line.size() < 70 || dot == std::string::npos) continue;
    const std::string sha = line.substr(2, 64), file = line.substr(dot + 2);
    EXPECT_EQ(trace::sha256_file((dist / file).string()), sha) << file;
    ++checked;
  }
  EXPECT_EQ(checked, 3u);
}

namespace {

// A simulation of trace file "abc" on `machine`: op k of backend b takes per_call[b][k] seconds.
Json simulation(const std::string& machine, const std::map<std::string, std::vector<double>>& per_call) {
  Json d = {{"format", "sf-simulation"},
            {"version", 1},
            {"trace", "t"},
            {"machine", machine},
            {"model", "max-rate"},
            {"provenance", {{"commit", "s1"}, {"date", "2026-01-05T00:00:00Z"}, {"host", "h1"}, {"trace_sha256", "abc"}}},
            {"backends", Json::array()}};
  for (const auto& [b, v] : per_call) {
    Json ops = Json::array();
    for (std::size_t k = 0; k < v.size(); ++k) ops.push_back({{"index", k}, {"repeat", 2}, {"total", 2 * v[k]}, {"per_call", v[k]}});
    d["backends"].push_back({{"backend", b}, {"total", 0.0}, {"messages", 2}, {"ops", ops}});
  }
  return d;
}

const Json* row_of(const Json& rows, std::size_t index, const std::string& backend, const std::string& source) {
  for (const auto& r : rows)
    if (r["index"] == index && r["backend"] == backend && r["source"] == source) return &r;
  return nullptr;
}

}  // namespace

// Predicted next to measured, per op and backend: a simulation on the machine validate-model was
// run for ("predicted on m"), one on another machine ("what-if on big"), validate-model's own
// pairs; each with its error against the measured median (numbers from the documents above).
TEST(Dashboard, PredictedNextToMeasuredWithTheErrorAndWhatIf) {
  analysis::ResultSet rs;
  rs.timings = T({timing("2026-01-01T00:00:00Z", "c1", 10, 20)});  // op 0: basic 10, neighbor 20; op 1: 20, 40
  rs.simulations = S({simulation("m", {{"basic", {12e-6, 15e-6}}, {"neighbor", {5e-6, 30e-6}}}),
                    simulation("big", {{"basic", {1e-6, 2e-6}}, {"neighbor", {4e-6, 8e-6}}})});
  rs.model_checks.push_back(M(
      {{"format", "sf-model-check"},
       {"machine", "m"},
       {"pairs", {{{"trace", "t"}, {"op", 1}, {"label", "bcast A"}, {"backend", "neighbor"}, {"measured_us", 50}, {"predicted_us", 25}}}},
       {"summary", {{"median_abs_error", 0.5}}}}));
  const auto d = analysis::build_dashboard(rs);
  const auto& c = chart(d, "predicted");
  const auto& rows = c.spec["data"]["values"];
  const Json* m = row_of(rows, 0, "basic", "measured (h1)");
  ASSERT_TRUE(m);
  EXPECT_DOUBLE_EQ((*m)["time_us"].get<double>(), 10);
  const Json* p = row_of(rows, 0, "basic", "predicted on m");
  ASSERT_TRUE(p) << rows.dump();
  EXPECT_NEAR((*p)["time_us"].get<double>(), 12, 1e-9);
  EXPECT_NEAR((*p)["error_pct"].get<double>(), 20, 1e-9);
  p = row_of(rows, 1, "neighbor", "predicted on m");
  ASSERT_TRUE(p);
  EXPECT_NEAR((*p)["error_pct"].get<double>(), -25, 1e-9);  // 30 vs 40
  const Json* w = row_of(rows, 1, "basic", "what-if on big");
  ASSERT_TRUE(w) << rows.dump();
  EXPECT_NEAR((*w)["time_us"].get<double>(), 2, 1e-9);
  EXPECT_NEAR((*w)["error_pct"].get<double>(), -90, 1e-9);  // 2 vs 20
  const Json* mc = row_of(rows, 1, "neighbor", "model check on m");
  ASSERT_TRUE(mc);
  EXPECT_NEAR((*mc)["time_us"].get<double>(), 25, 1e-9);
  EXPECT_NEAR((*mc)["error_pct"].get<double>(), -50, 1e-9);  // against its own measurement, 50
  EXPECT_EQ(rows.size(), 4u + 4u + 4u + 1u);                 // measured, two machines, one pair
  // The error panel draws error_pct, one bar per op and prediction side by side (never stacked:
  // a stack would show -25% and -90% as -115%).
  const auto& err = c.spec["vconcat"][1]["encoding"];
  EXPECT_EQ(err["y"]["field"], "error_pct");
  EXPECT_TRUE(err["y"].contains("stack") && err["y"]["stack"].is_null()) << err.dump();
  std::set<std::pair<int, std::string>> bars;
  std::size_t with_error = 0;
  for (const auto& r : rows)
    if (r.contains("error_pct")) {
      ++with_error;
      bars.insert({r["index"].get<int>(), r[err["xOffset"]["field"].get<std::string>()].get<std::string>()});
    }
  EXPECT_EQ(with_error, 9u);
  EXPECT_EQ(bars.size(), with_error);
}

// A captured op record stands for `repeat` calls: its measured iteration (2,000 calls of 10.5 us)
// is 21,000 us, the simulator predicts one call. Every chart, ranking and error is per call: the
// prediction of 10.5 us is right (error 0, not -99.95 %), the bar is 10.5 us, the history sums
// calls, and the ranking's numbers are per call.
TEST(Dashboard, EveryChartComparesOneCall) {
  analysis::ResultSet rs;
  Json t = timing("2026-01-01T00:00:00Z", "c1", 10.5 * 2000, 21 * 2000);
  for (auto& r : t["results"]) r["repeat"] = 2000;
  rs.timings = T({t});
  rs.simulations = S({simulation("m", {{"basic", {10.5e-6, 21e-6}}, {"neighbor", {21e-6, 42e-6}}})});
  const auto d = analysis::build_dashboard(rs);
  const auto& pred = chart(d, "predicted").spec["data"]["values"];
  const Json* p = row_of(pred, 0, "basic", "what-if on m");
  ASSERT_TRUE(p) << pred.dump();
  EXPECT_NEAR((*p)["measured_us"].get<double>(), 10.5, 1e-9);
  EXPECT_NEAR((*p)["error_pct"].get<double>(), 0, 1e-9);
  for (const auto& r : chart(d, "per-trace").spec["data"]["values"]) {
    const double want = (r["backend"] == "basic" ? 10.5 : 21) * (1 + r["index"].get<int>());
    EXPECT_NEAR(r["per_call_us"].get<double>(), want, 1e-9) << r.dump();
    EXPECT_NEAR(r["p75_us"].get<double>() - r["p25_us"].get<double>(), 1.0 / 2000, 1e-9) << r.dump();  // samples per call too
    EXPECT_EQ(r["repeat"], 2000);
  }
  for (const auto& r : chart(d, "history").spec["data"]["values"])
    EXPECT_NEAR(r["sum_per_call_us"].get<double>(), r["backend"] == "basic" ? 31.5 : 63, 1e-9) << r.dump();
  EXPECT_NE(d.tables_html.find("basic 10.50 &lt; neighbor 21.00"), std::string::npos) << d.tables_html;
}

// auto:basic and auto:neighbor are the series "auto" that says what it chose, never new series:
// in the per-op chart, the prediction (the chosen backend's), the history and the table.
TEST(Dashboard, AutoIsOneSeriesThatNamesItsChoice) {
  analysis::ResultSet rs;
  Json a = timing("2026-01-01T00:00:00Z", "c1", 10, 20), b = timing("2026-01-02T00:00:00Z", "c2", 10, 20);
  for (auto& r : a["results"])
    if (r["backend"] == "neighbor") r["backend"] = "auto:neighbor";
  for (auto& r : b["results"])
    if (r["backend"] == "neighbor") r["backend"] = "auto:basic";
  rs.timings = T({a, b});
  rs.simulations = S({simulation("m", {{"basic", {12e-6, 15e-6}}, {"neighbor", {5e-6, 30e-6}}})});
  const auto d = analysis::build_dashboard(rs);
  const auto& per = chart(d, "per-trace").spec["data"]["values"];
  ASSERT_EQ(per.size(), 4u);  // 2 ops x (basic, auto)
  for (const auto& r : per) {
    EXPECT_TRUE(r["backend"] == "basic" || r["backend"] == "auto") << r.dump();
    if (r["backend"] == "auto") {
      EXPECT_EQ(r["chose"], "basic");
    }
  }
  for (const auto& r : chart(d, "history").spec["data"]["values"])
    EXPECT_TRUE(r["backend"] == "basic" || r["backend"] == "auto") << r.dump();
  const Json* p = row_of(chart(d, "predicted").spec["data"]["values"], 0, "auto", "what-if on m");
  ASSERT_TRUE(p);
  EXPECT_NEAR((*p)["time_us"].get<double>(), 12, 1e-9);  // basic's prediction: what auto ran
  EXPECT_EQ((*p)["series"], "auto (chose basic)");
  EXPECT_NE(d.tables_html.find("auto (chose basic)"), std::string::npos) << d.tables_html;
  EXPECT_EQ(d.tables_html.find("auto:"), std::string::npos) << d.tables_html;
}

// Within an op the bars stand fastest first: rank 1 is the smallest median, whatever the names.
TEST(Dashboard, BarsAreOrderedByTimeNotName) {
  analysis::ResultSet rs;
  rs.timings = T({timing("2026-01-01T00:00:00Z", "c1", 30, 10)});  // neighbor faster than basic
  const auto d = analysis::build_dashboard(rs);
  const auto& c = chart(d, "per-trace");
  EXPECT_EQ(c.spec["encoding"]["xOffset"]["field"], "rank");
  for (const auto& r : c.spec["data"]["values"]) EXPECT_EQ(r["rank"], r["backend"] == "neighbor" ? 1 : 2) << r.dump();
}

// The ranking table ranks the newest run alone: an older run's faster result of a backend the
// newest run did not time is not mixed in.
TEST(Dashboard, RankingsComeFromOneRun) {
  analysis::ResultSet rs;
  Json newest = timing("2026-01-02T00:00:00Z", "c2", 50, 30);
  Json only_neighbor = Json::array();
  for (const auto& r : newest["results"])
    if (r["backend"] == "neighbor") only_neighbor.push_back(r);
  newest["results"] = only_neighbor;
  rs.timings = T({timing("2026-01-01T00:00:00Z", "c1", 10, 20), newest});
  const auto d = analysis::build_dashboard(rs);
  EXPECT_NE(d.tables_html.find("<td>neighbor 30.00</td>"), std::string::npos) << d.tables_html;
  EXPECT_EQ(d.tables_html.find("basic 10.00"), std::string::npos) << d.tables_html;
  EXPECT_NE(d.tables_html.find("commit c2"), std::string::npos) << d.tables_html;
}

// The winner's margin is to the next other implementation: auto that chose basic runs basic's
// code, so basic (10 us) wins by 20 % over neighbor (12 us), not by 2 % over itself under auto.
TEST(Dashboard, AutoIsNeverTheRunnerUpOfWhatItChose) {
  analysis::ResultSet rs;
  Json t = timing("2026-01-01T00:00:00Z", "c1", 10, 12);
  for (int op = 0; op < 2; ++op) {
    Json a = t["results"][0];
    a["index"] = op;
    a["backend"] = "auto:basic";
    a["median_us"] = 10.2 * (1 + op);
    a["samples_us"] = {10.2 * (1 + op)};
    t["results"].push_back(a);
  }
  rs.timings = T({t});
  const auto d = analysis::build_dashboard(rs);
  EXPECT_NE(d.tables_html.find("basic 10.00 &lt; auto (chose basic) 10.20 &lt; neighbor 12.00</td><td>+20.00% to neighbor"), std::string::npos)
      << d.tables_html;
  EXPECT_EQ(d.tables_html.find("% to auto"), std::string::npos) << d.tables_html;
}

// One trace: the chart draws, per backend, the median over the ops of each message size as a line
// (ops 0 and 1 have 400 bytes per message: medians 10 and 20 -> 15), and no shape by trace.
TEST(Dashboard, MessageSizeChartIsUsefulWithOneTrace) {
  analysis::ResultSet rs;
  Json t = timing("2026-01-01T00:00:00Z", "c1", 10, 20);
  t["results"][1]["bytes"] = 8000;  // op 0, neighbor: 4000 bytes per message
  rs.timings = T({t});
  const auto d = analysis::build_dashboard(rs);
  const auto& c = chart(d, "message-size");
  const auto& line = c.spec["layer"][0]["data"]["values"];
  EXPECT_EQ(c.spec["layer"][0]["mark"]["type"], "line");
  ASSERT_EQ(line.size(), 3u);  // basic at 400; neighbor at 400 and 4000
  for (const auto& r : line) {
    const double want = r["backend"] == "basic" ? 15 : r["bytes_per_message"] == 400 ? 40 : 20;
    EXPECT_DOUBLE_EQ(r["per_call_us"].get<double>(), want) << r.dump();
  }
  EXPECT_FALSE(c.spec["layer"][1]["encoding"].contains("shape"));
  EXPECT_NE(c.spec["title"]["text"].get<std::string>().find(": t"), std::string::npos);
}

// Every chart gives a backend the same colour, from a palette whose colours differ (and no pale
// yellow on white); the history's noise band is faint enough to read the lines through, and its
// legend is the lines' (full colour), not the faint band's.
TEST(Dashboard, HistoryColoursAreDistinctAndTheSameOnEveryChart) {
  analysis::ResultSet rs;
  rs.timings = T({timing("2026-01-01T00:00:00Z", "c1", 10, 20), timing("2026-01-02T00:00:00Z", "c2", 10, 20)});
  const auto d = analysis::build_dashboard(rs);
  const auto& scale = chart(d, "history").spec["encoding"]["color"]["scale"];
  EXPECT_EQ(scale["domain"], Json({"basic", "neighbor"}));
  ASSERT_EQ(scale["range"].size(), 2u);
  EXPECT_NE(scale["range"][0], scale["range"][1]);
  for (const auto& c : scale["range"]) EXPECT_NE(c, "#F0E442");
  EXPECT_EQ(chart(d, "per-trace").spec["encoding"]["color"]["scale"], scale);
  EXPECT_LE(chart(d, "history").spec["layer"][0]["mark"]["opacity"].get<double>(), 0.15);
  EXPECT_TRUE(chart(d, "history").spec["layer"][0]["encoding"]["color"]["legend"].is_null());
  EXPECT_TRUE(chart(d, "history").spec["layer"][0]["encoding"]["color"].contains("legend"));
}

// The per-op bars' numbers, each from its result as computed here: per call (repeat 4), the
// median, the whisker's 25th and 75th percentiles (linear between order statistics: six samples,
// positions 1.25 and 3.75, where a nearest-rank or a median in their place differs), and the rank,
// fastest first with a tie of medians broken by name (basic and window at 8 us, neighbor at 10).
TEST(Dashboard, PerOpBarsAreTheirResultsNumbersPerCall) {
  Json doc = timing("2026-01-01T00:00:00Z", "c1", 1, 1);
  doc["results"] = Json::array();
  const std::map<std::string, std::vector<double>> per_call = {
      {"neighbor", {9, 9.5, 10, 10, 11, 12}}, {"window", {6, 7, 8, 8, 9, 13}}, {"basic", {7, 7.5, 8, 8, 8.5, 9}}};
  for (const auto& [b, s] : per_call) {
    Json iterations = Json::array();
    for (const double x : s) iterations.push_back(4 * x);
    doc["results"].push_back({{"index", 0}, {"op", "bcast"}, {"sf", "A"}, {"backend", b}, {"unit", "float64"}, {"bs", 1}, {"repeat", 4},
                            {"bytes", 800}, {"messages", 2}, {"min_us", 4 * s.front()}, {"median_us", 4 * 8.0 + (b == "neighbor" ? 8 : 0)},
                            {"max_us", 4 * s.back()}, {"samples_us", iterations}});
  }
  analysis::ResultSet rs;
  rs.timings = T({doc});
  const auto dash = analysis::build_dashboard(rs);
  const auto& rows = chart(dash, "per-trace").spec["data"]["values"];
  ASSERT_EQ(rows.size(), 3u) << rows.dump();
  auto at = [](const std::vector<double>& s, double pos) {  // s sorted
    const auto lo = static_cast<std::size_t>(pos);
    return s[lo] + (pos - static_cast<double>(lo)) * (s[lo + 1] - s[lo]);
  };
  const std::map<std::string, int> rank = {{"basic", 1}, {"window", 2}, {"neighbor", 3}};
  for (const auto& r : rows) {
    const std::string b = r["backend"];
    const auto& s = per_call.at(b);
    EXPECT_EQ(r["rank"], rank.at(b)) << r.dump();
    EXPECT_NEAR(r["per_call_us"].get<double>(), b == "neighbor" ? 10 : 8, 1e-12) << r.dump();
    EXPECT_NEAR(r["p25_us"].get<double>(), at(s, 0.25 * 5), 1e-12) << r.dump();
    EXPECT_NEAR(r["p75_us"].get<double>(), at(s, 0.75 * 5), 1e-12) << r.dump();
    EXPECT_NEAR(r["min_us"].get<double>(), s.front(), 1e-12) << r.dump();
    EXPECT_NEAR(r["max_us"].get<double>(), s.back(), 1e-12) << r.dump();
  }
}
