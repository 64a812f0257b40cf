// The report's "Captured application" rows: a captured op record folds `repeat` identical calls,
// and its measured iteration is all of them; op_counts count calls. The row's time is one call's
// and its total is count x that (the issue's case: 2,000 calls of 10.5 us read as 1,999 us each).
#include <gtest/gtest.h>

#include <array>
#include <tuple>
#include <vector>

#include "analysis/capture_summary.hpp"
#include "analysis/report.hpp"
#include "trace/reader.hpp"

using namespace sfr;

namespace {

const char* kCaptured = R"json({"format": "sf-trace", "version": 1, "name": "cap", "nranks": 2,
  "meta": {"generator": "capture", "op_counts": [{"sf": "A", "op": "bcast", "count": 2000}, {"sf": "A", "op": "reduce", "count": 3},
    {"sf": "(SFs first used beyond --max-ops)", "op": "bcast", "count": 500}]},
  "sfs": {"A": {"ranks": [{"nroots": 2, "remote_rank": [1, 1], "remote_index": [0, 1]},
                          {"nroots": 2, "remote_rank": [0, 0], "remote_index": [0, 1]}]}},
  "ops": [{"op": "bcast", "sf": "A", "unit": "float64", "repeat": 2000},
          {"op": "reduce", "sf": "A", "unit": "float64", "mpi_op": "sum", "repeat": 3}]})json";

trace::TimingResult result(std::size_t index, const std::string& backend, std::int64_t repeat, double median_us) {
  trace::TimingResult r;
  r.index = index;
  r.backend = backend;
  r.repeat = repeat;
  r.min_us = r.median_us = r.max_us = median_us;
  return r;
}

// A simulated backend: per op record (index, repeat, predicted microseconds per call).
trace::SimBackend simulated(const std::string& backend, const std::vector<std::tuple<std::size_t, std::int64_t, double>>& records) {
  trace::SimBackend sb;
  sb.backend = backend;
  for (const auto& [index, repeat, us] : records) {
    trace::SimOp op;
    op.index = index;
    op.repeat = repeat;
    op.per_call = us * 1e-6;
    op.total = *op.per_call * static_cast<double>(repeat);
    sb.ops.push_back(op);
  }
  return sb;
}

}  // namespace

TEST(CaptureSummary, RowsArePerCallAndTheBackendIsTheLeastApplicationTotal) {
  const auto t = trace::parse_trace(kCaptured, "cap.json");
  const auto stats = analysis::compute_stats(t);
  trace::TimingDoc timing;
  // basic: 10.5 us a bcast call, 4 us a reduce call; neighbor: 12 and 1. The application's total
  // is count x per call: basic 2,000 x 10.5 + 3 x 4 = 21,012 us, neighbor 24,003 us: basic. (A
  // plain sum per call, 14.5 against 13, would choose neighbor.)
  timing.results = {result(0, "basic", 2000, 21000), result(1, "basic", 3, 12), result(0, "neighbor", 2000, 24000),
                    result(1, "neighbor", 3, 3)};
  const auto c = analysis::capture_summary(t, stats, &timing);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->backend, "basic");
  ASSERT_EQ(c->rows.size(), 3u);
  EXPECT_EQ(c->rows[0].op, "bcast");  // 2,000 x 10.5 us: the heaviest
  EXPECT_DOUBLE_EQ(c->rows[0].us, 10.5);
  EXPECT_EQ(c->rows[1].op, "reduce");
  EXPECT_DOUBLE_EQ(c->rows[1].us, 4);
  EXPECT_DOUBLE_EQ(c->rows[1].remote_bytes, 2 * 2 * 8);  // per call: 2 leaves a rank, both remote
}

