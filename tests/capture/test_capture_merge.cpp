// The capture library's recorder (folding, the op cap, exact counts) and the merge of rank files
// into a trace: graphs, forms (pattern, derived) kept only where they rebuild PETSc's graph,
// refusals. Expected values are written out by hand from PETSc's definitions.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "capture/merge.hpp"
#include "capture/preload/recorder.hpp"
#include "core/error.hpp"
#include "trace/reader.hpp"
#include "trace/writer.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using sfr::capture::OpRecord;
using sfr::capture::Recorder;
using sfr::capture::SfRecord;

namespace {

OpRecord bcast(int sf, const char* unit = "float64", const char* op = "replace") {
  OpRecord r;
  r.sf = sf;
  r.op = "bcast";
  r.unit = unit;
  r.mpi_op = op;
  return r;
}

SfRecord sf(std::int64_t nroots, std::vector<std::int64_t> rr, std::vector<std::int64_t> ri) {
  SfRecord s;
  s.petsc_type = "basic";
  s.nroots = nroots;
  s.remote_rank = std::move(rr);
  s.remote_index = std::move(ri);
  s.first_via = "PetscSF";
  return s;
}

struct Dir {
  fs::path path = fs::temp_directory_path() / ("sfr_capture_merge_" + std::to_string(::getpid()) + "_" +
                                               ::testing::UnitTest::GetInstance()->current_test_info()->name());
  Dir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Dir() { fs::remove_all(path); }
  void write(int rank, const std::string& text) const { std::ofstream(path / ("rank-" + std::to_string(rank) + ".json")) << text; }
};

std::string merge_error(const Dir& d) {
  try {
    sfr::capture::merge_rank_files(d.path.string(), {"t", {"app"}, "2026-01-01T00:00:00Z"});
  } catch (const sfr::InputError& e) {
    return e.what();
  }
  return "";
}

// Two ranks' files (3.18.5) into the folder.
void write_two(const Dir& d, const Recorder& r0, const Recorder& r1) {
  d.write(0, r0.to_json(0, 2, "3.18.5", ""));
  d.write(1, r1.to_json(1, 2, "3.18.5", ""));
}

sfr::trace::Trace merge(const Dir& d) {
  auto t = sfr::capture::merge_rank_files(d.path.string(), {"t", {"app"}, "2026-01-01T00:00:00Z"});
  sfr::trace::parse_trace(sfr::trace::write_trace(t), "merged");  // what capture writes must validate
  return t;
}

}  // namespace

TEST(CaptureRecorder, FoldsConsecutiveIdenticalOpsAndCountsEveryOne) {
  Recorder r(100);
  for (int i = 0; i < 5; ++i) r.op(bcast(0), true);
  r.op(bcast(0, "float64", "sum"), false);
  r.op(bcast(1), false);
  r.op(bcast(0), false);
  ASSERT_EQ(r.ops().size(), 4u);
  EXPECT_EQ(r.ops()[0].repeat, 5);
  EXPECT_EQ(r.ops()[1].repeat, 1);
  EXPECT_EQ(r.ops()[3].repeat, 1);
  EXPECT_EQ(r.count(0, "bcast"), 7);
  EXPECT_EQ(r.count(1, "bcast"), 1);
  const auto j = json::parse(r.to_json(0, 1, "3.18.5", ""));
  EXPECT_EQ(j["op_counts"][0]["vecscatter"], 5);
}

TEST(CaptureRecorder, TheLoopFastPathFoldsOnlyWhereOpWould) {
  Recorder r(2);
  EXPECT_FALSE(r.repeat_last(false));  // nothing to repeat yet
  r.op(bcast(0), false);
  EXPECT_TRUE(r.repeat_last(true));
  EXPECT_EQ(r.ops()[0].repeat, 2);
  EXPECT_EQ(r.count(0, "bcast"), 2);
  r.op(bcast(1), false);
  r.op(bcast(2), false);               // beyond the cap of 2 records
  EXPECT_FALSE(r.repeat_last(false));  // nothing folds after the cut
  EXPECT_EQ(r.ops()[1].repeat, 1);
  EXPECT_EQ(r.count(1, "bcast"), 1);
  const auto j = json::parse(r.to_json(0, 1, "3.18.5", ""));
  EXPECT_EQ(j["op_counts"][0]["vecscatter"], 1);
}

TEST(CaptureRecorder, KeepsThePrefixUpToTheCapAndOnlyCountsTheRest) {
  Recorder r(2);
  r.op(bcast(0), false);
  r.op(bcast(1), false);
  r.op(bcast(1), false);  // folds into the second record: still within the cap
  r.op(bcast(0), false);  // beyond: counted only
  r.op(bcast(0), false);  // not folded into anything after the cut
  ASSERT_EQ(r.ops().size(), 2u);
  EXPECT_EQ(r.ops()[1].repeat, 2);
  EXPECT_EQ(r.dropped(), 2);
  EXPECT_EQ(r.count(0, "bcast"), 3);
}

