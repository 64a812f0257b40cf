// The plan against what the executor really sends, counted from outside it: every backend and
// node-aware strategy runs every op of a trace under a PMPI counter (tests/support/pmpi_counts.cpp,
// preloaded), which records each message the ranks originate or pull (point to point, the data of
// neighbourhood alltoallv and alltoallv, one-sided puts, gets and accumulates) between the
// runner's op marks; per (backend, op), the messages and bytes between every pair of ranks must be
// the plan's (plan::op_rounds) on the placement the run reports (its timing document's
// ranks_per_node): the launch's nodes where the trace has none, the trace's emulated ones where it
// has. run --timing, inspect and simulate all report the plan; this is the one check of the plan
// against the MPI calls themselves.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/peer_lists.hpp"
#include "plan/rounds.hpp"
#include "support/backends.hpp"
#include "support/process.hpp"
#include "support/large_runs.hpp"
#include "support/random_trace.hpp"
#include "support/plan_cases.hpp"
#include "trace/reader.hpp"
#include "trace/writer.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace sfr;

namespace {

const std::vector<std::string> kBackends = sfr_test::graph_backends();

using Case = sfr_test::PlanCase;

std::vector<Case> cases() {
  std::vector<Case> v = sfr_test::sample_plan_cases();
  for (int n = 2; n <= 6; n += 2) v.push_back({"random" + std::to_string(n) + "_launch", {}, n, 0});
  sfr_test::add_random_plan_cases(v, 3, 8, false);
  v.push_back({"large_runs_rpn2", {}, 2, 2, sfr_test::large_runs_trace});  // shm's pairs left to MPI
  return v;
}

// Every op kind (bcast, reduce and fetch_and_op, with block sizes 1 and 3, gather, scatter, degree).
trace::Trace random_case(int nranks, unsigned seed) {
  auto t = sfr_test::sweep_trace(sfr_test::random_graph(nranks, seed), "counts-random-" + std::to_string(nranks));
  std::vector<core::OpSpec> keep;
  std::map<std::pair<core::OpKind, int>, int> seen;
  for (const auto& op : t.ops)
    if (seen[{op.op, op.bs}]++ == 0) keep.push_back(op);
  t.ops = keep;
  return t;
}

// Per (source, destination): messages and bytes.
using Traffic = std::map<std::pair<int, int>, std::pair<long long, long long>>;

std::string show(const Traffic& t) {
  std::ostringstream o;
  for (const auto& [k, v] : t) o << " " << k.first << "->" << k.second << ":" << v.first << "x/" << v.second << "B";
  return o.str();
}

class PlanAgainstMpiCalls : public ::testing::TestWithParam<Case> {};

}  // namespace

TEST_P(PlanAgainstMpiCalls, EveryMessageIsThePlans) {
  const Case& c = GetParam();
  const fs::path dir = fs::temp_directory_path() / ("sfr_counts_" + std::to_string(::getpid()) + "_" + c.name);
  fs::remove_all(dir);
  fs::create_directories(dir / "counts");
  trace::Trace t = sfr_test::trace_of(c, [&] { return random_case(c.nranks, 200u + static_cast<unsigned>(c.nranks)); });
  t.machine.reset();
  if (c.ranks_per_node > 0) t.machine = trace::Machine{c.ranks_per_node, c.ranks_per_node, 0};
  const std::string tf = (dir / "t.json").string();
  trace::write_trace_file(t, tf);
  std::string list;
  for (const auto& b : kBackends) list += (list.empty() ? "" : ",") + b;
  const auto run = sfr_test::run_command("env LD_PRELOAD=" SFR_PMPI_COUNTS " SFR_PMPI_COUNTS=" + (dir / "counts").string() + " " +
                                             sfr_test::mpiexec(c.nranks) + SFR_CLI " run " + tf + " --backend " + list +
                                             " --machine generic --warmup 0 --iters 1 --timing " + (dir / "timing.json").string(),
                                         300);
  ASSERT_EQ(run.status, 0) << run.out;
  const json timing = json::parse(sfr_test::slurp(dir / "timing.json"));
  const int rpn = timing.at("ranks_per_node");
  EXPECT_EQ(rpn, c.ranks_per_node > 0 ? c.ranks_per_node : c.nranks) << "the run's placement";
  const std::int64_t split_cap = timing.value("split_cap", plan::RouteParams{}.split_cap);
  // Every rank's windows, in order: backend by backend, op by op.
  const auto bt = trace::read_trace_file(tf);
  const std::size_t nops = bt.trace().ops.size();
  std::vector<Traffic> counted(kBackends.size() * nops);
  for (int r = 0; r < c.nranks; ++r) {
    const json rank = json::parse(sfr_test::slurp(dir / "counts" / ("rank-" + std::to_string(r) + ".json")));
    ASSERT_EQ(rank.at("windows").size(), counted.size()) << "rank " << r;
    for (std::size_t k = 0; k < counted.size(); ++k) {
      const auto& w = rank["windows"][k];
      ASSERT_EQ(w.at("op"), k % nops);
      for (const auto& m : w.at("messages")) {
        auto& e = counted[k][{m[0].get<int>(), m[1].get<int>()}];
        e.first += 1;
        e.second += m[2].get<long long>();
      }
    }
  }
  const core::RankLayout place{c.nranks, rpn};
  for (std::size_t b = 0; b < kBackends.size(); ++b)
    for (std::size_t i = 0; i < nops; ++i) {
      const auto& op = bt.trace().ops[i];
      // One iteration runs the op `repeat` times.
      for (auto& [pair, v] : counted[b * nops + i]) {
        EXPECT_EQ(v.first % op.repeat, 0) << kBackends[b] << ", op " << i;
        v.first /= op.repeat;
        v.second /= op.repeat;
      }
      const auto rank_lists = core::build_rank_lists(bt.graph_for(op));
      Traffic planned;
      for (const auto& round : plan::op_rounds(rank_lists, op, place, plan::transport_of(core::find_backend(kBackends[b])->id), {split_cap}))
        for (const auto& m : round.msgs) {
          auto& e = planned[{m.src, m.dst}];
          e.first += 1;
          e.second += m.bytes;
        }
      EXPECT_EQ(counted[b * nops + i], planned) << kBackends[b] << ", op " << i << " (" << core::op_kind_name(op.op) << " bs " << op.bs
                                                << "):\n  MPI calls:" << show(counted[b * nops + i]) << "\n  plan:     " << show(planned);
    }
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Mpi, PlanAgainstMpiCalls, ::testing::ValuesIn(cases()), [](const auto& info) {
  std::string s = info.param.name;
  for (char& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
});