// Calls that came after the op records were full have no record: the report says how many, since
// the rows weigh them as nothing.
TEST(CaptureSummary, TheReportWarnsOfCallsWithoutARecord) {
  const auto t = trace::parse_trace(kCaptured, "cap.json");
  const auto stats = analysis::compute_stats(t);
  const auto c = analysis::capture_summary(t, stats, nullptr);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->rows.back().records, 0u);
  EXPECT_EQ(c->rows.front().records, 1u);
  analysis::ReportInputs in;
  in.capture = &*c;
  const std::string text = analysis::render_markdown(stats, in);
  EXPECT_NE(text.find("**Warning:** 500 of 2503 calls have no op record"), std::string::npos) << text;
}

// The verdict: per backend the application's communication (count x per call; basic 2,000 x 9 +
// 3 x 4 us = 18.012 ms), the ratio to PetscSF's fastest type (petsc, 20.012 ms), and the
// -sf_type to set (the fastest of PETSc's own: basic); shm, fastest and beyond the noise (its
// p75 11.0 ms < petsc's p25 18.0 ms), is not in PETSc.
TEST(CaptureSummary, TheVerdictComparesTheApplicationWithPetscSF) {
  const auto t = trace::parse_trace(kCaptured, "cap.json");
  const auto stats = analysis::compute_stats(t);
  trace::TimingDoc timing;
  const std::vector<std::tuple<std::string, double, double>> per_call = {
      {"basic", 9, 4}, {"shm", 5, 2}, {"petsc", 10, 4}, {"petsc-neighbor", 12, 1}};
  for (const auto& [b, bcast, reduce] : per_call)
    for (const auto& [index, repeat, us] : {std::tuple<std::size_t, std::int64_t, double>{0, 2000, bcast}, {1, 3, reduce}}) {
      auto r = result(index, b, repeat, us * static_cast<double>(repeat));
      for (const double f : {0.8, 0.9, 1.0, 1.1, 1.2}) r.samples_us.push_back(f * r.median_us);
      timing.results.push_back(r);
    }
  const auto c = analysis::capture_summary(t, stats, &timing);
  ASSERT_TRUE(c);
  ASSERT_EQ(c->totals.size(), 4u);
  EXPECT_EQ(c->totals[0].backend, "shm");
  EXPECT_NEAR(c->totals[0].median_us, 2000 * 5 + 3 * 2, 1e-6);
  EXPECT_NEAR(c->totals[0].p25_us, 0.9 * (2000 * 5 + 3 * 2), 1e-6);
  EXPECT_EQ(c->totals[2].backend, "petsc");
  analysis::ReportInputs in;
  in.capture = &*c;
  const std::string text = analysis::render_markdown(stats, in);
  EXPECT_NE(text.find("| basic | 18.012 | 16.211-19.813 | 0.90x | -sf_type basic |"), std::string::npos) << text;
  EXPECT_NE(text.find("| shm | 10.006 | 9.005-11.007 | 0.50x | not in PETSc: needs sf-replay's implementation |"), std::string::npos) << text;
  EXPECT_NE(text.find("| petsc-neighbor | 24.003 | 21.603-26.403 | 1.20x | PetscSF itself (-sf_type neighbor) |"), std::string::npos) << text;
  EXPECT_NE(text.find("**Verdict:** `shm` is fastest, 0.50x PetscSF's best type (`petsc`), beyond the noise. In PETSc 3.18 set "
                      "`-sf_type basic` (its fastest type here: `petsc`); `shm` itself is not in PETSc"),
            std::string::npos)
      << text;
}

