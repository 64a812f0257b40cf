// One plan (src/plan): for every backend and node-aware strategy, the messages and bytes per op
// that `run --timing` reports (and that the executor posted: basic, shm and the node-aware
// strategies count their sends, and the run fails when they differ from the plan) equal what
// `simulate --json` times and what `inspect --json --backend B` prints, on the sample traces and on
// seeded random traces of 2-8 ranks with 1, 2 and 4 ranks per node, every op kind included
// (fetch_and_op's two rounds, degree's counts, gather and scatter on the multi-SF).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

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
  sfr_test::add_random_plan_cases(v, 2, 8, true);
  v.push_back({"large_runs_rpn2", {}, 2, 2, sfr_test::large_runs_trace});  // shm's pairs left to MPI
  return v;
}

// Every op kind once (bcast, reduce and fetch_and_op with a block size, gather, scatter, degree).
trace::Trace random_case(int nranks, unsigned seed) {
  auto t = sfr_test::sweep_trace(sfr_test::random_graph(nranks, seed), "plan-random-" + std::to_string(nranks));
  std::vector<core::OpSpec> keep;
  std::map<core::OpKind, int> seen;
  for (const auto& op : t.ops)
    if (seen[op.op]++ == 0 || (op.bs == 3 && seen[op.op] < 40 && op.unit == core::Unit::float64 && op.mpi_op == core::MpiOp::sum))
      keep.push_back(op);
  t.ops = keep;
  return t;
}

class PlanAgreement : public ::testing::TestWithParam<Case> {};

}  // namespace

TEST_P(PlanAgreement, RunSimulateAndInspectCountTheSameMessages) {
  const Case& c = GetParam();
  const fs::path dir = fs::temp_directory_path() / ("sfr_plan_" + std::to_string(::getpid()) + "_" + c.name);
  fs::create_directories(dir);
  trace::Trace t = sfr_test::trace_of(c, [&] { return random_case(c.nranks, 100u + static_cast<unsigned>(c.nranks)); });
  t.machine = trace::Machine{c.ranks_per_node, c.ranks_per_node, 0};
  const std::string tf = (dir / "t.json").string();
  trace::write_trace_file(t, tf);
  std::string list;
  for (const auto& b : kBackends) list += (list.empty() ? "" : ",") + b;
  const auto run = sfr_test::run_command(sfr_test::mpiexec(c.nranks) + SFR_CLI " run " + tf + " --backend " + list +
                                             " --machine generic --warmup 0 --iters 1 --timing " + (dir / "timing.json").string(),
                                         300);
  ASSERT_EQ(run.status, 0) << run.out;
  const auto sim = sfr_test::run_command(std::string(SFR_CLI) + " simulate " + tf + " --machine generic --all-backends --json " +
                                         (dir / "sim.json").string());
  ASSERT_EQ(sim.status, 0) << sim.out;
  const json timing = json::parse(sfr_test::slurp(dir / "timing.json"));
  const json simulated = json::parse(sfr_test::slurp(dir / "sim.json"));
  std::map<std::pair<std::string, std::size_t>, std::pair<long long, long long>> predicted;  // (backend, op) -> messages, bytes
  for (const auto& b : simulated["backends"])
    for (const auto& o : b["ops"]) predicted[{b["backend"], o["index"]}] = {o["messages_per_call"], o["bytes_per_call"]};
  std::map<std::string, json> inspected;
  for (const auto& b : kBackends) {
    const auto ins = sfr_test::run_command(std::string(SFR_CLI) + " inspect " + tf + " --json --backend " + b +
                                           (b.rfind("split", 0) == 0 ? " --machine generic" : "") + " -o " + (dir / (b + ".json")).string());
    ASSERT_EQ(ins.status, 0) << b << ": " << ins.out;
    inspected[b] = json::parse(sfr_test::slurp(dir / (b + ".json")));
  }
  std::size_t compared = 0;
  for (const auto& r : timing["results"]) {
    const std::string b = r["backend"];
    const std::size_t i = r["index"];
    const long long msgs = r["messages"], bytes = r["bytes"];
    const auto p = predicted.find({b, i});
    ASSERT_NE(p, predicted.end()) << b << " op " << i << " not simulated";
    EXPECT_EQ(p->second.first, msgs) << b << " op " << i << ": simulate vs run --timing messages";
    EXPECT_EQ(p->second.second, bytes) << b << " op " << i << ": simulate vs run --timing bytes";
    const json& io = inspected.at(b)["ops"][i];
    EXPECT_EQ(io["messages"].get<long long>(), msgs) << b << " op " << i << ": inspect vs run --timing messages";
    EXPECT_EQ(io["remote_bytes"].get<long long>(), bytes) << b << " op " << i << ": inspect vs run --timing bytes";
    ++compared;
  }
  EXPECT_EQ(compared, kBackends.size() * t.ops.size());
  if (!HasFailure()) fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Mpi, PlanAgreement, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           std::string n = i.param.name;
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });
