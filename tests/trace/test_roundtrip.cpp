#include <gtest/gtest.h>

#include <filesystem>

#include "support/graphs.hpp"
#include "support/sample_traces.hpp"
#include "trace/reader.hpp"
#include "trace/writer.hpp"

using namespace sfr;

using sfr_test::sample_traces;

TEST(RoundTrip, SampleTracesValidate) {
  const auto files = sample_traces();
  ASSERT_FALSE(files.empty());
  for (const auto& f : files) EXPECT_NO_THROW(trace::read_trace_file(f)) << f;
}

TEST(RoundTrip, WriteThenReadIsIdentical) {
  for (const auto& f : sample_traces()) {
    const auto t1 = trace::read_trace_file(f);
    const std::string text = trace::write_trace(t1.trace());
    const auto t2 = trace::parse_trace(text, "rewritten");
    EXPECT_TRUE(t1.trace() == t2.trace()) << f;
    for (const auto& sf : t1.trace().sfs) EXPECT_TRUE(t1.graph(sf.name) == t2.graph(sf.name)) << f << " " << sf.name;
    // Writing again gives the same bytes.
    EXPECT_EQ(trace::write_trace(t2.trace()), text) << f;
  }
}

TEST(RoundTrip, DefaultsAndMemtypesSurvive) {
  const char* text = R"({"name": "d", "nranks": 1, "sfs": {"S": {"ranks": [{"nroots": 1, "remote_rank": [0], "remote_index": [0]}]}},
    "ops": [{"op": "fetch_and_op", "sf": "S", "unit": "int32"},
            {"op": "bcast", "sf": "S", "unit": "int32", "memtype": {"root": "device", "leaf": "host"}, "repeat": 3, "overlap_us": 1.5},
            {"op": "degree", "sf": "S"}]})";
  const auto t = trace::parse_trace(text, "d");
  EXPECT_EQ(t.trace().ops[0].mpi_op, core::MpiOp::sum);
  EXPECT_EQ(t.trace().ops[1].root_mem, core::MemType::device);
  EXPECT_EQ(t.trace().ops[1].leaf_mem, core::MemType::host);
  EXPECT_EQ(t.trace().ops[1].repeat, 3);
  EXPECT_DOUBLE_EQ(t.trace().ops[1].overlap_us, 1.5);
  const auto back = trace::parse_trace(trace::write_trace(t.trace()), "d2");
  EXPECT_TRUE(back.trace() == t.trace());
}

TEST(RoundTrip, BuiltTraceFromMemoryMatchesReader) {
  trace::Trace t;
  t.name = "mem";
  t.nranks = 4;
  t.sfs.push_back({"A", trace::ExplicitSF{std::make_shared<const core::Graph>(sfr_test::handmade_a())}});
  t.sfs.push_back({"M", trace::DerivedSF{trace::DeriveKind::multi, {"A"}, {}, false}});
  const trace::BuiltTrace b(t);
  const auto r = trace::parse_trace(trace::write_trace(t), "mem");
  EXPECT_TRUE(b.graph("M") == r.graph("M"));
}
