#include <gtest/gtest.h>

#include "core/error.hpp"
#include "support/malformed_cases.hpp"
#include "trace/reader.hpp"

using namespace sfr;

TEST(ReaderErrors, BaseTraceIsValid) { EXPECT_NO_THROW(trace::parse_trace(sfr_test::kBaseTrace, "base.json")); }

TEST(ReaderErrors, AtLeastThirtyDistinctCases) {
  const auto cases = sfr_test::malformed_cases();
  EXPECT_GE(cases.size(), 30u);
  std::set<std::string> texts;
  for (const auto& c : cases) texts.insert(c.text);
  EXPECT_EQ(texts.size(), cases.size());
}

class Malformed : public ::testing::TestWithParam<sfr_test::MalformedCase> {};

TEST_P(Malformed, GivesOnePointedLine) {
  const auto& c = GetParam();
  try {
    trace::parse_trace(c.text, "case.json");
    FAIL() << "accepted malformed trace " << c.name;
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("case.json", 0), 0u) << msg;
    EXPECT_NE(msg.find(c.where), std::string::npos) << "want place '" << c.where << "' in: " << msg;
    EXPECT_NE(msg.find(c.message), std::string::npos) << "want '" << c.message << "' in: " << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, Malformed, ::testing::ValuesIn(sfr_test::malformed_cases()),
                         [](const auto& info) { return info.param.name; });

TEST(ReaderErrors, SyntaxErrorNamesLineAndColumn) {
  try {
    trace::parse_trace("{\n  \"name\": \"x\",\n  \"nranks\": 2,,\n}", "f.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("f.json:3:"), std::string::npos) << e.what();
  }
}

TEST(ReaderErrors, MissingFileIsInputError) { EXPECT_THROW(trace::read_trace_file("/nonexistent/x.json"), InputError); }
