// The dashboard in a real browser: result documents from real runs (two timing runs, one with
// auto, a simulation on the validated machine and one on a what-if machine, a validate-model
// comparison, plus a malformed and a foreign file that must be named and skipped), `sf-replay
// dashboard`, then headless Chromium loads SITE/index.html from disk and the test checks that every
// chart container holds a rendered SVG with its data (the predicted chart's points and legend, the
// message-size lines) and that the page saw no error or console.error. A screenshot is written to
// the build's artifacts/ folder.
// Without Chromium the test skips, unless SFR_REQUIRE_BROWSER=1 (CI sets it: there it must run).
#include <gtest/gtest.h>

#include "support/require.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

#include "support/process.hpp"

namespace fs = std::filesystem;

namespace {

std::string chromium() {
  for (const char* c : {"chromium", "chromium-browser", "google-chrome"})
    if (sfr_test::run_command(std::string("sh -c \"command -v ") + c + "\"").status == 0) return c;
  return "";
}

std::string browser_flags(const fs::path& profile) {
  return " --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run --user-data-dir=" + profile.string() +
         " --virtual-time-budget=30000 ";
}

}  // namespace

TEST(DashboardBrowser, EveryChartRendersWithoutErrors) {
  const std::string browser = chromium();
  if (browser.empty()) SFR_SKIP_OR_REQUIRE("SFR_REQUIRE_BROWSER", "no chromium on this machine (bash .ci/deps --tests installs it)");
  const fs::path dir = fs::temp_directory_path() / ("sfr_dash_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const fs::path res = dir / "results", site = dir / "site";
  fs::create_directories(res);
  const std::string cli = SFR_CLI, traces = SFR_TRACES_DIR;
  for (int k = 0; k < 2; ++k) {
    const auto r = sfr_test::run_command(sfr_test::mpiexec(4) + cli + " run " + traces + "/handmade-4.json --backend basic,neighbor" +
                                         (k ? ",auto" : "") + " --iters 4 --store " + res.string());
    ASSERT_EQ(r.status, 0) << r.out;
  }
  auto r = sfr_test::run_command(sfr_test::mpiexec(4) + cli + " run " + traces +
                                 "/spmv-bcsstk13-rows-p4.json --backend basic,neighbor,window,alltoallv --iters 4 --store " + res.string());
  ASSERT_EQ(r.status, 0) << r.out;
  r = sfr_test::run_command(cli + " simulate " + traces + "/handmade-4.json -m generic --all-backends --store " + res.string());
  ASSERT_EQ(r.status, 0) << r.out;
  r = sfr_test::run_command(cli + " simulate " + traces + "/handmade-4.json -m lassen --all-backends --store " + res.string());
  ASSERT_EQ(r.status, 0) << r.out;
  r = sfr_test::run_command(sfr_test::mpiexec(4) + cli + " validate-model " + traces +
                            "/handmade-4.json --machine generic --iters 3 --store " + res.string());
  ASSERT_EQ(r.status, 0) << r.out;
  std::ofstream(res / "broken.json") << "{\"format\": \"sf-timing\",";
  std::ofstream(res / "foreign.json") << "{\"hello\": 1}";
  r = sfr_test::run_command(cli + " dashboard " + res.string() + " -o " + site.string());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("skipped " + (res / "broken.json").string()), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("skipped " + (res / "foreign.json").string()), std::string::npos) << r.out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(dashboard: (\d+) charts)"))) << r.out;
  const int charts = std::stoi(m[1]);
  // 2 traces (per-op and history each), measured and predicted per op (handmade-4 only), message
  // size, measured vs predicted.
  EXPECT_EQ(charts, 7) << r.out;

  const std::string url = "file://" + fs::absolute(site / "index.html").string();
  const auto dom = sfr_test::run_command(
      browser + browser_flags(dir / "profile") + "--enable-logging=stderr --v=0 --dump-dom " + url + " 2>" + (dir / "console.log").string(),
      120);
  ASSERT_EQ(dom.status, 0) << dom.out;
  const std::string console = sfr_test::slurp(dir / "console.log");
  ASSERT_NE(dom.out.find("data-rendered=\"" + std::to_string(charts) + "\""), std::string::npos)
      << "not every chart rendered; page status and console:\n"
      << dom.out.substr(dom.out.find("sfr-status"), 400) << "\n"
      << console;
  EXPECT_NE(dom.out.find("data-errors=\"0\""), std::string::npos) << dom.out.substr(dom.out.find("sfr-status"), 400) << "\n" << console;
  for (const auto& line : {"Uncaught", "TypeError", "ReferenceError"}) EXPECT_EQ(console.find(line), std::string::npos) << console;
  // Each chart's container holds its own SVG.
  for (int k = 1; k <= charts; ++k) {
    const std::string open = "id=\"chart-" + std::to_string(k) + "\"";
    const auto at = dom.out.find(open);
    ASSERT_NE(at, std::string::npos) << open;
    const auto next = dom.out.find("class=\"chart", at + open.size());
    const auto svg = dom.out.find("<svg", at);
    EXPECT_TRUE(svg != std::string::npos && (next == std::string::npos || svg < next)) << "chart " << k << " has no SVG";
  }
  // A chart's container by its title, up to the next chart.
  auto container = [&](const std::string& title) {
    const auto at = dom.out.find("title=\"" + title + "\"");
    if (at == std::string::npos) return std::string();
    const auto next = dom.out.find("class=\"chart", at + 1);
    return dom.out.substr(at, next == std::string::npos ? std::string::npos : next - at);
  };
  auto count = [](const std::string& s, const std::string& what) {
    std::size_t n = 0;
    for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
    return n;
  };
  // Measured and predicted: points drawn (25 ops x 3 backends, measured and three predictions),
  // error bars drawn, and the legend names every source.
  const std::string pred = container("Measured and predicted per op: handmade-4");
  ASSERT_FALSE(pred.empty()) << "no predicted chart";
  EXPECT_GT(count(pred, "<path"), 150u) << pred.substr(0, 2000);
  EXPECT_NE(pred.find("mark-rect"), std::string::npos);  // the error panel's bars
  for (const char* source : {"what-if on lassen", "predicted on generic", "model check on generic", "measured ("})
    EXPECT_NE(pred.find(source), std::string::npos) << source;
  // auto is one series ("auto"), never "auto:basic".
  EXPECT_NE(container("Time per op per backend: handmade-4").find(">auto<"), std::string::npos);
  EXPECT_EQ(dom.out.find("auto:"), std::string::npos);
  // The message-size chart draws its lines.
  EXPECT_NE(container("Time per op vs message size").find("mark-line"), std::string::npos);
  // The ranking table and the skipped-files list are on the page.
  EXPECT_NE(dom.out.find("Backend ranking: handmade-4"), std::string::npos);
  EXPECT_NE(dom.out.find("2 file(s) skipped"), std::string::npos);

  const fs::path art = fs::path(SFR_ARTIFACTS_DIR);
  fs::create_directories(art);
  const auto shot = sfr_test::run_command(
      browser + browser_flags(dir / "profile") + "--window-size=1400,4200 --screenshot=" + (art / "dashboard.png").string() + " " + url,
      120);
  EXPECT_EQ(shot.status, 0) << shot.out;
  EXPECT_GT(fs::file_size(art / "dashboard.png"), 10000u);
  std::error_code ec;
  fs::remove_all(art / "dashboard-site", ec);
  fs::copy(site, art / "dashboard-site", fs::copy_options::recursive, ec);
  fs::remove_all(dir);
}