// An SF first used after the records are full is counted without its graph: however many SFs a
// long run makes, the trace holds at most the cap's records and their SFs.
TEST(CaptureMerge, SFsFirstUsedBeyondTheCapAreOnlyCounted) {
  Dir d;
  Recorder r0(1), r1(1);
  for (Recorder* r : {&r0, &r1}) {
    r->add_sf(sf(1, {}, {}));
    r->op(bcast(0), false);
    ASSERT_TRUE(r->full());
    for (int k = 0; k < 3; ++k) r->op(bcast(Recorder::kBeyondCap), false);
  }
  write_two(d, r0, r1);
  const auto t = merge(d);
  EXPECT_EQ(t.sfs.size(), 1u);
  EXPECT_EQ(t.ops.size(), 1u);
  const auto meta = json::parse(t.meta_json);
  ASSERT_EQ(meta["op_counts"].size(), 2u);
  EXPECT_EQ(meta["op_counts"][0]["sf"], "(SFs first used beyond --max-ops)");
  EXPECT_EQ(meta["op_counts"][0]["count"], 3);
  EXPECT_EQ(meta["ops_recorded"], 4);
  EXPECT_EQ(meta["ops_dropped"], 3);
}

TEST(CaptureMerge, ExplicitGraphsOpsAndExactCounts) {
  Dir d;
  // rank 0: 2 roots, leaves at 1 and 3 from rank 1's roots 0 and 1; rank 1: 2 roots, one leaf from rank 0's root 1.
  Recorder r0(1), r1(1);
  auto s0 = sf(2, {1, 1}, {0, 1});
  s0.has_ilocal = true;
  s0.ilocal = {1, 3};
  r0.add_sf(s0);
  r1.add_sf(sf(2, {0}, {1}));
  for (Recorder* r : {&r0, &r1}) {
    r->op(bcast(0), true);
    r->op(bcast(0), true);
    r->op(bcast(0, "float64", "sum"), false);  // beyond the cap of 1 record
  }
  write_two(d, r0, r1);
  const auto t = merge(d);
  EXPECT_EQ(t.nranks, 2);
  ASSERT_EQ(t.sfs.size(), 1u);
  const auto& g = *std::get<sfr::trace::ExplicitSF>(t.sfs[0].def).graph;
  EXPECT_EQ(g[0].nroots, 2);
  EXPECT_EQ(g[0].leaf_position(1), 3);
  EXPECT_EQ(g[0].remote_index[1], 1);
  EXPECT_EQ(g[1].remote_rank[0], 0);
  ASSERT_EQ(t.ops.size(), 1u);
  EXPECT_EQ(t.ops[0].repeat, 2);
  const auto meta = json::parse(t.meta_json);
  EXPECT_EQ(meta["op_counts"][0]["count"], 3);
  EXPECT_EQ(meta["op_counts"][0]["vecscatter"], 2);
  EXPECT_EQ(meta["ops_dropped"], 1);
  EXPECT_EQ(meta["ops_in_trace"], 2);
  EXPECT_EQ(meta["petsc_version"], "3.18.5");
}

// PETSc's multi-SF of: rank 0 root 0 <- (rank 0 leaf 0, rank 1 leaf 0); rank 1 has one root and
// no leaf to it. Multi-roots of a root are ordered by leaf rank: rank 0's leaf gets multi-root 0,
// rank 1's gets 1.
TEST(CaptureMerge, MultiSFIsWrittenAsDerivedOnlyWhenItRebuildsPETScsGraph) {
  for (bool right : {true, false}) {
    Dir d;
    Recorder r0(10), r1(10);
    r0.add_sf(sf(1, {0}, {0}));
    r1.add_sf(sf(1, {0}, {0}));
    auto m0 = sf(2, {0}, {right ? 0 : 1});
    auto m1 = sf(0, {0}, {right ? 1 : 0});
    m0.derive = m1.derive = "multi";
    m0.of = m1.of = {0};
    r0.add_sf(m0);
    r1.add_sf(m1);
    for (Recorder* r : {&r0, &r1}) r->op(bcast(1), false);
    write_two(d, r0, r1);
    const auto t = merge(d);
    ASSERT_EQ(t.sfs.size(), 2u);
    EXPECT_EQ(std::holds_alternative<sfr::trace::DerivedSF>(t.sfs[1].def), right);
    const auto meta = json::parse(t.meta_json);
    EXPECT_EQ(meta["sfs"][1]["form"], right ? "derived" : "explicit");
    EXPECT_EQ(meta["sfs"][1].contains("note"), !right);
  }
}

