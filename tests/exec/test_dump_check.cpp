#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "exec/conformance.hpp"
#include "exec/dump.hpp"
#include "exec/dump_check.hpp"
#include "exec/reference/reference.hpp"
#include "support/graphs.hpp"
#include "support/sample_traces.hpp"
#include "trace/reader.hpp"

using namespace sfr;
using namespace sfr_test;

namespace {
std::string reference_dump(const trace::BuiltTrace& t) {
  std::vector<exec::DumpEntry> e;
  for (size_t i = 0; i < t.trace().ops.size(); ++i) e.push_back({i, &t.trace().ops[i], exec::reference::run_op(t, t.trace().ops[i])});
  return exec::write_dump(t.trace().name, e);
}

// Root (0,0) with a self leaf (rank 0, pos 0) and a leaf of rank 1 at pos 0; root (0,1) with two
// leaves of rank 1 (pos 1, 2).
trace::BuiltTrace two_rank(const std::string& ops) {
  return trace::parse_trace(R"({"name": "t", "nranks": 2, "sfs": {"S": {"ranks": [
      {"nroots": 2, "remote_rank": [0], "remote_index": [0]},
      {"nroots": 0, "remote_rank": [0, 0, 0], "remote_index": [0, 1, 1]}]}}, "ops": [)" +
                                ops + "]}",
                            "t");
}

// One rank whose root 0 has `nleaves` leaves (a hot root), running `ops`.
trace::BuiltTrace hot_root(int nleaves, const std::string& ops) {
  std::string leaves = "[0", idx = "[0";
  for (int k = 1; k < nleaves; ++k) leaves += ",0", idx += ",0";
  leaves += "]", idx += "]";
  return trace::parse_trace(R"({"name": "t", "nranks": 1, "sfs": {"S": {"ranks": [
      {"nroots": 1, "remote_rank": )" + leaves + R"(, "remote_index": )" + idx + R"(}]}}, "ops": [)" + ops + "]}",
                            "t");
}

std::string one_op_dump(const std::string& op, const std::string& rank0, const std::string& rank1) {
  return R"({"format": "sf-dump", "version": 1, "trace": "t", "ops": [{"index": 0, )" + op + R"(, "ranks": [)" + rank0 + "," + rank1 +
         "]}]}";
}
}  // namespace

TEST(DumpCheck, ReferenceDumpOfSampleTraceConforms) {
  const auto t = trace::read_trace_file(sfr_test::kSample);
  const auto res = exec::check_dump(t, reference_dump(t), "ref");
  EXPECT_TRUE(res.ok()) << res.problems.front();
  EXPECT_EQ(res.ops_checked, t.trace().ops.size());
}

TEST(DumpCheck, CorruptValueIsNamed) {
  const auto t = trace::read_trace_file(sfr_test::kSample);
  std::string d = reference_dump(t);
  const auto pos = d.find("[32,14,3,40,35]");
  ASSERT_NE(pos, std::string::npos);
  d.replace(pos, 15, "[32,14,3,40,36]");
  const auto res = exec::check_dump(t, d, "bad");
  ASSERT_FALSE(res.ok());
  EXPECT_NE(res.problems[0].find("/ops/0/ranks/0/leafdata"), std::string::npos) << res.problems[0];
}

TEST(DumpCheck, MissingOpIsReported) {
  const auto t = two_rank(R"({"op": "degree", "sf": "S"})");
  const auto res = exec::check_dump(t, R"({"format": "sf-dump", "version": 1, "trace": "t", "ops": []})", "d");
  EXPECT_FALSE(res.ok());
  EXPECT_TRUE(exec::check_dump(t, R"({"format": "sf-dump", "version": 1, "trace": "t", "ops": []})", "d", {0}).ok());
}

TEST(DumpCheck, OpsTheDumpSaysItSkippedAreNotMissing) {
  const auto t = two_rank(R"({"op": "degree", "sf": "S"}, {"op": "bcast", "sf": "S", "unit": "int32"})");
  // The writer's list, read back by the checker: op 0 skipped with its reason, op 1 still required.
  const std::string d = exec::write_dump("t", {}, {{0, "no kernel"}});
  const auto res = exec::check_dump(t, d, "d");
  ASSERT_EQ(res.skipped.size(), 1u);
  EXPECT_EQ(res.skipped[0], "op 0: no kernel");
  ASSERT_EQ(res.problems.size(), 1u);
  EXPECT_NE(res.problems[0].find("trace op 1 is missing"), std::string::npos) << res.problems[0];
  // A malformed list is a problem, not a pass.
  const auto bad = exec::check_dump(t, R"({"format": "sf-dump", "version": 1, "trace": "t", "skipped": [{"index": 7}], "ops": []})", "d");
  EXPECT_NE(bad.problems.at(0).find("/skipped/0"), std::string::npos);
}