// A prediction (simulate/compare --json, a scaled trace's on a machine one does not have) gives the
// same count x per-call totals per simulated backend; the report's predicted verdict names the
// fastest and the -sf_type of the fastest backend PETSc has a type for.
TEST(CaptureSummary, APredictionGivesThePredictedVerdict) {
  const auto t = trace::parse_trace(kCaptured, "cap.json");
  const auto stats = analysis::compute_stats(t);
  trace::SimulationDoc sim;
  sim.machine = "lassen";
  sim.placement = {{"text", "placement: 2 ranks on 1 node(s)"}};
  // Per call in seconds: shm 6 us a bcast, 1 us a reduce; neighbor 7 and 2; window 1 and 1 but
  // without the reduce's record (it ran only some ops: no total).
  for (const auto& [b, bcast, reduce] : std::vector<std::tuple<std::string, double, double>>{{"shm", 6, 1}, {"neighbor", 7, 2}})
    sim.backends.push_back(simulated(b, {{0, 2000, bcast}, {1, 3, reduce}}));
  trace::SimBackend partial;
  partial.backend = "window";
  partial.ops.push_back(sim.backends[0].ops[0]);
  sim.backends.push_back(partial);
  const auto c = analysis::capture_summary(t, stats, nullptr, &sim);
  ASSERT_TRUE(c);
  ASSERT_EQ(c->predicted.size(), 2u);
  EXPECT_EQ(c->predicted[0].backend, "shm");
  EXPECT_NEAR(c->predicted[0].median_us, 2000 * 6 + 3 * 1, 1e-6);
  EXPECT_NEAR(c->predicted[1].median_us, 2000 * 7 + 3 * 2, 1e-6);
  EXPECT_TRUE(c->totals.empty());  // nothing measured
  analysis::ReportInputs in;
  in.capture = &*c;
  const std::string text = analysis::render_markdown(stats, in);
  EXPECT_EQ(text.find("## Verdict"), std::string::npos) << text;
  EXPECT_NE(text.find("## Predicted verdict (lassen)"), std::string::npos) << text;
  EXPECT_NE(text.find("| neighbor | 14.006 | 1.17x | -sf_type neighbor |"), std::string::npos) << text;
  EXPECT_NE(text.find("**Predicted verdict:** `shm` is fastest on `lassen`, 12.003 ms of communication over the run. In PETSc 3.18 set "
                      "`-sf_type neighbor` (its fastest type predicted: `neighbor`); `shm` itself is not in PETSc"),
            std::string::npos)
      << text;
}

namespace {

// Two records of one (SF, op) row that differ in block size and in calls: bs 1 called 1,000 times
// and bs 4 called 10 times (op_counts: 1,010 calls); one reduce record.
const char* kTwoRecords = R"json({"format": "sf-trace", "version": 1, "name": "cap2", "nranks": 2,
  "meta": {"generator": "capture", "op_counts": [{"sf": "A", "op": "bcast", "count": 1010}, {"sf": "A", "op": "reduce", "count": 5}]},
  "sfs": {"A": {"ranks": [{"nroots": 2, "remote_rank": [1, 1], "remote_index": [0, 1]},
                          {"nroots": 2, "remote_rank": [0, 0], "remote_index": [0, 1]}]}},
  "ops": [{"op": "bcast", "sf": "A", "unit": "float64", "repeat": 1000},
          {"op": "bcast", "sf": "A", "unit": "float64", "bs": 4, "repeat": 10},
          {"op": "reduce", "sf": "A", "unit": "float64", "mpi_op": "sum", "repeat": 5}]})json";

// A timing result whose iteration is `repeat` calls of `per_call` us, with five samples at
// 0.8 .. 1.2 x the median: per call, p25 = 0.9 x and p75 = 1.1 x the median (core::quantile).
trace::TimingResult spread_result(std::size_t index, const std::string& backend, std::int64_t repeat, double per_call, double width = 0.1) {
  auto r = result(index, backend, repeat, per_call * static_cast<double>(repeat));
  for (const double f : {1 - 2 * width, 1 - width, 1.0, 1 + width, 1 + 2 * width}) r.samples_us.push_back(f * r.median_us);
  return r;
}

}  // namespace

