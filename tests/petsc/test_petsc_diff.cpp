// Differential test against PETSc 3.18's PetscSF: the same traces run through PETSc (tests/petsc/
// petsc_dump.cpp, SFs derived by PETSc itself) must give dumps that conform to our reference
// semantics (exactly, up to the spec's order tolerances). Ops PETSc cannot run are skipped and
// named in the output.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "exec/dump.hpp"
#include "exec/dump_check.hpp"
#include "exec/reference/reference.hpp"
#include "support/process.hpp"
#include "support/random_trace.hpp"
#include "support/sample_traces.hpp"
#include "trace/reader.hpp"
#include "trace/writer.hpp"

namespace fs = std::filesystem;
using namespace sfr;

namespace {

using sfr_test::slurp;

void differential(const fs::path& trace_file, const std::string& sf_type = "basic") {
  const auto t = trace::read_trace_file(trace_file.string());
  const fs::path out = fs::temp_directory_path() / ("sfr_petsc_" + std::to_string(::getpid()) + "_" + trace_file.filename().string());
  const auto r = sfr_test::run_command(sfr_test::mpiexec(t.trace().nranks) + SFR_PETSC_DUMP + " " + trace_file.string() + " " +
                                       out.string() + " -sf_type " + sf_type);
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string text = slurp(out);
  const auto j = nlohmann::json::parse(text);
  std::set<size_t> skip;
  for (const auto& s : j.value("skipped", nlohmann::json::array())) {  // absent when PETSc ran every op
    skip.insert(s["index"].get<size_t>());
    const auto& op = t.trace().ops[s["index"].get<size_t>()];
    std::cout << "  skipped op " << s["index"] << " (" << core::op_kind_name(op.op) << " " << core::unit_name(op.unit) << " "
              << core::mpi_op_name(op.mpi_op) << "): " << s["reason"].get<std::string>() << "\n";
  }
  const auto res = exec::check_dump(t, text, out.string(), skip);
  EXPECT_TRUE(res.ok()) << trace_file << ": " << res.problems.size() << " problems, first: " << res.problems.front();
  EXPECT_GT(res.ops_checked, 0u);
  std::cout << "  " << trace_file.filename().string() << ": " << res.ops_checked << " ops agree with PETSc (" << sf_type << "), "
            << skip.size() << " skipped\n";
  fs::remove(out);
}

fs::path write_random(int nranks, unsigned seed) {
  const auto g = sfr_test::random_graph(nranks, seed);
  const fs::path p = fs::temp_directory_path() /
                     ("sfr_random_" + std::to_string(::getpid()) + "_" + std::to_string(nranks) + "_" + std::to_string(seed) + ".json");
  trace::write_trace_file(sfr_test::sweep_trace(g, "random"), p.string());
  return p;
}

}  // namespace

// Every checked-in sample trace of at most 8 ranks; handmade-4 exercises every derive kind.
TEST(PetscDiff, SampleTraces) {
  const auto traces = sfr_test::sample_traces(8);
  ASSERT_GE(traces.size(), 10u);
  for (const auto& t : traces) differential(t);
}

TEST(PetscDiff, RandomForestsEveryOpUnitAndBlockSize) {
  for (int nranks : {1, 2, 3, 5})
    for (unsigned seed : {1u, 2u}) {
      const auto p = write_random(nranks, seed * 100 + static_cast<unsigned>(nranks));
      differential(p);
      fs::remove(p);
    }
}

// PETSc's window type is left out: on Open MPI 4.1 it aborts in MPI_Accumulate with
// MPI_ERR_RMA_RANGE (and it implements no bcast with op != MPI_REPLACE).
TEST(PetscDiff, PetscNeighborBackendAgreesToo) {
  const auto p = write_random(4, 7);
  differential(p, "neighbor");
  fs::remove(p);
}

