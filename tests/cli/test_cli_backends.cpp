// sf-replay backends: the catalogue's rows with given traits, what scripts take instead of lists of
// their own. Each selection is checked against the rows read here from core::kBackends, and the
// lists the scripts used to spell out by hand are what they now ask for.
#include <gtest/gtest.h>

#include <string>

#include "core/backends.hpp"
#include "support/cli_fixture.hpp"

using CliBackends = sfr_test::CliTest;

namespace {

// The names of the rows `keep` selects, comma-separated, in catalogue order.
template <class Keep>
std::string names_where(Keep keep) {
  std::string s;
  for (const auto& b : sfr::core::kBackends)
    if (keep(b)) s += (s.empty() ? "" : ",") + std::string(b.name);
  return s + "\n";
}

}  // namespace

TEST_F(CliBackends, NamesAreTheRowsWithEveryTraitAndNoneOfTheNoTraits) {
  using B = sfr::core::BackendInfo;
  EXPECT_EQ(run("backends --names").out, names_where([](const B&) { return true; }));
  EXPECT_EQ(run("backends --names simulated").out, names_where([](const B& b) { return b.simulated; }));
  EXPECT_EQ(run("backends --names auto no-node-aware").out, names_where([](const B& b) { return b.auto_candidate && !b.node_aware; }));
  EXPECT_EQ(run("backends --names gpu").out, names_where([](const B& b) { return b.gpu; }));
  // The lists .ci/main, sim/bench_model.sh and tests/synthetic/run_suite.sh spelled out before.
  EXPECT_EQ(run("backends --names no-gpu no-petsc no-pattern-only").out, "basic,neighbor,window,alltoallv,shm,3step,2step,split-md,split-dd\n");
  EXPECT_EQ(run("backends --names nodes").out, "shm,3step,2step,split-md,split-dd\n");
  EXPECT_EQ(run("backends --names auto no-node-aware").out, "basic,neighbor,window,alltoallv,shm\n");
  EXPECT_EQ(run("backends --names auto node-aware").out, "3step,2step,split-md\n");
  EXPECT_EQ(run("backends --names no-gpu no-petsc no-pattern-only no-nodes").out, "basic,neighbor,window,alltoallv\n");
}

TEST_F(CliBackends, TheTableIsRunsBackendList) {
  const auto table = run("backends");
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_EQ(table.out, run("run --backend list").out);
  std::size_t lines = 0;
  for (char c : table.out) lines += c == '\n';
  EXPECT_EQ(lines, std::size(sfr::core::kBackends) + 1);  // and auto
  EXPECT_NE(table.out.find("\nauto "), std::string::npos) << table.out;
}

TEST_F(CliBackends, AnUnknownTraitOrAnEmptySelectionIsBadInput) {
  const auto bad = run("backends --names fast");
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.out, "");
  EXPECT_NE(bad.err.find("unknown trait 'fast'"), std::string::npos) << bad.err;
  const auto none = run("backends --names gpu no-gpu");
  EXPECT_EQ(none.status, 2);
  EXPECT_EQ(none.out, "");
  EXPECT_NE(none.err.find("no backend has every trait given"), std::string::npos) << none.err;
}
