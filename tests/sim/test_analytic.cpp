// The study's closed forms (Table 6) against values worked by hand from the lassen preset
// (Tables 2-4), and the rankings the study reports for the Fig. 4.3 scenarios.
#include <gtest/gtest.h>

#include <set>

#include "sim/analytic.hpp"

using namespace sfr;
using namespace sfr::sim::analytic;

namespace {
const sim::MachineModel kLassen = *sim::preset("lassen");
constexpr double kRel = 1e-12;
void near(double got, double want) { EXPECT_NEAR(got, want, want * kRel); }
}  // namespace

TEST(SimAnalytic, OnNode) {
  const Model m(kLassen);
  EXPECT_EQ(m.gpus_per_socket, 2);
  EXPECT_EQ(m.procs_per_socket, 20);
  // 100 bytes, short, host: 1 x (3.67e-7 + 1.32e-10*100) + 2 x (9.25e-7 + 1.19e-9*100)
  near(m.t_on(100, false), 3.802e-7 + 2 * 1.044e-6);
  // 10000 bytes, rendezvous, GPU: 1 x (1.82e-5 + 1.46e-7) + 2 x (1.93e-5 + 2.39e-7)
  near(m.t_on(10000, true), 1.8346e-5 + 2 * 1.9539e-5);
  // split, 1000 bytes (eager): 19 x (4.61e-7 + 7.12e-8) + 20 x (1.17e-6 + 2.18e-7)
  near(m.t_on_split(1000, 1), 19 * 5.322e-7 + 20 * 1.388e-6);
  // four processes per GPU: 4 x ... + 5 x ...
  near(m.t_on_split(1000, 4), 4 * 5.322e-7 + 5 * 1.388e-6);
}

TEST(SimAnalytic, OffNodeAndCopies) {
  const Model m(kLassen);
  // 4 short messages, 2000 bytes per process, 8000 per node: 4 x 1.89e-6 + max(3.352e-7, 1.376e-6)
  near(m.t_off(4, 2000, 8000, 500), 7.56e-6 + 1.376e-6);
  // injection bound: 2.44e-6 + max(100000 x 4.19e-11, 1000 x 3.79e-10)
  near(m.t_off(1, 1000, 100000, 1000), 2.44e-6 + 4.19e-6);
  // device-aware, rendezvous: 2 x 1.10e-5 + 20000 x 1.72e-10
  near(m.t_off_da(2, 20000, 10000), 2.2e-5 + 3.44e-6);
  // copies: the data sent leaves the GPU (D2H 1.27e-5 + 1.96e-11 x 1000), the data received
  // enters it (H2D 1.30e-5 + 1.85e-11 x 2000)
  near(m.t_copy(1000, 2000, 1), 1.27e-5 + 1.96e-8 + 1.30e-5 + 3.7e-8);
  near(m.t_copy(1000, 2000, 4), 1.47e-5 + 1.5e-7 + 1.52e-5 + 1.104e-6);
  // standard staged: the max-rate model as printed (no copies)
  near(m.standard_staged(8, 8000, 1000, 4), 8 * 2.44e-6 + std::max(4 * 8000 * 4.19e-11, 8000 * 3.79e-10));
}

TEST(SimAnalytic, StrategiesCombineTheTerms) {
  const Model m(kLassen);
  Params p;
  p.s_proc = 8000, p.s_node = 32000, p.s_node_node = 8000, p.m_proc_node = 4, p.m_node_node = 1;
  near(m.three_step(p, false), m.t_off(1, 8000, 32000, 8000) + 2 * m.t_on(8000, false) + m.t_copy(8000, 8000, 1));
  near(m.three_step(p, true), m.t_off_da(1, 8000, 8000) + 2 * m.t_on(8000, true));
  near(m.two_step(p, false), m.t_off(4, 8000, 32000, 2000) + m.t_on(8000, false) + m.t_copy(8000, 8000, 1));
  near(m.split(p, true), m.t_off(4, 800, 32000, 200) + 2 * m.t_on_split(32000, 4) + m.t_copy(8000, 8000, 4));
  // a worked number: 3-step staged = 2.44e-6 + max(32000*4.19e-11, 8000*3.79e-10)
  //   + 2 x [ (4.61e-7 + 8000*7.12e-11) + 2 (1.17e-6 + 8000*2.18e-10) ]
  //   + (1.27e-5 + 8000*1.96e-11) + (1.30e-5 + 8000*1.85e-11)
  const double hand =
      2.44e-6 + 3.032e-6 + 2 * ((4.61e-7 + 5.696e-7) + 2 * (1.17e-6 + 1.744e-6)) + (1.27e-5 + 1.568e-7) + (1.30e-5 + 1.48e-7);
  near(m.three_step(p, false), hand);
}

namespace {
std::string best(const Scenario& sc, int k = 0) { return predict(Model(kLassen), sc)[static_cast<std::size_t>(k)].strategy; }
}  // namespace

TEST(SimAnalytic, StudyRankings) {
  // 32 messages to 4 nodes, small messages: standard and 3-step (staged) are the fastest.
  for (double bytes : {10.0, 100.0, 1000.0}) {
    const Scenario sc{32, 4, bytes, 0};
    std::set<std::string> top = {best(sc, 0), best(sc, 1)};
    EXPECT_EQ(top, (std::set<std::string>{"basic", "3step"})) << bytes;
  }
  // 256 messages, up to 1e3 bytes: a staged node-aware strategy (3-step or 2-step) is best.
  for (int nodes : {4, 16})
    for (double bytes : {10.0, 100.0, 1000.0})
      for (double dup : {0.0, 0.25}) {
        const auto b = best({256, nodes, bytes, dup});
        EXPECT_TRUE(b == "3step" || b == "2step") << nodes << " " << bytes << " " << b;
      }
  // 256 messages of 1e4 bytes: the device-aware node-aware strategies win.
  for (int nodes : {4, 16}) {
    const auto b = best({256, nodes, 10000, 0});
    EXPECT_TRUE(b == "3step:aware" || b == "2step:aware") << nodes << " " << b;
  }
  // Duplicate removal changes nothing for few messages, and only helps node-aware strategies.
  for (int nodes : {4, 16}) EXPECT_EQ(best({32, nodes, 100, 0}), best({32, nodes, 100, 0.25}));
}
