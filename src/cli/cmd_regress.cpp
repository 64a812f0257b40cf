// sf-replay regress BASE NEW [--threshold PCT]: did NEW get slower than BASE? Each side is an
// sf-timing result file or a folder of result files (run --timing / --store). Exit status 0 when
// nothing got significantly slower, 3 when something did, 2 for bad input.
#include <cmath>
#include <iostream>

#include "analysis/regress.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"

namespace sfr::cli {

int cmd_regress(const Args& args) {
  po::options_description opts("regress options");
  std::string base, now;
  double threshold = 10;
  opts.add_options()("base", po::value(&base)->required(), "baseline: a timing result file or a folder of result files")(
      "new", po::value(&now)->required(), "the run to judge: a timing result file or a folder of result files")(
      "threshold", po::value(&threshold), "smallest change of the median that counts, in percent (default 10)");
  po::positional_options_description pos;
  pos.add("base", 1).add("new", 1);
  po::variables_map vm;
  if (parse_options("regress", "BASE NEW [--threshold PCT]", args, opts, pos, vm)) return 0;
  if (!(threshold >= 0) || !std::isfinite(threshold) || threshold >= 1000)
    throw InputError("--threshold", "expected a percentage in [0, 1000)");
  const auto b = analysis::load_timing_side({base}, base);
  const auto n = analysis::load_timing_side({now}, now);
  const auto res = analysis::regress(b, n, threshold / 100);
  if (res.entries.empty()) throw InputError("regress", "no (trace, op, backend) appears on both sides: nothing to compare");
  std::cout << analysis::render_regress(res);
  return res.any_slower() ? 3 : 0;
}

}  // namespace sfr::cli
