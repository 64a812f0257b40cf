// sf-replay report on a captured application, end to end: the trace and an sf-timing document as
// files, the verdict read from the Markdown it writes. The numbers the test expects are computed
// here from the samples it wrote (count x the calls-weighted mean of the records' per-call
// quartiles), apart from the analysis code: a row of two op records with different repeats and
// times, and noise ranges that are apart, overlap, touch or tie.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <regex>

#include <nlohmann/json.hpp>

#include "support/cli_fixture.hpp"

using nlohmann::json;

namespace {

// Two bcast records on one SF (bs 1 called 1,000 times, bs 4 called 10 times; op_counts 1,010)
// and a reduce record of 5 calls.
const char* kTrace = R"json({"format": "sf-trace", "version": 1, "name": "cap", "nranks": 2,
  "meta": {"generator": "capture", "ranks": 2, "op_counts": [{"sf": "A", "op": "bcast", "count": 1010}, {"sf": "A", "op": "reduce", "count": 5}]},
  "sfs": {"A": {"ranks": [{"nroots": 2, "remote_rank": [1, 1], "remote_index": [0, 1]},
                          {"nroots": 2, "remote_rank": [0, 0], "remote_index": [0, 1]}]}},
  "ops": [{"op": "bcast", "sf": "A", "unit": "float64", "repeat": 1000},
          {"op": "bcast", "sf": "A", "unit": "float64", "bs": 4, "repeat": 10},
          {"op": "reduce", "sf": "A", "unit": "float64", "mpi_op": "sum", "repeat": 5}]})json";

constexpr std::array<double, 3> kRepeat = {1000, 10, 5};
using Five = std::array<double, 5>;  // per-call samples of a record: p25 the second, p75 the fourth

// An sf-timing document: per backend, per record, five samples of an iteration (repeat calls).
json timing(const std::vector<std::pair<std::string, std::array<Five, 3>>>& per_backend) {
  json d = {{"format", "sf-timing"}, {"version", 1}, {"trace", "cap"}, {"nranks", 2}, {"iters", 5}, {"results", json::array()}};
  for (const auto& [b, records] : per_backend)
    for (std::size_t i = 0; i < 3; ++i) {
      json s = json::array();
      for (const double x : records[i]) s.push_back(x * kRepeat[i]);
      d["results"].push_back({{"index", i},
                              {"op", i < 2 ? "bcast" : "reduce"},
                              {"sf", "A"},
                              {"backend", b},
                              {"unit", "float64"},
                              {"bs", i == 1 ? 4 : 1},
                              {"repeat", static_cast<int>(kRepeat[i])},
                              {"bytes", 8},
                              {"messages", 1},
                              {"min_us", s[0]},
                              {"median_us", s[2]},
                              {"max_us", s[4]},
                              {"samples_us", s}});
    }
  return d;
}

// The application's total on a backend at sample k (1: p25, 2: median, 3: p75), by hand: per row,
// its count x the records' per-call values weighted by their repeats.
double total(const std::array<Five, 3>& r, std::size_t k) {
  const double bcast = (kRepeat[0] * r[0][k] + kRepeat[1] * r[1][k]) / (kRepeat[0] + kRepeat[1]);
  return 1010 * bcast + 5 * r[2][k];
}

std::string ms(double us) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f", us / 1e3);
  return b;
}

class CliReport : public sfr_test::CliTest {
protected:
  std::string report(const std::vector<std::pair<std::string, std::array<Five, 3>>>& per_backend) {
    const auto t = write("cap.json", kTrace), tm = write("timing.json", timing(per_backend).dump()), out = dir_ / "r.md";
    const auto r = run("report " + t.string() + " --timing " + tm.string() + " -o " + out.string());
    EXPECT_EQ(r.status, 0) << r.err;
    return sfr_test::slurp(out);
  }
};

}  // namespace

