// sf-replay across real nodes: a cluster of network namespaces on this machine (.ci/cluster: each
// node its own hostname, address and cores, a bridge between them, Open MPI started into them by
// an rsh agent), so ranks on different nodes talk TCP through the kernel and ranks of one node
// share memory. On 2 nodes x 2 ranks and 2 x 1:
//   - every host backend and node-aware strategy conforms on the sample traces and on random
//     forests (run --backend all --dump checks each backend's dump against the reference),
//     window included: Debian's Open MPI excludes the one-sided component TCP needs, which the
//     executor allows again (exec/mpi/launch.hpp); where it stays excluded, window is refused
//     with one line and `all` runs the others;
//   - the placement comes from the launch: a trace whose machine puts ranks of two nodes on one
//     is said in one line and run on the launch's nodes, --ranks-per-node that does is refused;
//   - calibrate measures the real tiers (the network between nodes, shared memory within) and
//     says its nodes are real;
//   - a cut link ends the job through --stall-timeout with one line naming the op, the backend
//     and the rank waited for; a rank killed with SIGKILL ends it within 10 s; no output either way.
// Needs root, iproute2 and util-linux (network namespaces); without them the tests skip, saying
// why, unless SFR_REQUIRE_CLUSTER is set (the test command sets it where it runs as root).
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <cmath>
#include <set>
#include <thread>

#include "support/process.hpp"
#include "support/require.hpp"
#include "support/random_trace.hpp"
#include "support/sample_traces.hpp"
#include "trace/reader.hpp"
#include "trace/writer.hpp"

namespace fs = std::filesystem;
using namespace sfr;
using sfr_test::occurrences;