// A row's time per call is its records' mean weighted by their calls, computed here by hand:
// basic (1,000 x 10 + 10 x 100) / 1,010 = 10.891 us, shm (1,000 x 12 + 10 x 20) / 1,010 = 12.079 us.
// The plain mean of the records (basic 55, shm 16) or their sum (110, 32) would make shm fastest.
// Bytes per call likewise: 2 leaves x 8 B x bs, (1,000 x 32 + 10 x 128) / 1,010 = 32.95 B.
TEST(CaptureSummary, ARowsTimeIsItsRecordsMeanWeightedByCalls) {
  const auto t = trace::parse_trace(kTwoRecords, "cap2.json");
  const auto stats = analysis::compute_stats(t);
  trace::TimingDoc timing;
  timing.results = {spread_result(0, "basic", 1000, 10), spread_result(1, "basic", 10, 100), spread_result(2, "basic", 5, 3),
                    spread_result(0, "shm", 1000, 12),   spread_result(1, "shm", 10, 20),    spread_result(2, "shm", 5, 3)};
  const auto c = analysis::capture_summary(t, stats, &timing);
  ASSERT_TRUE(c);
  const double basic_bcast = (1000 * 10.0 + 10 * 100.0) / 1010, shm_bcast = (1000 * 12.0 + 10 * 20.0) / 1010;
  ASSERT_EQ(c->totals.size(), 2u);
  EXPECT_EQ(c->totals[0].backend, "basic");
  EXPECT_EQ(c->backend, "basic");
  EXPECT_NEAR(c->totals[0].median_us, 1010 * basic_bcast + 5 * 3.0, 1e-9);
  EXPECT_NEAR(c->totals[0].p25_us, 0.9 * (1010 * basic_bcast + 5 * 3.0), 1e-9);
  EXPECT_NEAR(c->totals[0].p75_us, 1.1 * (1010 * basic_bcast + 5 * 3.0), 1e-9);
  EXPECT_NEAR(c->totals[1].median_us, 1010 * shm_bcast + 5 * 3.0, 1e-9);
  ASSERT_EQ(c->rows.size(), 2u);
  EXPECT_EQ(c->rows[0].op, "bcast");
  EXPECT_EQ(c->rows[0].records, 2u);
  EXPECT_NEAR(c->rows[0].us, basic_bcast, 1e-9);
  EXPECT_NEAR(c->rows[0].remote_bytes, (1000 * 2 * 2 * 8.0 + 10 * 2 * 2 * 32.0) / 1010, 1e-9);
  analysis::ReportInputs in;
  in.capture = &*c;
  const std::string text = analysis::render_markdown(stats, in);
  EXPECT_NE(text.find("| basic | 11.015 | 9.914-12.117 |"), std::string::npos) << text;  // 1,010 x 10.891 + 15 us
  EXPECT_NE(text.find("**Verdict:** `basic` is fastest"), std::string::npos) << text;
}

