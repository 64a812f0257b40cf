// Dashboard content from hand-made result documents: which files are skipped, which run each chart
// shows (the newest per op and backend; every run in the history, summed per backend), the model
// chart's error band, escaping of names in the page, and how the site is written.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

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
  rs.timings = {timing("2026-01-03T00:00:00Z", "c3", 20, 30), timing("2026-01-01T00:00:00Z", "c1", 10, 12),
                timing("2026-01-02T00:00:00Z", "c2", 11, 13)};
  const auto d = analysis::build_dashboard(rs);
  EXPECT_EQ(d.charts.size(), 3u);  // per trace, message size, history
  const auto& per = chart(d, "per-trace").spec["data"]["values"];
  ASSERT_EQ(per.size(), 4u);
  for (const auto& row : per) {
    const double base = row["backend"] == "basic" ? 20 : 30;
    EXPECT_DOUBLE_EQ(row["median_us"].get<double>(), base * (1 + row["index"].get<int>())) << row.dump();
    EXPECT_EQ(row["commit"], "c3");
  }
  const auto& hist = chart(d, "history");
  const auto& rows = hist.spec["data"]["values"];
  ASSERT_EQ(rows.size(), 6u);  // 3 runs x 2 backends
  // Oldest first; per run and backend, the sum over both ops: us * 1 + us * 2.
  const double want[3][2] = {{30, 36}, {33, 39}, {60, 90}};
  for (std::size_t k = 0; k < rows.size(); ++k) {
    EXPECT_DOUBLE_EQ(rows[k]["total_median_us"].get<double>(), want[k / 2][rows[k]["backend"] == "basic" ? 0 : 1]) << rows[k].dump();
    EXPECT_LE(rows[k]["p10_us"].get<double>(), rows[k]["total_median_us"].get<double>());
    EXPECT_GE(rows[k]["p90_us"].get<double>(), rows[k]["total_median_us"].get<double>());
  }
  EXPECT_EQ(hist.spec["encoding"]["x"]["sort"][0].get<std::string>().substr(0, 4), "1 c1");
  EXPECT_NE(hist.spec["title"]["subtitle"][0].get<std::string>().find("commits c1 .. c3"), std::string::npos) << hist.spec["title"].dump();
  const auto& osu = chart(d, "message-size").spec["data"]["values"];
  ASSERT_EQ(osu.size(), 4u);
  EXPECT_DOUBLE_EQ(osu[0]["bytes_per_message"].get<double>(), 400);
}

TEST(Dashboard, ModelChartBandIsTheMedianError) {
  analysis::ResultSet rs;
  rs.model_checks.push_back(
      {{"format", "sf-model-check"},
       {"machine", "m"},
       {"pairs", {{{"trace", "t"}, {"op", 0}, {"label", "bcast A"}, {"backend", "basic"}, {"measured_us", 10}, {"predicted_us", 12}}}},
       {"summary", {{"median_abs_error", 0.2}}}});
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
  rs.timings = {timing("2026-01-01T00:00:00Z", "c1", 10, 12, "</script><b>x&y")};
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