// Each backend's total and p25-p75 in the verdict's table, and the fastest: petsc's bs-4 record is
// slow (100 us a call) but called 10 times of 1,010, so petsc is fastest; a plain mean of the
// records (or their sum) would make shm fastest.
TEST_F(CliReport, TheVerdictsTotalsWeighARowsRecordsByTheirCalls) {
  const std::array<Five, 3> petsc = {Five{8, 9, 10, 11, 12}, Five{90, 95, 100, 105, 110}, Five{3, 3, 3, 3, 3}};
  const std::array<Five, 3> shm = {Five{10, 11, 12, 13, 14}, Five{18, 19, 20, 21, 22}, Five{3, 3, 3, 3, 3}};
  const std::string text = report({{"petsc", petsc}, {"shm", shm}});
  for (const auto& [b, r] : {std::pair{"petsc", petsc}, std::pair{"shm", shm}}) {
    const std::string row = std::string("| ") + b + " | " + ms(total(r, 2)) + " | " + ms(total(r, 1)) + "-" + ms(total(r, 3)) + " |";
    EXPECT_NE(text.find(row), std::string::npos) << row << "\n" << text;
  }
  ASSERT_LT(total(petsc, 2), total(shm, 2));
  EXPECT_NE(text.find("**Verdict:** `petsc` is fastest."), std::string::npos) << text;
}

// "Beyond the noise" only where the fastest's p75 is below PETSc's p25: apart, overlapping,
// touching (equal: not beyond), and a tie of the totals.
TEST_F(CliReport, BeyondTheNoiseOnlyWhereTheRangesAreApart) {
  const std::array<Five, 3> petsc = {Five{10, 12, 13, 14, 16}, Five{10, 12, 13, 14, 16}, Five{1, 1, 1, 1, 1}};
  for (const Five& shm_bcast : {Five{8, 9, 10, 11, 12}, Five{8, 9, 10, 13, 14}, Five{8, 9, 10, 12, 14}, Five{10, 12, 13, 14, 16}}) {
    const std::array<Five, 3> shm = {shm_bcast, shm_bcast, Five{1, 1, 1, 1, 1}};
    const std::string text = report({{"petsc", petsc}, {"shm", shm}});
    const bool apart = total(shm, 3) < total(petsc, 1), tie = total(shm, 2) == total(petsc, 2);
    std::smatch m;
    const std::string verdict = std::regex_search(text, m, std::regex(R"(\*\*Verdict:\*\*[^\n]*)")) ? m.str() : "";
    ASSERT_FALSE(verdict.empty()) << text;
    if (tie) {
      EXPECT_EQ(verdict.find("beyond the noise"), std::string::npos) << verdict;
      continue;
    }
    char ratio[16];
    std::snprintf(ratio, sizeof ratio, "%.2fx", total(shm, 2) / total(petsc, 2));
    EXPECT_NE(verdict.find(std::string("`shm` is fastest, ") + ratio + " PetscSF's best type (`petsc`), " +
                           (apart ? "beyond the noise" : "within the noise of it")),
              std::string::npos)
        << shm_bcast[3] << ": " << verdict;
  }
}

// "Measured vs predicted" reads the 20th percentile of the iterations, the nearest rank below:
// of 50 samples of 1..50 us (scrambled), the 10th smallest, 10 us ((50 - 1) / 5 + 1), per call of
// an op whose iteration is 4 calls: 2.50. (The 11th, 11 us, is where floor(0.2 x 50) lands.)
TEST_F(CliReport, MeasuredAgainstPredictedReadsTheTwentiethPercentile) {
  const auto t = write("cap.json", kTrace), sim = dir_ / "sim.json", out = dir_ / "r.md";
  ASSERT_EQ(run("simulate " + t.string() + " --machine generic --backend basic --json " + sim.string()).status, 0);
  json d = timing({{"basic", {Five{8, 9, 10, 11, 12}, Five{8, 9, 10, 11, 12}, Five{3, 3, 3, 3, 3}}}});
  auto& r = d["results"][0];
  r["repeat"] = 4;
  r["samples_us"] = json::array();
  for (int k = 0; k < 50; ++k) r["samples_us"].push_back((k * 17 + 5) % 50 + 1);
  r["min_us"] = 1, r["median_us"] = 25, r["max_us"] = 50;
  const auto tm = write("timing.json", d.dump());
  const auto rep = run("report " + t.string() + " --timing " + tm.string() + " --simulation " + sim.string() + " -o " + out.string());
  ASSERT_EQ(rep.status, 0) << rep.err;
  const std::string text = sfr_test::slurp(out);
  EXPECT_NE(text.find("| 0 | bcast | basic | 2.50 |"), std::string::npos) << text;
}