// Where PETSc's own order is defined (its basic backend, its allgather pattern), our reference
// dump must equal PETSc's exactly, order-dependent results included.
TEST(PetscDiff, OrderDependentResultsEqualPetscExactly) {
  const fs::path p = fs::temp_directory_path() / ("sfr_petsc_exact_" + std::to_string(::getpid()) + ".json");
  std::ofstream(p) << R"({"name": "exact", "nranks": 3, "sfs": {
      "AG": {"pattern": "allgather", "nroots": [1, 2, 1]},
      "S": {"ranks": [{"nroots": 2, "ilocal": [3, 0, 1], "remote_rank": [0, 1, 0], "remote_index": [1, 0, 1]},
                      {"nroots": 1, "remote_rank": [0, 0, 1], "remote_index": [1, 1, 0]},
                      {"nroots": 0, "ilocal": [2, 0], "remote_rank": [0, 1], "remote_index": [1, 0]}]}},
    "ops": [{"op": "reduce", "sf": "AG", "unit": "int32"}, {"op": "fetch_and_op", "sf": "AG", "unit": "int32"},
            {"op": "reduce", "sf": "S", "unit": "float64", "bs": 3}, {"op": "fetch_and_op", "sf": "S", "unit": "int32"},
            {"op": "fetch_and_op", "sf": "S", "unit": "float64", "bs": 2}]})";
  const auto t = trace::read_trace_file(p.string());
  const fs::path out = p.string() + ".petsc";
  const auto r = sfr_test::run_command(sfr_test::mpiexec(3) + SFR_PETSC_DUMP + " " + p.string() + " " + out.string());
  ASSERT_EQ(r.status, 0) << r.out;
  const auto petsc = nlohmann::json::parse(slurp(out));
  ASSERT_EQ(petsc["ops"].size(), t.trace().ops.size());
  for (size_t i = 0; i < t.trace().ops.size(); ++i) {
    const auto ref = exec::reference::run_op(t, t.trace().ops[i]);
    for (size_t rk = 0; rk < ref.ranks.size(); ++rk)
      for (const auto& arr : ref.ranks[rk]) {
        std::string mine;
        exec::append_buffer_numbers(mine, arr.buffer);
        EXPECT_EQ(nlohmann::json::parse(mine), petsc["ops"][i]["ranks"][rk][arr.name]) << "op " << i << " rank " << rk << " " << arr.name;
      }
  }
  fs::remove(p);
  fs::remove(out);
}

// The petsc* backends: the trace's graphs through libpetsc's PetscSF inside sf-replay run, the
// same conformance data as every backend, checked against the serial reference (sf-replay check);
// the ops PETSc cannot run refused by name; not part of `all`; timed into the same document.
TEST(PetscDiff, BackendsRunTheTraceThroughPetscSfAndConform) {
  const fs::path dir = fs::temp_directory_path() / ("sfr_petsc_backend_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  // handmade-4's graphs (roots of degree 0 and > 1, holes, an empty rank, every derived form) with
  // the ops PETSc runs: its units and MPI ops made float64 and sum where PETSc has no kernel.
  auto t = trace::read_trace_file(sfr_test::kSample).trace();
  std::vector<core::OpSpec> ops;
  for (auto op : t.ops) {
    if (op.op == core::OpKind::fetch_and_op) continue;
    op.unit = core::Unit::float64, op.bs = 1, op.root_mem = op.leaf_mem = core::MemType::host;
    if (core::op_takes_mpi_op(op.op)) op.mpi_op = op.op == core::OpKind::bcast ? core::MpiOp::replace : core::MpiOp::sum;
    ops.push_back(op);
  }
  t.ops = ops;
  const fs::path file = dir / "t.json", dump = dir / "d.json", timing = dir / "timing.json";
  trace::write_trace_file(t, file.string());
  for (const std::string b : {"petsc", "petsc-neighbor"}) {
    const auto r = sfr_test::run_command(sfr_test::mpiexec(4) + SFR_CLI + " run " + file.string() + " --backend " + b + " --dump " + dump.string());
    ASSERT_EQ(r.status, 0) << b << ": " << r.out;
    const auto res = exec::check_dump(trace::read_trace_file(file.string()), slurp(dump), dump.string(), {});
    EXPECT_TRUE(res.ok()) << b << ": " << res.problems.size() << " problems, first: " << res.problems.front();
    EXPECT_EQ(res.ops_checked, t.ops.size()) << b;
  }
  // PETSc's window type aborts on gather / scatter: refused before anything runs, op named.
  const auto w = sfr_test::run_command(sfr_test::mpiexec(4) + SFR_CLI + " run " + file.string() + " --backend petsc-window");
  EXPECT_EQ(w.status, 2) << w.out;
  EXPECT_NE(w.out.find("PETSc (petsc-window) cannot run it: the window type's multi-SF"), std::string::npos) << w.out;
  // Timed beside an sf-replay backend into one document; `all` leaves PETSc's out.
  const std::string spmv = std::string(SFR_TRACES_DIR) + "/spmv-bcsstk13-rows-p4.json";
  const auto r = sfr_test::run_command(sfr_test::mpiexec(4) + SFR_CLI + " run " + spmv + " --backend basic,petsc --iters 3 --timing " +
                                       timing.string());
  ASSERT_EQ(r.status, 0) << r.out;
  std::set<std::string> timed;
  const auto doc = nlohmann::json::parse(slurp(timing));
  for (const auto& res : doc["results"]) timed.insert(res["backend"].get<std::string>());
  EXPECT_EQ(timed, (std::set<std::string>{"basic", "petsc"}));
  const auto all = sfr_test::run_command(sfr_test::mpiexec(4) + SFR_CLI + " run " + spmv + " --backend all --iters 1");
  ASSERT_EQ(all.status, 0) << all.out;
  EXPECT_EQ(all.out.find(" petsc"), std::string::npos) << all.out;
  fs::remove_all(dir);
}
