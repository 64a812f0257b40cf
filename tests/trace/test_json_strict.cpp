// The strict JSON layer: packed integer arrays must read exactly like plain JSON arrays (checked
// against nlohmann's own DOM parser), widen past 32 bits, fall back to plain arrays on any other
// value, and stay plain under "meta"; files get their own messages.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "core/error.hpp"
#include "io/json_strict.hpp"
#include "io/output_file.hpp"
#include "support/sample_traces.hpp"
#include "trace/reader.hpp"

using namespace sfr;
using io::Json;

namespace {

// Packed arrays turned back into plain ones, element by element.
Json to_plain(const Json& j) {
  if (io::is_packed(j)) {
    Json a = Json::array();
    for (size_t k = 0; k < io::array_length(j); ++k) a.push_back(io::packed_at(j, k));
    return a;
  }
  if (j.is_array()) {
    Json a = Json::array();
    for (const auto& e : j) a.push_back(to_plain(e));
    return a;
  }
  if (j.is_object()) {
    Json o = Json::object();
    for (const auto& [k, v] : j.items()) o[k] = to_plain(v);
    return o;
  }
  return j;
}

io::JsonOptions packing() {
  io::JsonOptions o;
  o.pack_integer_arrays = true;
  return o;
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST(JsonStrict, PackedDocumentsEqualNlohmannsOwnParse) {
  const std::string edge = R"({"a": [], "b": [0, -1, 2147483647, -2147483648], "c": [1, 2147483648, -3],
    "d": [9223372036854775807, -9223372036854775808], "e": [18446744073709551615, 1], "f": [1, 2.0, 3],
    "g": [1, "x"], "h": [[1, 2], [], [3, [4]]], "i": [1, null], "j": [true], "k": [1, {"z": [5]}],
    "meta": {"m": [1, 2, 3]}})";
  std::vector<std::string> docs = {edge};
  for (const auto& p : sfr_test::sample_traces()) docs.push_back(slurp(p));
  for (const auto& text : docs) {
    const Json packed = io::parse_json_strict(text, "t.json", packing());
    EXPECT_EQ(to_plain(packed), Json::parse(text)) << text.substr(0, 80);
  }
  const Json e = io::parse_json_strict(edge, "t.json", packing());
  EXPECT_TRUE(io::is_packed(e["a"]));
  EXPECT_EQ(e["b"].get_binary().subtype(), 4);  // fits 32 bits
  EXPECT_EQ(e["c"].get_binary().subtype(), 8);  // widened at 2^31
  EXPECT_EQ(io::packed_at(e["c"], 0), 1);
  EXPECT_EQ(io::packed_at(e["c"], 1), 2147483648LL);
  EXPECT_EQ(io::packed_at(e["c"], 2), -3);
  EXPECT_TRUE(e["e"].is_array());  // over 2^63: stays plain
  EXPECT_TRUE(e["f"].is_array());  // a float: plain
  EXPECT_TRUE(e["g"].is_array());
  EXPECT_TRUE(io::is_packed(e["h"][0]));
  EXPECT_TRUE(e["meta"]["m"].is_array());  // never packed under meta
}

TEST(JsonStrict, ArraysReadAlikePackedOrNot) {
  // Through the trace reader: the same graph whether an index array is packed, widened or plain.
  const std::string base = R"({"name": "t", "nranks": 2, "sfs": {"A": {"ranks": [
      {"nroots": 3000000000, "remote_rank": [1, 0], "remote_index": [0, R0]},
      {"nroots": 1, "remote_rank": [0, 0], "remote_index": [R1, 2], "ilocal": [IL]}]}}, "ops": []})";
  auto make = [&](const std::string& r0, const std::string& r1, const std::string& il) {
    std::string s = base;
    s.replace(s.find("R0"), 2, r0);
    s.replace(s.find("R1"), 2, r1);
    s.replace(s.find("IL"), 2, il);
    return trace::parse_trace(s, "t.json");
  };
  const auto a = make("2999999999", "7", "4, 1");
  const auto b = make("2999999999.0", "7.0", "4.0, 1");
  const auto& g = a.graph("A");
  EXPECT_EQ(g[0].remote_index, (std::vector<core::Index>{0, 2999999999LL}));
  EXPECT_EQ(g[1].remote_index, (std::vector<core::Index>{7, 2}));
  EXPECT_EQ(g[1].ilocal, (std::vector<core::Index>{4, 1}));
  EXPECT_EQ(g, b.graph("A"));
}

TEST(JsonStrict, BadElementsOfPackedArraysAreNamed) {
  const std::string base = R"({"name": "t", "nranks": 2, "sfs": {"A": {"ranks": [
      {"nroots": 3, "remote_rank": [1, 0, RR], "remote_index": [0, 1, 2]},
      {"nroots": 1, "remote_rank": [], "remote_index": []}]}}, "ops": []})";
  auto err = [&](const std::string& rr) {
    std::string s = base;
    s.replace(s.find("RR"), 2, rr);
    try {
      trace::parse_trace(s, "t.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(err("2").find("/sfs/A/ranks/0/remote_rank/2: rank 2 is out of range [0, 1]"), std::string::npos) << err("2");
  EXPECT_NE(err("-1").find("/sfs/A/ranks/0/remote_rank/2: rank -1 is out of range"), std::string::npos) << err("-1");
  EXPECT_NE(err("\"1\"").find("/sfs/A/ranks/0/remote_rank/2: expected rank (an integer), got the string"), std::string::npos)
      << err("\"1\"");
  EXPECT_NE(err("1.5").find("/sfs/A/ranks/0/remote_rank/2: expected rank (an integer), got the non-integer number 1.5"), std::string::npos)
      << err("1.5");
  EXPECT_NE(err("99999999999").find("/sfs/A/ranks/0/remote_rank/2: rank 99999999999 is out of range"), std::string::npos)
      << err("99999999999");
}

TEST(JsonStrict, MetaKeepsItsIntegerArrays) {
  const auto t = trace::parse_trace(R"({"name": "t", "nranks": 1, "meta": {"dims": [4, 5], "n": [[1]]},
      "sfs": {}, "ops": []})",
                                    "t.json");
  EXPECT_EQ(t.trace().meta_json, R"({"dims":[4,5],"n":[[1]]})");
}

