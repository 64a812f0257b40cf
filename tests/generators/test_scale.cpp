// sf-replay scale's decisions on a capture-like trace: what it keeps (the op stream, derived SFs,
// the meta's counts), what it refuses by name and why, and what it leaves out when asked.
// Whether a regenerated graph is PETSc's is tests/capture/test_scale_petsc.cpp's question.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "generators/scale.hpp"
#include "support/process.hpp"
#include "trace/writer.hpp"

namespace {

using namespace sfr;
using nlohmann::json;

const json kDmda = {{"dim", 2}, {"sizes", {17, 13, 1}}, {"processes", {2, 2, 1}}, {"dof", 1}, {"stencil", "star"},
                    {"stencil_width", 1}, {"boundary", {"none", "none", "none"}}};

gen::StencilOptions ex5(std::array<int, 3> procs) {
  gen::StencilOptions o;
  o.size = {17, 13, 1};
  o.procs = procs;
  return o;
}

// SNES ex5 at 4 ranks as the capture writes it: its ghost update sf0, its MatMult sf1, the multi-SF
// sf2 of sf0 (a gather), and `extra` SFs without a record of how PETSc built them (ops on each).
trace::Trace captured(int extra = 0) {
  trace::Trace t;
  t.name = "capture-ex5-p4";
  t.nranks = 4;
  t.sfs.push_back(gen::explicit_sf("sf0", gen::stencil_graph(ex5({2, 2, 1}))));
  t.sfs.push_back(gen::explicit_sf("sf1", gen::dmda_matmult_graph(ex5({2, 2, 1}))));
  t.sfs.push_back({"sf2", trace::DerivedSF{trace::DeriveKind::multi, {"sf0"}, {}, false}});
  json sfs = {{{"name", "sf0"}, {"built_by", {{"role", "global_to_local"}, {"dmda", kDmda}}}},
              {{"name", "sf1"}, {"built_by", {{"role", "matmult"}, {"dmda", kDmda}}}},
              {{"name", "sf2"}}};
  json counts = {{{"sf", "sf0"}, {"op", "bcast"}, {"count", 9}},
                 {{"sf", "sf1"}, {"op", "bcast"}, {"count", 71}},
                 {{"sf", "(SFs first used beyond --max-ops)"}, {"op", "reduce"}, {"count", 7}}};
  for (int i = 0; i < extra; ++i) {
    const std::string name = "sf" + std::to_string(3 + i);
    t.sfs.push_back(gen::explicit_sf(name, gen::stencil_graph(ex5({2, 2, 1}))));
    sfs.push_back({{"name", name}});
    counts.push_back({{"sf", name}, {"op", "reduce"}, {"count", 5}});
  }
  for (const auto& def : t.sfs) {
    auto op = gen::make_op(def.name == "sf2" ? core::OpKind::gather : core::OpKind::bcast, def.name, core::MpiOp::replace);
    op.repeat = 5;
    t.ops.push_back(op);
  }
  t.meta_json = json{{"generator", "capture"}, {"ranks", 4}, {"hosts", {"a", "a", "b", "b"}}, {"sfs", sfs}, {"op_counts", counts},
                     {"ops_recorded", 87 + 5 * extra}}
                    .dump();
  return t;
}

gen::ScaleOptions opts(int ranks, bool leave_out = false) {
  gen::ScaleOptions o;
  o.ranks = ranks;
  o.leave_out = leave_out;
  return o;
}

std::string refusal(const trace::Trace& t, gen::ScaleOptions o) {
  try {
    gen::plan_scale(trace::BuiltTrace(t), "ex5.json", o);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no refusal)";
}

TEST(Scale, RegeneratesTheDmdaSfsAndKeepsTheOpStream) {
  const trace::Trace t = captured();
  const trace::BuiltTrace bt(t);
  const gen::ScaleOptions o = opts(9);
  const auto plan = gen::plan_scale(bt, "ex5.json", o);
  ASSERT_EQ(plan.regenerated.size(), 2u);
  EXPECT_EQ(plan.regenerated[0].grid_scaled, (std::array<int, 3>{3, 3, 1}));
  EXPECT_EQ(plan.derived, std::vector<std::string>{"sf2"});
  EXPECT_TRUE(plan.left_out.empty());
  const trace::Trace s = gen::scale_trace(bt, plan, o);
  EXPECT_EQ(s.nranks, 9);
  EXPECT_EQ(s.ops, t.ops);  // the same ops, repeats included
  const trace::BuiltTrace bs(s);
  EXPECT_EQ(bs.graph("sf0"), gen::stencil_graph(ex5({3, 3, 1})));
  EXPECT_EQ(bs.graph("sf1"), gen::dmda_matmult_graph(ex5({3, 3, 1})));
  EXPECT_TRUE(std::holds_alternative<trace::DerivedSF>(s.find_sf("sf2")->def));
  const json meta = json::parse(s.meta_json);
  EXPECT_EQ(meta["ranks"], 9);
  EXPECT_FALSE(meta.contains("hosts"));  // the captured ranks' hosts say nothing of 9 ranks
  EXPECT_EQ(meta["sfs"][0]["built_by"]["dmda"]["processes"], json({3, 3, 1}));
  EXPECT_EQ(meta["ops_recorded"], 80);
  EXPECT_EQ(meta["scaled"]["from_ranks"], 4);
  EXPECT_EQ(meta["scaled"]["calls_without_sf"], 7);  // counted beyond the capture's cap, never read: not scaled
  EXPECT_EQ(meta["op_counts"].size(), 2u);
  EXPECT_EQ(meta["scaled"]["regenerated"][1]["processes_captured"], json({2, 2, 1}));
}

TEST(Scale, RefusesWhatItCannotRegenerateByNameOrLeavesItOut) {
  const trace::Trace t = captured(2);
  EXPECT_EQ(refusal(t, opts(9)),
            "ex5.json: cannot scale sf3 (no record of how PETSc built it (not found as a DMDA's ghost update or MatMult)); sf4 (no record "
            "of how PETSc built it (not found as a DMDA's ghost update or MatMult)); --leave-out-unscalable leaves them and their 10 op "
            "call(s) out");
  const trace::BuiltTrace bt(t);
  const gen::ScaleOptions o = opts(9, true);
  const auto s = gen::scale_trace(bt, gen::plan_scale(bt, "ex5.json", o), o);
  EXPECT_EQ(s.sfs.size(), 3u);
  EXPECT_EQ(s.ops.size(), 3u);
  const json meta = json::parse(s.meta_json);
  EXPECT_EQ(meta["scaled"]["left_out"][1], json({{"sf", "sf4"}, {"reason", "no record of how PETSc built it (not found as a DMDA's ghost update or MatMult)"}, {"op_calls", 5}}));
  EXPECT_EQ(meta["op_counts"].size(), 2u);
  EXPECT_EQ(meta["ops_recorded"], 80);
  // Nothing to leave out is an option that does nothing.
  EXPECT_EQ(refusal(captured(), opts(9, true)), "--leave-out-unscalable: every SF the ops of ex5.json use scales: nothing to leave out");
}

TEST(Scale, AGraphItsConstructionDoesNotReproduceIsRefused) {
  // One leaf of the captured ghost update points elsewhere: PETSc built it some other way.
  trace::Trace t = captured();
  core::Graph g = gen::stencil_graph(ex5({2, 2, 1}));
  g[3].remote_index[0] = 1;
  t.sfs[0] = gen::explicit_sf("sf0", g);
  EXPECT_NE(refusal(t, opts(9)).find("sf0 (regenerated at the captured 4 ranks it differs from the captured graph on rank 3"),
            std::string::npos);
  // The application set its own process grid (4 x 1; PETSc's own is 2 x 2): other counts unknown.
  trace::Trace u = captured();
  json meta = json::parse(u.meta_json);
  meta["sfs"][1]["built_by"]["dmda"]["processes"] = {4, 1, 1};
  u.meta_json = meta.dump();
  EXPECT_NE(refusal(u, opts(9)).find("sf1 (the application chose its process grid (4 x 1; PETSc's own choice at 4 ranks is 2 x 2)"),
            std::string::npos);
  // A split PETSc would refuse: 17 x 13 points over 4096 ranks (64 x 64).
  EXPECT_EQ(refusal(captured(), opts(4096)),
            "--ranks: PETSc splits 4096 ranks as 64 x 64, more than the 17 grid points in dimension x (PETSc: partition too fine)");
  // A trace that is not a capture of a DMDA program.
  trace::Trace v = captured();
  v.meta_json = "{}";
  EXPECT_NE(refusal(v, opts(9)).find("no SF says how PETSc built it"), std::string::npos);
}

#ifdef SFR_CLI
TEST(Scale, TheCommandRefusesWithOneLineAndWritesNothing) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("sfr_scale_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "t.json") << trace::write_trace(captured(1));
  const std::string out = (dir / "out.json").string();
  auto r = sfr_test::run_command(std::string(SFR_CLI) + " scale " + (dir / "t.json").string() + " --ranks 9 -o " + out);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("cannot scale sf3 (no record of how PETSc built it"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(out));
  r = sfr_test::run_command(std::string(SFR_CLI) + " scale " + (dir / "t.json").string() + " --ranks 9 --leave-out-unscalable -o " + out);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("sf3    left out (5 op calls)"), std::string::npos) << r.out;
  r = sfr_test::run_command(std::string(SFR_CLI) + " scale " + (dir / "t.json").string() + " --ranks 0 -o " + out);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("--ranks: must be at least 1"), std::string::npos) << r.out;
  fs::remove_all(dir);
}
#endif

}  // namespace