TEST(DumpCheck, FetchAndOpAcceptsAnySerialOrderOnly) {
  // int64 sum. Root (0,0): g=1; leaves h(0,0)=1 (self), h(1,0)=18. Root (0,1): g=32; leaves
  // h(1,1)=31, h(1,2)=44. Leaf updates must chain: 1 -> ... and 32 -> ...
  const auto t = two_rank(R"({"op": "fetch_and_op", "sf": "S", "unit": "int64"})");
  const std::string op = R"("op": "fetch_and_op", "sf": "S")";
  auto conforms = [&](const char* rank0, const char* rank1) { return exec::check_dump(t, one_op_dump(op, rank0, rank1), "d").ok(); };
  // PETSc order (self first; rank 1 by position).
  EXPECT_TRUE(conforms(R"({"rootdata": [20, 107], "leafupdate": [1]})", R"({"rootdata": [], "leafupdate": [2, 32, 63]})"));
  // Another serial order: rank 1 before the self leaf; pos 2 before pos 1.
  EXPECT_TRUE(conforms(R"({"rootdata": [20, 107], "leafupdate": [19]})", R"({"rootdata": [], "leafupdate": [1, 76, 32]})"));
  // Not a serial order: two leaves fetched the same value.
  EXPECT_FALSE(conforms(R"({"rootdata": [20, 107], "leafupdate": [1]})", R"({"rootdata": [], "leafupdate": [1, 32, 63]})"));
  // Right updates, wrong final root.
  EXPECT_FALSE(conforms(R"({"rootdata": [21, 107], "leafupdate": [1]})", R"({"rootdata": [], "leafupdate": [2, 32, 63]})"));
}

TEST(DumpCheck, ReplaceReduceAcceptsAnyLeafOfTheRoot) {
  const auto t = two_rank(R"({"op": "reduce", "sf": "S", "unit": "int32"})");
  const std::string op = R"("op": "reduce", "sf": "S")";
  EXPECT_TRUE(exec::check_dump(t, one_op_dump(op, R"({"rootdata": [18, 44]})", R"({"rootdata": []})"), "d").ok());
  EXPECT_TRUE(exec::check_dump(t, one_op_dump(op, R"({"rootdata": [1, 31]})", R"({"rootdata": []})"), "d").ok());
  EXPECT_FALSE(exec::check_dump(t, one_op_dump(op, R"({"rootdata": [1, 32]})", R"({"rootdata": []})"), "d").ok());
}

TEST(DumpCheck, GatherPermutesOnlyWithinOneLeafRank) {
  // Multi-roots of rank 0: root 0 -> slots 0 (rank 0 leaf), 1 (rank 1 leaf); root 1 -> slots 2, 3
  // (both rank 1: positions 1, 2 with h = 31, 44).
  const auto t = two_rank(R"({"op": "gather", "sf": "S", "unit": "int32"})");
  const std::string op = R"("op": "gather", "sf": "S")";
  EXPECT_TRUE(exec::check_dump(t, one_op_dump(op, R"({"multirootdata": [1, 18, 31, 44]})", R"({"multirootdata": []})"), "d").ok());
  EXPECT_TRUE(exec::check_dump(t, one_op_dump(op, R"({"multirootdata": [1, 18, 44, 31]})", R"({"multirootdata": []})"), "d").ok());
  EXPECT_FALSE(exec::check_dump(t, one_op_dump(op, R"({"multirootdata": [18, 1, 31, 44]})", R"({"multirootdata": []})"), "d").ok());
}

TEST(DumpCheck, WrongShapeIsAProblemNotACrash) {
  const auto t = two_rank(R"({"op": "bcast", "sf": "S", "unit": "complex128"})");
  const auto res = exec::check_dump(t, one_op_dump(R"("op": "bcast", "sf": "S")", R"({"leafdata": [1]})", R"({"leafdata": "x"})"), "d");
  EXPECT_FALSE(res.ok());
  EXPECT_NE(res.problems[0].find("/ops/0/ranks/0/leafdata"), std::string::npos);
}

