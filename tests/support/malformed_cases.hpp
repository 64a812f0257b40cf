// Malformed traces: each is a small edit of a valid base trace, with the JSON pointer (or
// line:column) and the words the one-line error must contain. Used by the reader's unit test and
// by the CLI test (exit status 2, no output file).
#pragma once

#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace sfr_test {

inline const char* kBaseTrace = R"({"format": "sf-trace", "version": 1, "name": "t", "nranks": 2,
 "machine": {"ranks_per_node": 2, "ranks_per_socket": 1, "gpus_per_node": 0},
 "meta": {"generator": "test"},
 "sfs": {
  "A": {"ranks": [{"nroots": 2, "ilocal": [1, 0], "remote_rank": [1, 0], "remote_index": [0, 1]},
                  {"nroots": 1, "remote_rank": [0], "remote_index": [0]}]},
  "L": {"layout": [0, 2, 3], "ranks": [{"global": [2, 0]}, {"global": [1]}]},
  "P": {"pattern": "alltoall", "nroots": [2, 2]},
  "B": {"derive": "multi", "of": ["A"]}
 },
 "ops": [{"op": "bcast", "sf": "A", "unit": "float64"}]
})";

struct MalformedCase {
  std::string name;
  std::string text;
  std::string where;    // JSON pointer or ":line:col" fragment that must appear
  std::string message;  // words that must appear
};

// gtest prints the case by name instead of dumping its bytes.
inline void PrintTo(const MalformedCase& c, std::ostream* os) { *os << c.name; }

// Replaces the first occurrence of `from` (which must exist) in the base trace.
inline std::string edit(const std::string& from, const std::string& to, std::string base = kBaseTrace) {
  const auto pos = base.find(from);
  if (pos == std::string::npos) throw std::logic_error("test edit target not found: " + from);
  return base.replace(pos, from.size(), to);
}