namespace {

const std::string kCluster = std::string("bash ") + SFR_SOURCE_DIR + "/.ci/cluster";

// A cluster for one test: up in SetUp, down in TearDown (and collected by the next `up` if this
// process dies first).
class Cluster : public ::testing::Test {
protected:
  void up(int nodes, int slots) {
    if (::geteuid() != 0 || std::system("command -v ip nsenter unshare >/dev/null 2>&1") != 0)
      SFR_SKIP_OR_REQUIRE("SFR_REQUIRE_CLUSTER", "the cluster tests need root, iproute2 and util-linux");
    const auto r = sfr_test::run_command(kCluster + " up " + std::to_string(nodes) + " " + std::to_string(slots) + " --owner " +
                                         std::to_string(::getpid()));
    ASSERT_EQ(r.status, 0) << r.out;
    id_ = r.out.substr(0, r.out.find('\n'));
    ranks_ = nodes * slots;
    dir_ = fs::temp_directory_path() / ("sfr_cluster_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!id_.empty()) sfr_test::run_command(kCluster + " down " + id_);
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  // `env` (VAR=VALUE ...) COMMAND on the cluster's head node, with its mpiexec on PATH.
  std::string on_cluster(const std::string& command, const std::string& env = "") const {
    sfr_test::own_mpi_session_dir();
    return kCluster + " exec " + id_ + " -- env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " + env + " " + command;
  }
  sfr_test::Proc sf_replay(const std::string& args, const std::string& env = "", int np = 0) const {
    return sfr_test::run_command(on_cluster("mpiexec -n " + std::to_string(np > 0 ? np : ranks_) + " " + SFR_CLI + " " + args, env), 300);
  }
  fs::path path(const std::string& name) const { return dir_ / name; }
  // The processes of sf-replay in node k's namespace.
  std::vector<pid_t> ranks_on(int k) const {
    const auto r = sfr_test::run_command(kCluster + " pids " + id_ + " " + std::to_string(k));
    std::vector<pid_t> out;
    std::istringstream in(r.out);
    for (pid_t p; in >> p;)
      if (sfr_test::slurp("/proc/" + std::to_string(p) + "/comm").rfind("sf-replay", 0) == 0) out.push_back(p);
    return out;
  }
  std::string id_;
  int ranks_ = 0;
  fs::path dir_;
};

// Two ranks, each with its two leaves on the other rank's roots (the sweep of every op on them):
// in any op each rank waits for the other.
fs::path pair_trace(const fs::path& dir) {
  core::Graph g(2);
  for (int r = 0; r < 2; ++r) {
    g[r].nroots = 2;
    g[r].add_leaf(0, 1 - r, 0);
    g[r].add_leaf(1, 1 - r, 1);
  }
  const fs::path p = dir / "pair.json";
  trace::write_trace_file(sfr_test::sweep_trace(g, "pair"), p.string());
  return p;
}

fs::path random_trace(const fs::path& dir, int nranks, unsigned seed) {
  const fs::path p = dir / ("random-" + std::to_string(nranks) + "-" + std::to_string(seed) + ".json");
  trace::write_trace_file(sfr_test::sweep_trace(sfr_test::random_graph(nranks, seed), "random-" + std::to_string(nranks)), p.string());
  return p;
}

// run --backend all --dump: every backend's dump checked against the reference (exit 2 naming
// the ones that do not conform), the node-aware ones on the launch's nodes.
void conforms_on_every_backend(const Cluster& c, const std::function<sfr_test::Proc(const std::string&)>& run, const fs::path& trace,
                               const fs::path& dump, const std::string& more = "") {
  const auto r = run("run " + trace.string() + " --backend all --dump " + dump.string() + more);
  ASSERT_EQ(r.status, 0) << trace << ":\n" << r.out;
  const std::string ops = std::to_string(trace::read_trace_file(trace.string()).trace().ops.size());
  for (const char* b : {"basic", "neighbor", "window", "alltoallv", "shm", "3step", "2step", "split-md", "split-dd"})
    EXPECT_EQ(occurrences(r.out, "backend " + std::string(b) + ": " + ops + " ops conform to the reference"), 1u)
        << b << " did not run on " << trace << ":\n" << r.out;
  EXPECT_EQ(occurrences(r.out, "problem(s)"), 0u) << r.out;
  (void)c;
}

}  // namespace

TEST_F(Cluster, EveryBackendConformsOnTwoNodesOfTwo) {
  up(2, 2);
  const auto run = [&](const std::string& args) { return sf_replay(args); };
  for (const auto& t : sfr_test::sample_traces(4))
    if (trace::read_trace_file(t.string()).trace().nranks == 4) conforms_on_every_backend(*this, run, t, path("dump.json"));
  for (unsigned seed : {1u, 2u}) conforms_on_every_backend(*this, run, random_trace(dir_, 4, seed), path("dump.json"));
}

TEST_F(Cluster, EveryBackendConformsOnTwoNodesOfOne) {
  up(2, 1);
  const auto run = [&](const std::string& args) { return sf_replay(args); };
  for (unsigned seed : {3u, 4u, 5u}) conforms_on_every_backend(*this, run, random_trace(dir_, 2, seed), path("dump.json"));
  // A trace captured on one node of 2 ranks, replayed on these two: the launch's nodes decide, so
  // that each backend's timed messages are its plan's (the runner checks them) and it conforms.
  auto t = sfr_test::sweep_trace(sfr_test::random_graph(2, 9), "captured-on-one-node");
  t.machine = trace::Machine{2, 2, 0};
  trace::write_trace_file(t, path("one-node.json").string());
  conforms_on_every_backend(*this, run, path("one-node.json"), path("dump.json"), " --timing " + path("t.json").string() + " --iters 2");
}

// The trace's machine puts both ranks on one node; the launch has two: one line, the launch's
// nodes, every backend conforms (before: "the executor posted 104 messages ..., the plan says 0"
// on shm). --ranks-per-node that would join the nodes is refused.
TEST_F(Cluster, ThePlacementComesFromTheLaunch) {
  up(2, 1);
  auto t = sfr_test::sweep_trace(sfr_test::random_graph(2, 7), "one-node");
  t.machine = trace::Machine{2, 2, 0};
  const fs::path file = path("one-node.json");
  trace::write_trace_file(t, file.string());
  const auto r = sf_replay("run " + file.string() + " --backend shm,3step,split-md --dump " + path("d.json").string() + " --timing " +
                           path("t.json").string() + " --iters 3");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(occurrences(r.out, "warning: the trace's machine puts 2 ranks on a node, which would put ranks 0 and 1 on one node, but this "
                               "launch runs them on different nodes (2 nodes of 1 rank); the run uses the launch's nodes"),
            1u)
      << r.out;
  EXPECT_EQ(occurrences(r.out, "conform to the reference"), 3u) << r.out;
  const auto refused = sf_replay("run " + file.string() + " --backend shm --ranks-per-node 2");
  EXPECT_EQ(refused.status, 2) << refused.out;
  EXPECT_EQ(occurrences(refused.out, "error: --ranks-per-node: 2 ranks per node would put ranks 0 and 1 on one node"), 1u) << refused.out;
}

// With the one-sided component TCP needs excluded (Debian's own setting, kept by the user),
// window cannot run across the nodes: named, it is refused with one line; `all` runs the others.
TEST_F(Cluster, AWindowTheMpiCannotMakeIsRefusedBeforeTheRun) {
  up(2, 1);
  const fs::path t = random_trace(dir_, 2, 8);
  const std::string env = "OMPI_MCA_osc=^ucx,pt2pt";
  const auto named = sf_replay("run " + t.string() + " --backend window", env);
  EXPECT_EQ(named.status, 2) << named.out;
  EXPECT_EQ(occurrences(named.out, "error: --backend: window: this MPI library makes no one-sided window across the ranks of this launch"), 1u)
      << named.out;
  const auto all = sf_replay("run " + t.string() + " --backend all --dump " + path("d.json").string(), env);
  ASSERT_EQ(all.status, 0) << all.out;
  EXPECT_EQ(occurrences(all.out, "skipped backend window: --backend: window: this MPI library makes no one-sided window"), 1u) << all.out;
  EXPECT_EQ(occurrences(all.out, "ops conform to the reference"), 8u) << all.out;
}

// calibrate on real nodes: the network tier is TCP between the nodes, the on-node tier shared
// memory, and the machine file says its nodes are the launch's (not emulated).
TEST_F(Cluster, CalibrateMeasuresTheRealTiers) {
  up(2, 2);
  const fs::path out = path("machine.json");
  // (The fewest executor rounds: this test reads the ping-pong tiers, and each round over TCP
  // takes about a second.)
  const auto r = sf_replay("calibrate --no-default --executor-seconds 0 -o " + out.string());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("2 node(s) of 2 ranks (real: a network between them)"), std::string::npos) << r.out;
  const auto cal = nlohmann::json::parse(sfr_test::slurp(out)).at("calibration");
  EXPECT_EQ(cal.at("nodes"), 2);
  EXPECT_EQ(cal.at("launch_nodes"), 2);
  EXPECT_EQ(cal.at("emulated_nodes"), false);
  const auto& pp = cal.at("measured").at("pingpong");
  ASSERT_TRUE(pp.contains("network")) << pp.dump();
  ASSERT_TRUE(pp.contains("socket")) << pp.dump();
  // The largest message one way (1 MiB): TCP through the kernel's socket buffers against one
  // shared-memory copy (here 410 us against 84). Not 8 B: with 4 ranks on 2 cores of a loaded host
  // both tiers' short latency is a context switch (8.3 us over TCP against 8.45 on the node, once).
  const auto& net_samples = pp.at("network").at("bytes_seconds");
  const auto& shm_samples = pp.at("socket").at("bytes_seconds");
  ASSERT_EQ(net_samples.back().at(0), shm_samples.back().at(0));
  const double net = net_samples.back().at(1), shm = shm_samples.back().at(1);
  EXPECT_GT(net, 1.5 * shm) << "network " << net << " s, on-node " << shm << " s";
}

// The calibrated model across the network (2 x 1): calibrate on the cluster, then validate-model
// on the SpMV exchanges of two shared matrices the fit never saw, every backend auto may choose.
// Checked here is what load cannot change: every op on every backend is measured and predicted;
// every prediction pays at least half the network's smallest one-way time calibrate measured
// (each rank's ghosts are on the other node: a prediction that took the node's tier would be a
// tenth of it); the document's errors are its own numbers'; each op is ranked. How close the
// predictions come is the benchmark's target (sim/bench_cluster.sh: median |error| <= 15 %,
// predicted best right in >= 80 % of ops over all nine matrices): on a loaded CI machine the
// least of validate-model's three launches once missed a 50 % bound on its median (issue 76).
TEST_F(Cluster, PredictionsCoverEveryOpAndBackendAcrossTheNetwork) {
  up(2, 1);
  std::string traces;
  for (const char* m : {"bcsstk13", "dwt_992"}) {
    const fs::path t = path(std::string(m) + ".json");
    const auto g = sfr_test::run_command(std::string(SFR_CLI) + " generate spmv --matrix " + SFR_MATRICES_DIR + "/" + m +
                                         ".mtx --ranks 2 --ranks-per-node 1 --partition rows -o " + t.string());
    ASSERT_EQ(g.status, 0) << g.out;
    traces += " " + t.string();
  }
  const fs::path machine = path("machine.json"), check = path("check.json");
  const auto cal = sf_replay("calibrate --no-default --executor-seconds 0 -o " + machine.string());  // (no accuracy judged)
  ASSERT_EQ(cal.status, 0) << cal.out;
  const auto fitted = nlohmann::json::parse(sfr_test::slurp(machine));
  const auto& net = fitted.at("calibration").at("measured").at("pingpong").at("network");
  const double smallest_one_way = net.at("bytes_seconds").at(0).at(1).get<double>() * 1e6;
  const auto v = sf_replay("validate-model" + traces + " --machine " + machine.string() +
                           " --backend basic,neighbor,window,alltoallv,shm,3step,2step,split-md --iters 100 --json " + check.string());
  ASSERT_EQ(v.status, 0) << v.out;
  const auto doc = nlohmann::json::parse(sfr_test::slurp(check));
  std::set<std::string> backends;
  for (const auto& p : doc.at("pairs")) {
    backends.insert(p.at("backend").get<std::string>());
    const double measured = p.at("measured_us"), predicted = p.at("predicted_us");
    EXPECT_GT(measured, 0) << p.dump();
    EXPECT_GT(predicted, 0.5 * smallest_one_way) << p.dump() << " (the network's smallest one-way time: " << smallest_one_way << " us)";
    EXPECT_NEAR(p.at("error").get<double>(), (predicted - measured) / measured, 1e-9) << p.dump();
  }
  EXPECT_EQ(doc.at("pairs").size(), 2u * 2 * 8) << v.out;
  EXPECT_EQ(backends.size(), 8u) << v.out;
  EXPECT_EQ(doc.at("summary").at("ops_ranked"), 4) << v.out;
}

// A node's link cut in the middle of a run: no rank makes progress, and after --stall-timeout the
// job ends through MPI_Abort with one line naming the op, the backend and the rank waited for;
// every rank is gone on both nodes (a rank whose abort cannot reach the launcher leaves on its
// own); once the link is back, mpiexec exits non-zero; nothing is written.
TEST_F(Cluster, ACutLinkEndsTheJobAfterTheStallTimeout) {
  up(2, 1);
  const fs::path t = pair_trace(dir_);
  sfr_test::Background job(on_cluster("mpiexec -n 2 " + std::string(SFR_CLI) + " run " + t.string() +
                                      " --backend basic --iters 100000000 --stall-timeout 3 --timing " + path("t.json").string()));
  for (int k = 0; k < 500 && (ranks_on(0).empty() || ranks_on(1).empty()); ++k) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_FALSE(ranks_on(1).empty()) << job.output();
  std::this_thread::sleep_for(std::chrono::seconds(1));
  ASSERT_EQ(sfr_test::run_command(kCluster + " cut " + id_ + " 1").status, 0);
  bool said = false;
  for (int k = 0; k < 300 && !said; ++k) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    said = job.output().find("(--stall-timeout)") != std::string::npos;
  }
  ASSERT_TRUE(said) << job.output();
  EXPECT_NE(job.output().find("sf-replay run: error: rank 0: no progress for 3 s in op "), std::string::npos) << job.output();
  EXPECT_NE(job.output().find("on basic, waiting for rank 1 (--stall-timeout)"), std::string::npos) << job.output();
  for (int k = 0; k < 200 && !(ranks_on(0).empty() && ranks_on(1).empty()); ++k) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_TRUE(ranks_on(0).empty()) << "a rank still runs on node0";
  EXPECT_TRUE(ranks_on(1).empty()) << "a rank still runs on node1";
  ASSERT_EQ(sfr_test::run_command(kCluster + " heal " + id_ + " 1").status, 0);
  const int status = job.wait_for(30);
  EXPECT_NE(status, sfr_test::Background::kRunning) << job.output();
  EXPECT_NE(status, 0) << job.output();
  EXPECT_FALSE(fs::exists(path("t.json")));
}

// A rank killed with SIGKILL on the second node: the launcher ends the job within 10 s.
TEST_F(Cluster, ARankKilledOnAnotherNodeEndsTheJob) {
  up(2, 1);
  const fs::path t = pair_trace(dir_);
  sfr_test::Background job(on_cluster("mpiexec -n 2 " + std::string(SFR_CLI) + " run " + t.string() +
                                      " --backend shm --iters 100000000 --timing " + path("t.json").string()));
  std::vector<pid_t> remote;
  for (int k = 0; k < 500 && (remote = ranks_on(1)).empty(); ++k) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(remote.size(), 1u) << job.output();
  std::this_thread::sleep_for(std::chrono::seconds(1));
  ::kill(remote[0], SIGKILL);
  const int status = job.wait_for(10);
  ASSERT_NE(status, sfr_test::Background::kRunning) << "still running 10 s after the kill\n" << job.output();
  EXPECT_NE(status, 0) << job.output();
  EXPECT_TRUE(ranks_on(0).empty());
  EXPECT_FALSE(fs::exists(path("t.json")));
}