// A float32 product of 1000 leaves on one root overflows (a factor 2 on every other leaf): the
// dump writes "inf" (spec 4, not null), and the checker reads it back and compares it as a value.
TEST(DumpCheck, NonFiniteValuesAreWrittenAsStringsAndCompared) {
  const auto t = hot_root(1000, R"({"op": "reduce", "sf": "S", "unit": "float32", "mpi_op": "prod"},
                                  {"op": "reduce", "sf": "S", "unit": "complex128", "mpi_op": "prod"})");
  const std::string d = reference_dump(t);
  EXPECT_EQ(d.find("null"), std::string::npos) << d;
  EXPECT_NE(d.find(R"("rootdata": ["inf"])"), std::string::npos) << d;
  const auto res = exec::check_dump(t, d, "ref");
  EXPECT_TRUE(res.ok()) << res.problems.front();
  EXPECT_EQ(res.ops_checked, 2u);
  // A finite value where the reference has inf does not conform; nor does -inf or a bare null.
  for (const std::string wrong : {R"(["-inf"])", "[1e38]", "[null]", R"(["infinity"])"}) {
    std::string bad = d;
    bad.replace(bad.find(R"(["inf"])"), 7, wrong);
    EXPECT_FALSE(exec::check_dump(t, bad, "bad").ok()) << wrong;
  }
}

// A complex128 product of 2000 leaves on one root overflows into inf - inf = NaN parts: "nan" is
// written, and matches the reference's NaN whatever its sign bit or payload; a number there does not.
TEST(DumpCheck, NanMatchesNan) {
  const auto t = hot_root(2000, R"({"op": "reduce", "sf": "S", "unit": "complex128", "mpi_op": "prod"})");
  const std::string d = reference_dump(t);
  const auto at = d.find(R"("nan")");
  ASSERT_NE(at, std::string::npos) << d;
  EXPECT_TRUE(exec::check_dump(t, d, "ref").ok()) << d;
  std::string bad = d;
  bad.replace(at, 5, "0");
  EXPECT_FALSE(exec::check_dump(t, bad, "bad").ok()) << bad;
}

// A root with 20,000 leaves (the GPU hot root, larger): the reference's own order conforms, and a
// leaf update that fits no serial order is found. (The search walks one serial order per step by
// the fetched values, without recursion: a recursive search of 20,000 steps would need a deep
// stack, and a per-step scan of every leaf took minutes on a 12,000-leaf root.)
TEST(DumpCheck, SerialOrderSearchOnAHotRoot) {
  const auto t = hot_root(20000, R"({"op": "fetch_and_op", "sf": "S", "unit": "int64", "mpi_op": "sum"})");
  const std::string d = reference_dump(t);
  EXPECT_TRUE(exec::check_dump(t, d, "ref").ok());
  std::string bad = d;
  const auto at = bad.find("\"leafupdate\": [") + 15 + 40;  // inside the list, at a number's digit or comma
  bad.insert(bad.find(',', at) , "7");                       // one leaf update made impossible
  const auto res = exec::check_dump(t, bad, "bad");
  ASSERT_FALSE(res.ok());
  EXPECT_NE(res.problems[0].find("match no serial order"), std::string::npos) << res.problems[0];
}

