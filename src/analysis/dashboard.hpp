// `sf-replay dashboard DIR... -o SITE`: a static site (SITE/index.html, opens from disk, no server
// or network) built from every result document under the folders: time per op per backend for
// each trace, measured and predicted per op and backend (simulations, what-if machines and
// validate-model, with the error), time vs message size (OSU style), measured vs predicted with the
// model's error band,
// history over commits with the noise band, and backend ranking tables. Charts are Vega-Lite
// specifications rendered in the page by the vendored vega / vega-lite / vega-embed (copied into
// SITE/vendor, so the page works offline). See reports/README.md.
#pragma once

#include <string>
#include <vector>

#include "io/json_strict.hpp"
#include "trace/result_docs.hpp"

namespace sfr::analysis {

// The result documents found under some paths, by kind, and the files skipped (one line each:
// "FILE: why").
struct ResultSet {
  std::vector<trace::TimingDoc> timings;
  std::vector<trace::SimulationDoc> simulations;
  std::vector<trace::ModelCheckDoc> model_checks;
  std::vector<io::Json> benches;  // sf-bench: format and provenance only (no type of their own)
  std::vector<std::string> skipped;
  std::size_t documents() const { return timings.size() + simulations.size() + model_checks.size() + benches.size(); }
};

// Every *.json under the paths; a malformed or foreign file is skipped (and named), not fatal.
ResultSet collect_results(const std::vector<std::string>& paths);

struct Chart {
  std::string id, section, title;  // section: "per-trace", "predicted", "message-size", "model", "history"
  io::Json spec;                   // Vega-Lite
};

struct DashboardContent {
  std::vector<Chart> charts;
  std::string tables_html;  // backend ranking tables
  std::string summary_html;
};

DashboardContent build_dashboard(const ResultSet& rs);

// The page; it loads vendor/vega.min.js, vendor/vega-lite.min.js and vendor/vega-embed.min.js.
// When every chart has rendered, <body> gets data-rendered="N" and data-errors="E" (errors and
// console.error calls seen by the page), and #sfr-status says the same in words.
std::string render_dashboard_html(const DashboardContent& d, const ResultSet& rs);

// The folder holding vega.min.js, vega-lite.min.js and vega-embed.min.js (with their licences):
// $SFR_VEGA_DIR, else the installed share/sf-replay/vendor beside this binary, else the source
// tree's reports/vendor/dist (checked in; reports/vendor/update.sh refreshes it, pinned).
std::string find_vendor_dir();

// Writes SITE/index.html and SITE/vendor/ (scripts and their licences) into a temporary folder
// first, then moves it into place: a failure leaves no partial site. An existing SITE is replaced
// only when it is empty or an earlier dashboard (index.html and vendor/ only).
void write_site(const std::string& site, const std::string& html, const std::string& vendor_dir);

}  // namespace sfr::analysis