// Allgather over nroots [1, 2]: every rank has 3 leaves, (0,0), (1,0), (1,1).
TEST(CaptureMerge, PatternIsKeptOnlyWhenItRebuildsPETScsGraph) {
  for (bool right : {true, false}) {
    Dir d;
    Recorder r0(10), r1(10);
    auto p0 = sf(1, {0, 1, 1}, {0, 0, 1});
    auto p1 = sf(2, {0, 1, 1}, {0, 0, right ? 1 : 0});
    p0.pattern = p1.pattern = "allgather";
    r0.add_sf(p0);
    r1.add_sf(p1);
    for (Recorder* r : {&r0, &r1}) r->op(bcast(0), false);
    write_two(d, r0, r1);
    const auto t = merge(d);
    EXPECT_EQ(std::holds_alternative<sfr::trace::PatternSF>(t.sfs[0].def), right);
  }
}

TEST(CaptureMerge, RefusesWhatCannotBeATrace) {
  {
    Dir d;  // no file at all
    EXPECT_NE(merge_error(d).find("no rank files"), std::string::npos);
  }
  {
    Dir d;  // rank 1 never reached PetscFinalize
    Recorder r(10);
    r.add_sf(sf(1, {}, {}));
    r.op(bcast(0), false);
    d.write(0, r.to_json(0, 3, "3.18.5", ""));
    const auto e = merge_error(d);
    EXPECT_NE(e.find("rank(s) 1, 2 of 3"), std::string::npos) << e;
  }
  {
    Dir d;  // another PETSc
    Recorder r(10);
    d.write(0, r.to_json(0, 1, "3.19.0", "the application runs PETSc 3.19.0; this capture library was built for PETSc 3.18"));
    EXPECT_NE(merge_error(d).find("runs PETSc 3.19.0"), std::string::npos);
  }
  {
    Dir d;  // the ranks ran different op streams
    Recorder r0(10), r1(10);
    r0.add_sf(sf(1, {}, {}));
    r1.add_sf(sf(1, {}, {}));
    r0.op(bcast(0), false);
    r1.op(bcast(0, "int32"), false);
    write_two(d, r0, r1);
    const auto e = merge_error(d);
    EXPECT_NE(e.find("rank-1.json: /ops/0: differs from rank 0's op 0"), std::string::npos) << e;
  }
  {
    Dir d;  // PETSc ran, but no op could be recorded: the reasons are said
    Recorder r(10);
    r.not_recorded("reduce", "a user-defined MPI_Op");
    d.write(0, r.to_json(0, 1, "3.18.5", ""));
    const auto e = merge_error(d);
    EXPECT_NE(e.find("no PetscSF carried an operation"), std::string::npos) << e;
    EXPECT_NE(e.find("a user-defined MPI_Op"), std::string::npos) << e;
  }
}

// Where the ranks ran: hosts in consecutive blocks give the trace's machine (ranks per node, and
// per socket where every rank was bound within one); round robin over hosts gives none, said so.
TEST(CaptureMerge, RecordsHostsAndTheirPlacement) {
  auto run = [](const std::vector<std::string>& hosts, const std::vector<int>& sockets) {
    Dir d;
    for (int r = 0; r < static_cast<int>(hosts.size()); ++r) {
      Recorder rec(10);
      rec.add_sf(sf(1, {}, {}));
      rec.op(bcast(0), false);
      d.write(r, rec.to_json(r, static_cast<int>(hosts.size()), "3.18.5", "", {hosts[static_cast<std::size_t>(r)], sockets[static_cast<std::size_t>(r)]}));
    }
    return merge(d);
  };
  auto meta = [](const sfr::trace::Trace& t) { return json::parse(t.meta_json); };
  auto t = run({"a", "a", "b", "b", "c"}, {0, 1, 0, 1, 0});
  ASSERT_TRUE(t.machine);
  EXPECT_EQ(t.machine->ranks_per_node, 2);
  EXPECT_EQ(t.machine->ranks_per_socket, 1);
  EXPECT_EQ(meta(t)["hosts"], json({"a", "a", "b", "b", "c"}));
  EXPECT_EQ(meta(t)["placement"], "2 rank(s) per node on 3 host(s), 1 per socket");
  t = run({"a", "a", "a", "a"}, {0, 0, 1, -1});  // one rank not bound: sockets unknown
  ASSERT_TRUE(t.machine);
  EXPECT_EQ(t.machine->ranks_per_node, 4);
  EXPECT_EQ(t.machine->ranks_per_socket, 4);
  EXPECT_NE(meta(t)["placement"].get<std::string>().find("sockets not known"), std::string::npos) << meta(t).dump();
  t = run({"a", "b", "a", "b"}, {0, 0, 0, 0});  // round robin: no consecutive blocks
  EXPECT_FALSE(t.machine);
  EXPECT_NE(meta(t)["placement"].get<std::string>().find("not in consecutive blocks"), std::string::npos) << meta(t).dump();
  t = run({"a", "b", "b"}, {-1, -1, -1});  // a last block longer than the first is no block placement either
  EXPECT_FALSE(t.machine);
}