TEST(JsonStrict, FilesThatCannotBeTracesHaveTheirOwnMessage) {
  const auto dir = std::filesystem::temp_directory_path() / ("sfr_json_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto err = [&](const std::string& path) {
    try {
      trace::read_trace_file(path);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(err(dir.string()), dir.string() + ": is a directory, not a file");
  EXPECT_EQ(err((dir / "none.json").string()), (dir / "none.json").string() + ": no such file");
  std::ofstream(dir / "empty.json").close();
  EXPECT_EQ(err((dir / "empty.json").string()), (dir / "empty.json").string() + ": is empty (expected JSON text)");
  std::ofstream(dir / "bin.json", std::ios::binary) << std::string("\0\1\2", 3);
  EXPECT_EQ(err((dir / "bin.json").string()), (dir / "bin.json").string() + ": is not JSON text (byte 0x00 at offset 0)");
  std::filesystem::remove_all(dir);
}

TEST(JsonStrict, SyntaxErrorsNameLineAndColumnAsNlohmannDoes) {
  // The oracle: nlohmann's own parse, whose message says "at line L, column C".
  const auto dir = std::filesystem::temp_directory_path() / ("sfr_json_loc_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  int k = 0;
  for (const std::string text : {"{", "{\"a\": 1,\n \"b\": x}", "[1,\n2,\n3", "{\"a\"\n\n  :: 3}", "[1, 2]  x", "{\"a\": 1}\n\n   }",
                                 "\"abc\ndef\"", "{\"a\": [1, 2,\n\n\n   ]}"}) {
    std::string expect;
    try {
      const auto j = nlohmann::json::parse(text);
      FAIL() << text << " parsed as " << j.dump();
    } catch (const nlohmann::json::parse_error& e) {
      const std::string m = e.what();
      const auto l = m.find("line ") + 5, c = m.find("column ") + 7;
      expect = m.substr(l, m.find(',', l) - l) + ":" + m.substr(c, m.find(':', c) - c);
    }
    const std::string file = (dir / ("t" + std::to_string(k++) + ".json")).string();
    std::ofstream(file) << text;
    for (int from_file = 0; from_file < 2; ++from_file) {
      try {
        const Json j = from_file ? sfr::io::parse_json_file(file) : sfr::io::parse_json_strict(text, "s.json");
        FAIL() << text << " parsed as " << j.dump();
      } catch (const sfr::InputError& e) {
        const std::string where = (from_file ? file : std::string("s.json")) + ":" + expect + ": malformed JSON: ";
        EXPECT_EQ(std::string(e.what()).rfind(where, 0), 0u) << e.what() << " (expected " << where << ")";
      }
    }
  }
  std::filesystem::remove_all(dir);
}

namespace {

std::string format_error(const std::string& doc, const char* expected, bool required) {
  try {
    io::check_format(Json::parse(doc), "f.json", expected, required);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// Every reader looks at "format" first: another sf-replay kind is named as such.
TEST(JsonStrict, CheckFormatNamesAnotherKindOfFile) {
  EXPECT_EQ(format_error(R"({"format": "sf-trace", "version": 1})", "sf-machine", false),
            "f.json is an sf-trace (a trace), not a machine file (sf-machine)");
  EXPECT_EQ(format_error(R"({"format": "sf-suite", "seed": 1})", "sf-trace", false),
            "f.json is an sf-suite (a suite manifest), not a trace (sf-trace)");
  EXPECT_EQ(format_error(R"({"format": "sf-dump"})", "sf-dump", true), "");
  EXPECT_EQ(format_error(R"({"version": 1})", "sf-trace", false), "");
  EXPECT_EQ(format_error(R"({"version": 1})", "sf-dump", true), "f.json: (top level): not a conformance dump (sf-dump): no \"format\"");
  EXPECT_EQ(format_error(R"({"format": "csv"})", "sf-timing", true),
            "f.json: /format: expected \"sf-timing\" (a timing result), got \"csv\"");
  EXPECT_EQ(format_error(R"({"format": 3})", "sf-timing", true), "f.json: /format: expected \"sf-timing\", got 3");
  // Through the trace reader: a machine file given as a trace.
  try {
    trace::parse_trace(R"({"format": "sf-machine", "name": "m", "base": "generic"})", "m.json");
    FAIL() << "a machine file was read as a trace";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "m.json is an sf-machine (a machine file), not a trace (sf-trace)");
  }
}

// An output path is checked by creating a file there, not by permission bits: /proc passes
// access(W_OK) for root and refuses every new file.
TEST(OutputFile, CheckOutputPathTriesToCreateTheFile) {
  try {
    io::check_output_path("--timing", "/proc/t.json");
    FAIL() << "/proc/t.json was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--timing: cannot write '/proc/t.json' in folder '/proc': ", 0), 0u) << e.what();
  }
  const auto dir = std::filesystem::temp_directory_path() / ("sfr_out_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  EXPECT_NO_THROW(io::check_output_path("--json", (dir / "x.json").string()));
  EXPECT_TRUE(std::filesystem::is_empty(dir));  // the probe is removed
  std::filesystem::remove_all(dir);
}