// 12,000 leaves on one root, int32 LXOR with bs 3: a serial order is a walk through at most 9 root
// values that takes every leaf once, which a search that picks the next leaf by its fetched value
// must backtrack through (the bounded search it replaced gave up on this one, and on the orders the
// one-sided transport produced on the 4-rank hot root). The
// leafupdates of a random order, computed here with a plain loop, conform; one leafupdate changed,
// or a pair of leaves split off into a cycle of their own (every value entered as often as left,
// but not reachable from the root's input), does not.
TEST(DumpCheck, FetchAndOpAnySerialOrderOfAHotRoot) {
  const int n = 12000, bs = 3;
  const auto t = hot_root(n, R"({"op": "fetch_and_op", "sf": "S", "unit": "int32", "bs": 3, "mpi_op": "lxor"})");
  const auto root = exec::conformance_input(exec::Side::root, core::Unit::int32, bs, core::MpiOp::lxor, 0, 1, 0);
  const auto leaf = exec::conformance_input(exec::Side::leaf, core::Unit::int32, bs, core::MpiOp::lxor, 0, n, 0);
  std::vector<int> order(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) order[static_cast<std::size_t>(k)] = k;
  std::mt19937 rng(11);
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<std::int32_t> acc(root.as<std::int32_t>(), root.as<std::int32_t>() + bs), upd(static_cast<std::size_t>(n * bs));
  for (const int k : order)
    for (int c = 0; c < bs; ++c) {
      upd[static_cast<std::size_t>(k * bs + c)] = acc[static_cast<std::size_t>(c)];
      acc[static_cast<std::size_t>(c)] = (acc[static_cast<std::size_t>(c)] != 0) != (leaf.as<std::int32_t>()[k * bs + c] != 0);
    }
  auto dump = [&](const std::vector<std::int32_t>& u, const std::vector<std::int32_t>& r) {
    std::string s = R"({"format": "sf-dump", "version": 1, "trace": "t", "ops": [{"index": 0, "op": "fetch_and_op", "sf": "S", "ranks": [)";
    s += R"({"rootdata": [)";
    for (std::size_t c = 0; c < r.size(); ++c) s += (c ? "," : "") + std::to_string(r[c]);
    s += R"(], "leafupdate": [)";
    for (std::size_t c = 0; c < u.size(); ++c) s += (c ? "," : "") + std::to_string(u[c]);
    return s + "]}]}]}";
  };
  const auto ok = exec::check_dump(t, dump(upd, acc), "d");
  EXPECT_TRUE(ok.ok()) << ok.problems.front();
  auto bad = upd;
  bad[static_cast<std::size_t>(order[n / 2] * bs)] ^= 1;
  EXPECT_FALSE(exec::check_dump(t, dump(bad, acc), "d").ok());
}

// A leaf that says it fetched a value off the walk and left it unchanged (int32 max, fetched above
// its contribution): every value is entered as often as it is left, but that step is not reachable
// from the root's input, so no serial order has it.
TEST(DumpCheck, FetchAndOpStepOffTheWalkIsNoSerialOrder) {
  const int n = 50;
  const auto t = hot_root(n, R"({"op": "fetch_and_op", "sf": "S", "unit": "int32", "mpi_op": "max"})");
  const auto root = exec::conformance_input(exec::Side::root, core::Unit::int32, 1, core::MpiOp::max, 0, 1, 0);
  const auto leaf = exec::conformance_input(exec::Side::leaf, core::Unit::int32, 1, core::MpiOp::max, 0, n, 0);
  auto dump = [&](const std::vector<std::int32_t>& u, std::int32_t r) {
    std::string s = R"({"format": "sf-dump", "version": 1, "trace": "t", "ops": [{"index": 0, "op": "fetch_and_op", "sf": "S", "ranks": [)";
    s += R"({"rootdata": [)" + std::to_string(r) + R"(], "leafupdate": [)";
    for (std::size_t c = 0; c < u.size(); ++c) s += (c ? "," : "") + std::to_string(u[c]);
    return s + "]}]}]}";
  };
  // Leaves in position order, but leaf 7 fetched 1e9 (above every value) instead of its turn.
  std::vector<std::int32_t> upd(static_cast<std::size_t>(n));
  std::int32_t acc = root.as<std::int32_t>()[0];
  for (int k = 0; k < n; ++k) {
    if (k == 7) continue;
    upd[static_cast<std::size_t>(k)] = acc;
    acc = std::max(acc, leaf.as<std::int32_t>()[k]);
  }
  upd[7] = 1000000000;
  ASSERT_GT(1000000000, leaf.as<std::int32_t>()[7]);
  const auto res = exec::check_dump(t, dump(upd, acc), "d");
  EXPECT_FALSE(res.ok());
  // The same leaf at its turn: conforms.
  acc = root.as<std::int32_t>()[0];
  for (int k = 0; k < n; ++k) {
    upd[static_cast<std::size_t>(k)] = acc;
    acc = std::max(acc, leaf.as<std::int32_t>()[k]);
  }
  EXPECT_TRUE(exec::check_dump(t, dump(upd, acc), "d").ok());
}
