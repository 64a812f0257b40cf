// `sf-replay regress BASE NEW`: timing results of two builds (or two runs) matched by (trace
// sha256, op index, backend) and compared on their samples. A change counts only when it is
// significant (one-sided Mann-Whitney rank test on the pooled samples, p < alpha) and both the
// ratio of medians and the ratio of 10th percentiles exceed the threshold and the base's own
// run-to-run noise band (the spread of its runs' medians and 10th percentiles, when BASE holds
// several runs of the key). Samples within one run are correlated (a run that lands on a busy
// machine is slower throughout), so only repeated runs show how far a rerun can move; and noise
// on a shared machine only adds time, so the fast end of the samples moves with a real change but
// much less with load: requiring it too keeps a loaded rerun from being flagged.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "io/json_strict.hpp"
#include "trace/result_docs.hpp"

namespace sfr::analysis {

// One-sided p-value of the Mann-Whitney U test that `x` tends to be larger than `y`: exact (the
// distribution of U by recursion) for samples of at most 50 without ties, else the normal approximation
// with tie and continuity corrections. Both must be non-empty.
double mann_whitney_greater(const std::vector<double>& x, const std::vector<double>& y);

enum class Change { slower, faster, same };

struct RegressEntry {
  std::string trace, op, backend;
  std::size_t index = 0;
  std::vector<double> base, now;            // pooled samples (us) of every matching result on each side
  std::vector<double> base_runs, new_runs;  // each run's (document's) median
  std::vector<double> base_run_lows;        // each base run's 10th percentile
  double base_median = 0, new_median = 0, ratio = 1, p_slower = 1, p_faster = 1;
  double base_low = 0, new_low = 0, low_ratio = 1;  // 10th percentiles of the pooled samples
  double noise = 0;  // the base's run-to-run band: max / min - 1 of its runs' medians or 10th percentiles (0: one run)
  Change change = Change::same;
};

struct RegressResult {
  std::vector<RegressEntry> entries;             // matched, in (trace, op, backend) order
  std::vector<std::string> only_base, only_new;  // "trace op N backend" labels
  std::size_t base_docs = 0, new_docs = 0;
  double threshold = 0.10, alpha = 0.01;
  bool any_slower() const;
};

// The timing documents (already checked, with samples) of each side.
RegressResult regress(const std::vector<trace::TimingDoc>& base, const std::vector<trace::TimingDoc>& now, double threshold, double alpha = 0.01);

// Loads the sf-timing documents under the paths (files or folders); other sf-replay result
// documents (simulations, benchmarks, ...) are skipped; anything else, a malformed file, or a
// timing result without samples is an InputError naming the file and JSON pointer.
std::vector<trace::TimingDoc> load_timing_side(const std::vector<std::string>& paths, const std::string& side);

std::string render_regress(const RegressResult& r);

}  // namespace sfr::analysis
