// sf-replay dashboard DIR... -o SITE: a static site of charts and tables from every result
// document under the folders (reports/README.md). Malformed or foreign files are named and
// skipped; no result document at all is an error (exit 2).
#include <iostream>

#include "analysis/dashboard.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"

namespace sfr::cli {

int cmd_dashboard(const Args& args) {
  po::options_description opts("dashboard options");
  std::vector<std::string> dirs;
  std::string site;
  opts.add_options()("dirs", po::value(&dirs)->composing(),
                     "folders (or files) of result documents: run --timing/--store, simulate --json/--store, "
                     "validate-model --json/--store, benchmarks")("output,o", po::value(&site)->required(),
                                                                  "the site's folder (SITE/index.html, SITE/vendor/)");
  po::positional_options_description pos;
  pos.add("dirs", -1);
  po::variables_map vm;
  if (parse_options("dashboard", "DIR... -o SITE", args, opts, pos, vm)) return 0;
  if (dirs.empty()) throw InputError("", "no folder of results given (usage: sf-replay dashboard DIR... -o SITE)");
  const std::string vendor = analysis::find_vendor_dir();
  const auto rs = analysis::collect_results(dirs);
  for (const auto& why : rs.skipped) std::cerr << "sf-replay dashboard: skipped " << why << "\n";
  if (rs.documents() == 0) {
    std::string where;
    for (const auto& d : dirs) where += (where.empty() ? "" : ", ") + d;
    throw InputError(where,
                     rs.skipped.empty() ? "no result documents (*.json) found" : "no valid result document found (every file skipped)");
  }
  const auto content = analysis::build_dashboard(rs);
  analysis::write_site(site, analysis::render_dashboard_html(content, rs), vendor);
  std::cout << "dashboard: " << content.charts.size() << " charts from " << rs.documents() << " result document(s)"
            << (rs.skipped.empty() ? "" : " (" + std::to_string(rs.skipped.size()) + " file(s) skipped)") << "; open " << site
            << "/index.html\n";
  return 0;
}

}  // namespace sfr::cli