// The verdict tells the fastest backend from PetscSF's best type "beyond the noise" only where
// their p25-p75 ranges are apart (the fastest's p75 below PETSc's p25); ranges that overlap, or
// touch, are "within the noise". Per call, five samples each (p25 the second, p75 the fourth,
// core::quantile), integers so that the totals compare exactly: 2,000 bcast calls and 3
// reduce calls of 1 us: shm's p75 below, above and equal to petsc's p25, and a tie.
TEST(CaptureSummary, BeyondTheNoiseOnlyWhereTheRangesAreApart) {
  const auto t = trace::parse_trace(kCaptured, "cap.json");
  const auto stats = analysis::compute_stats(t);
  using Five = std::array<double, 5>;
  auto per_call_samples = [](std::size_t index, const std::string& backend, std::int64_t repeat, const Five& us) {
    auto r = result(index, backend, repeat, us[2] * static_cast<double>(repeat));
    for (const double x : us) r.samples_us.push_back(x * static_cast<double>(repeat));
    return r;
  };
  struct Case {
    Five shm, petsc;
    const char* says;
  };
  const Five petsc = {10, 12, 13, 14, 16};
  for (const Case& k : {Case{{8, 9, 10, 11, 12}, petsc, "beyond the noise"}, Case{{8, 9, 10, 13, 14}, petsc, "within the noise of it"},
                        Case{{8, 9, 10, 12, 14}, petsc, "within the noise of it"}, Case{petsc, petsc, ""}}) {
    trace::TimingDoc timing;
    timing.results = {per_call_samples(0, "shm", 2000, k.shm), per_call_samples(1, "shm", 3, {1, 1, 1, 1, 1}),
                      per_call_samples(0, "petsc", 2000, k.petsc), per_call_samples(1, "petsc", 3, {1, 1, 1, 1, 1})};
    const auto c = analysis::capture_summary(t, stats, &timing);
    ASSERT_TRUE(c);
    ASSERT_EQ(c->totals.size(), 2u);
    const auto& shm = c->totals[0].backend == "shm" ? c->totals[0] : c->totals[1];
    EXPECT_EQ(shm.p75_us, 2000 * k.shm[3] + 3);  // independently: count x per call, summed
    EXPECT_EQ(shm.p25_us, 2000 * k.shm[1] + 3);
    analysis::ReportInputs in;
    in.capture = &*c;
    const std::string text = analysis::render_markdown(stats, in);
    if (k.shm == k.petsc) {
      // A tie: whichever is listed first, the verdict claims no difference beyond the noise.
      EXPECT_EQ(text.find("beyond the noise"), std::string::npos) << text;
      continue;
    }
    const std::string ratio = k.shm[2] == 10 ? "0.77x" : "?";  // (2,000 x 10 + 3) / (2,000 x 13 + 3)
    EXPECT_NE(text.find("**Verdict:** `shm` is fastest, " + ratio + " PetscSF's best type (`petsc`), " + k.says), std::string::npos)
        << k.shm[3] << "\n" << text;
  }
}

// The predicted verdict weighs a row's records by their calls too: per call predicted, neighbor
// 10 us at bs 1 (1,000 calls) and 100 us at bs 4 (10 calls), window 12 and 20 us; reduces 3 us.
// By hand: neighbor 1,000 x 10 + 10 x 100 + 5 x 3 = 11,015 us, window 12,215 us: neighbor first
// (a plain mean of the records, 1,010 x 55 against 1,010 x 16, would put window first).
TEST(CaptureSummary, APredictionOfSeveralRecordsPerRowIsWeightedByCalls) {
  const auto t = trace::parse_trace(kTwoRecords, "cap2.json");
  const auto stats = analysis::compute_stats(t);
  trace::SimulationDoc sim;
  sim.machine = "generic";
  for (const auto& [b, bs1, bs4] : std::vector<std::tuple<std::string, double, double>>{{"neighbor", 10, 100}, {"window", 12, 20}})
    sim.backends.push_back(simulated(b, {{0, 1000, bs1}, {1, 10, bs4}, {2, 5, 3}}));
  const auto c = analysis::capture_summary(t, stats, nullptr, &sim);
  ASSERT_TRUE(c);
  ASSERT_EQ(c->predicted.size(), 2u);
  EXPECT_EQ(c->predicted[0].backend, "neighbor");
  EXPECT_NEAR(c->predicted[0].median_us, 1000 * 10 + 10 * 100 + 5 * 3, 1e-6);
  EXPECT_NEAR(c->predicted[1].median_us, 1000 * 12 + 10 * 20 + 5 * 3, 1e-6);
  analysis::ReportInputs in;
  in.capture = &*c;
  const std::string text = analysis::render_markdown(stats, in);
  EXPECT_NE(text.find("| window | 12.215 | 1.11x | -sf_type window |"), std::string::npos) << text;
  EXPECT_NE(text.find("**Predicted verdict:** `neighbor` is fastest on `generic`, 11.015 ms"), std::string::npos) << text;
}