inline std::vector<MalformedCase> malformed_cases() {
  const std::string op0 = R"({"op": "bcast", "sf": "A", "unit": "float64"})";
  auto op = [&](const std::string& o) { return edit(op0, o); };
  const std::string derive = R"("B": {"derive": "multi", "of": ["A"]})";
  auto sfB = [&](const std::string& b) { return edit(derive, "\"B\": " + b); };
  return {
      {"truncated", std::string(kBaseTrace).substr(0, 120), ":", "malformed JSON"},
      {"trailing_comma", edit(R"("unit": "float64"})", R"("unit": "float64",})"), ":11:", "malformed JSON"},
      {"empty_file", "", ":", "is empty (expected JSON text)"},
      {"blank_file", " \n\t ", ":", "holds only blanks"},
      {"binary_file",
       std::string("\x7f"
                   "ELF\x02\x01",
                   6),
       ":", "is not JSON text (byte 0x7f at offset 0)"},
      {"not_json_text", "  <?xml version=\"1.0\"?>", ":", "is not JSON text (byte 0x3c at offset 2 '<')"},
      {"too_deep", std::string(200000, '['), "/0/0/0/0/0/0/0/0/...", "nested deeper than 64 levels"},
      {"too_deep_in_meta", edit(R"({"generator": "test"})", R"({"generator": )" + std::string(70, '[') + std::string(70, ']') + "}"),
       "/meta/generator/0/0", "nested deeper than 64 levels"},
      {"not_an_object", "[1, 2]", "(top level)", "expected a JSON object"},
      {"duplicate_top_key", edit(R"("name": "t",)", R"("name": "t", "name": "u",)"), "(top level)", "duplicate key \"name\""},
      {"duplicate_rank_key", edit(R"({"nroots": 1, )", R"({"nroots": 1, "nroots": 1, )"), "/sfs/A/ranks/1", "duplicate key \"nroots\""},
      {"unknown_top_key", edit(R"("nranks": 2,)", R"("nranks": 2, "nrank": 2,)"), "/nrank", "unknown key"},
      {"wrong_format", edit(R"("format": "sf-trace")", R"("format": "sf-trace2")"), "/format", "expected \"sf-trace\""},
      {"wrong_version", edit(R"("version": 1)", R"("version": 2)"), "/version", "unsupported version 2"},
      {"missing_name", edit(R"("name": "t", )", ""), "(top level)", "missing required key \"name\""},
      {"zero_ranks", edit(R"("nranks": 2)", R"("nranks": 0)"), "/nranks", "out of range"},
      {"ranks_as_string", edit(R"("nranks": 2)", R"("nranks": "2")"), "/nranks", "got the string"},
      {"ranks_fractional", edit(R"("nranks": 2)", R"("nranks": 2.5)"), "/nranks", "non-integer"},
      {"nranks_mismatch", edit(R"("nranks": 2)", R"("nranks": 3)"), "/sfs/A/ranks", "has 2 entries, expected 3"},
      {"remote_rank_too_big", edit(R"("remote_rank": [1, 0])", R"("remote_rank": [2, 0])"), "/sfs/A/ranks/0/remote_rank/0", "out of range"},
      {"remote_rank_negative", edit(R"("remote_rank": [1, 0])", R"("remote_rank": [1, -1])"), "/sfs/A/ranks/0/remote_rank/1",
       "out of range"},
      {"remote_index_too_big", edit(R"("remote_rank": [0], "remote_index": [0])", R"("remote_rank": [0], "remote_index": [2])"),
       "/sfs/A/ranks/1/remote_index/0", "root index 2 is out of range: rank 0 has 2 roots"},
      {"length_mismatch", edit(R"("remote_index": [0, 1])", R"("remote_index": [0])"), "/sfs/A/ranks/0/remote_index",
       "has 1 entries but remote_rank has 2"},
      {"ilocal_length", edit(R"("ilocal": [1, 0])", R"("ilocal": [1])"), "/sfs/A/ranks/0/ilocal",
       "has 1 entries but the rank has 2 leaves"},
      {"duplicate_ilocal", edit(R"("ilocal": [1, 0])", R"("ilocal": [3, 3])"), "/sfs/A/ranks/0/ilocal/1", "duplicate leaf position 3"},
      {"negative_ilocal", edit(R"("ilocal": [1, 0])", R"("ilocal": [1, -4])"), "/sfs/A/ranks/0/ilocal/1", "out of range"},
      {"ilocal_not_array", edit(R"("ilocal": [1, 0])", R"("ilocal": 7)"), "/sfs/A/ranks/0/ilocal", "expected null or an array"},
      {"missing_nroots", edit(R"({"nroots": 1, )", "{"), "/sfs/A/ranks/1", "missing required key \"nroots\""},
      {"negative_nroots", edit(R"({"nroots": 1, )", R"({"nroots": -1, )"), "/sfs/A/ranks/1/nroots", "out of range"},
      {"huge_nroots", edit(R"({"nroots": 1, )", R"({"nroots": 100000000000000000000, )"), "/sfs/A/ranks/1/nroots", "out of range"},
      {"unknown_rank_key", edit(R"("ilocal": [1, 0])", R"("ilocals": [1, 0])"), "/sfs/A/ranks/0/ilocals", "unknown key"},
      {"unknown_form", sfB(R"({"kind": "multi"})"), "/sfs/B", "cannot tell the SF form"},
      {"unknown_derive", sfB(R"({"derive": "transpose", "of": ["A"]})"), "/sfs/B/derive", "unknown derive kind \"transpose\""},
      {"derive_unknown_sf", sfB(R"({"derive": "multi", "of": ["Z"]})"), "/sfs/B/of/0", "unknown SF \"Z\""},
      {"forward_reference", edit(R"("of": ["A"])", R"("of": ["C"]}, "C": {"derive": "inverse", "of": ["A"])"), "/sfs/B/of/0",
       "forward reference"},
      {"self_reference", sfB(R"({"derive": "inverse", "of": ["B"]})"), "/sfs/B/of/0", "refers to itself"},
      {"compose_arity", sfB(R"({"derive": "compose", "of": ["A"]})"), "/sfs/B/of", "compose takes 2 SF names"},
      {"embed_missing_selected", sfB(R"({"derive": "embed_roots", "of": ["A"]})"), "/sfs/B", "missing required key \"selected\""},
      {"embed_selected_range", sfB(R"({"derive": "embed_roots", "of": ["A"], "selected": [[5], []]})"), "/sfs/B/selected/0/0",
       "selected root 5 is out of range"},
      {"embed_leaves_range", sfB(R"({"derive": "embed_leaves", "of": ["A"], "selected": [[], [1]]})"), "/sfs/B/selected/1/0",
       "selected leaf 1 is out of range"},
      {"stray_shared_roots", sfB(R"({"derive": "multi", "of": ["A"], "shared_roots": true})"), "/sfs/B/shared_roots", "unknown key"},
      {"shared_roots_mismatch", sfB(R"({"derive": "concatenate", "of": ["A", "P"], "shared_roots": true})"), "/sfs/B",
       "with shared roots every input needs the same nroots"},
      {"shared_roots_type", sfB(R"({"derive": "concatenate", "of": ["A"], "shared_roots": "yes"})"), "/sfs/B/shared_roots",
       "expected true or false"},
      {"layout_start", edit(R"("layout": [0, 2, 3])", R"("layout": [1, 2, 3])"), "/sfs/L/layout/0", "must start at 0"},
      {"layout_decreasing", edit(R"("layout": [0, 2, 3])", R"("layout": [0, 2, 1])"), "/sfs/L/layout/2", "non-decreasing"},
      {"layout_length", edit(R"("layout": [0, 2, 3])", R"("layout": [0, 3])"), "/sfs/L/layout", "has 2 entries, expected 3"},
      {"layout_global_range", edit(R"("global": [2, 0])", R"("global": [3, 0])"), "/sfs/L/ranks/0/global/0", "out of range"},
      {"unknown_pattern", edit(R"("pattern": "alltoall")", R"("pattern": "scatter")"), "/sfs/P/pattern", "unknown pattern"},
      {"alltoall_nroots", edit(R"("nroots": [2, 2])", R"("nroots": [2, 1])"), "/sfs/P/nroots/1", "alltoall needs nroots = nranks"},
      {"empty_sf_name", edit(R"("B": {"derive")", R"("": {"derive")"), "/sfs/", "must not be empty"},
      {"escaped_sf_name", edit(R"("B": {"derive": "multi", "of": ["A"]})", R"("x/y~": {"ranks": []})"), "/sfs/x~1y~0/ranks",
       "has 0 entries"},
      {"unknown_op", op(R"({"op": "allreduce", "sf": "A", "unit": "float64"})"), "/ops/0/op", "unknown operation \"allreduce\""},
      {"op_unknown_sf", op(R"({"op": "bcast", "sf": "Q", "unit": "float64"})"), "/ops/0/sf", "unknown SF \"Q\""},
      {"op_missing_sf", op(R"({"op": "bcast", "unit": "float64"})"), "/ops/0", "missing required key \"sf\""},
      {"bitwise_on_float", op(R"({"op": "reduce", "sf": "A", "unit": "float64", "mpi_op": "band"})"), "/ops/0/mpi_op",
       "\"band\" is not defined on unit float64"},
      {"logical_on_float", op(R"({"op": "reduce", "sf": "A", "unit": "float32", "mpi_op": "lxor"})"), "/ops/0/mpi_op",
       "not defined on unit float32"},
      {"max_on_complex", op(R"({"op": "reduce", "sf": "A", "unit": "complex128", "mpi_op": "max"})"), "/ops/0/mpi_op",
       "not defined on unit complex128"},
      {"maxloc_on_int", op(R"({"op": "reduce", "sf": "A", "unit": "int32", "mpi_op": "maxloc"})"), "/ops/0/mpi_op",
       "not defined on unit int32"},
      {"sum_on_pair", op(R"({"op": "bcast", "sf": "A", "unit": "int32_pair", "mpi_op": "sum"})"), "/ops/0/mpi_op",
       "not defined on unit int32_pair"},
      {"fetch_default_on_pair", op(R"({"op": "fetch_and_op", "sf": "A", "unit": "int32_pair"})"), "/ops/0/unit",
       "defaults to mpi_op \"sum\""},
      {"gather_with_op", op(R"({"op": "gather", "sf": "A", "unit": "int32", "mpi_op": "sum"})"), "/ops/0/mpi_op", "gather takes no mpi_op"},
      {"unknown_mpi_op", op(R"({"op": "reduce", "sf": "A", "unit": "int32", "mpi_op": "avg"})"), "/ops/0/mpi_op", "unknown mpi_op \"avg\""},
      {"zero_bs", op(R"({"op": "bcast", "sf": "A", "unit": "float64", "bs": 0})"), "/ops/0/bs", "out of range"},
      {"unknown_unit", op(R"({"op": "bcast", "sf": "A", "unit": "float16"})"), "/ops/0/unit", "unknown unit \"float16\""},
      {"missing_unit", op(R"({"op": "bcast", "sf": "A"})"), "/ops/0", "missing required key \"unit\""},
      {"bad_memtype", op(R"({"op": "bcast", "sf": "A", "unit": "float64", "memtype": "gpu"})"), "/ops/0/memtype",
       "unknown memory type \"gpu\""},
      {"bad_memtype_leaf", op(R"({"op": "bcast", "sf": "A", "unit": "float64", "memtype": {"root": "host", "leaf": 1}})"),
       "/ops/0/memtype/leaf", "expected a memory type"},
      {"zero_repeat", op(R"({"op": "bcast", "sf": "A", "unit": "float64", "repeat": 0})"), "/ops/0/repeat", "out of range"},
      {"negative_overlap", op(R"({"op": "bcast", "sf": "A", "unit": "float64", "overlap_us": -1})"), "/ops/0/overlap_us", "must be >= 0"},
      {"unknown_op_key", op(R"({"op": "bcast", "sf": "A", "unit": "float64", "root": 0})"), "/ops/0/root", "unknown key"},
      {"socket_not_dividing", edit(R"("ranks_per_socket": 1)", R"("ranks_per_socket": 3)"), "/machine/ranks_per_socket", "must divide"},
      {"meta_not_object", edit(R"("meta": {"generator": "test"})", R"("meta": "x")"), "/meta", "expected an object"},
      {"ops_not_array", edit(R"("ops": [{"op": "bcast", "sf": "A", "unit": "float64"}])", R"("ops": {})"), "/ops", "expected an array"},
      {"sfs_not_object", R"({"name": "t", "nranks": 1, "sfs": [], "ops": []})", "/sfs", "expected an object"},
      {"missing_ops", R"({"name": "t", "nranks": 1, "sfs": {}})", "(top level)", "missing required key \"ops\""},
      {"integral_float_too_big", edit(R"({"nroots": 1, )", R"({"nroots": 1e300, )"), "/sfs/A/ranks/1/nroots", "out of range"},
      {"op_not_object", op("17"), "/ops/0", "expected an operation object"},
  };
}

}  // namespace sfr_test
