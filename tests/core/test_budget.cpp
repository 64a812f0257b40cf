// The memory budget helpers: byte counts as written on a command line, and the refusal.
#include <gtest/gtest.h>

#include "core/budget.hpp"
#include "core/error.hpp"

namespace {

using sfr::core::parse_bytes;

TEST(Budget, ParsesByteCountsWithBinarySuffixes) {
  EXPECT_EQ(parse_bytes("--max-memory", "1000000"), 1000000u);
  EXPECT_EQ(parse_bytes("--max-memory", "4K"), 4096u);
  EXPECT_EQ(parse_bytes("--max-memory", "512M"), 512ull << 20);
  EXPECT_EQ(parse_bytes("--max-memory", "3g"), 3ull << 30);
  EXPECT_EQ(parse_bytes("--max-memory", "2GiB"), 2ull << 30);
  EXPECT_EQ(parse_bytes("--max-memory", "1T"), 1ull << 40);
  EXPECT_EQ(parse_bytes("--max-memory", "100B"), 100u);
}

TEST(Budget, RefusesMalformedZeroNegativeAndHugeByteCounts) {
  for (const char* bad : {"", "-1", "0", "1.5G", "G", "12Q", "99999999999999999999", "5000000000000000000", "4194305T"}) {
    try {
      parse_bytes("--max-memory", bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const sfr::InputError& e) {
      EXPECT_EQ(e.where(), "--max-memory") << bad;
    }
  }
}

TEST(Budget, RefusalNamesTheOptionTheEstimateAndTheLimit) {
  const sfr::core::SizeEstimate e{"--size", 3.0L * (1ull << 30), "1e+09 leaves"};
  EXPECT_NO_THROW(sfr::core::check_budget(e, 3ull << 30));  // exactly at the limit fits
  try {
    sfr::core::check_budget(e, 2ull << 30);
    FAIL() << "not refused";
  } catch (const sfr::InputError& err) {
    EXPECT_EQ(err.where(), "--size");
    const std::string m = err.what();
    EXPECT_NE(m.find("1e+09 leaves"), std::string::npos) << m;
    EXPECT_NE(m.find("3.0 GiB"), std::string::npos) << m;
    EXPECT_NE(m.find("2.0 GiB"), std::string::npos) << m;
  }
}

TEST(Budget, AvailableMemoryIsPlausible) {
  const auto m = sfr::core::available_memory();
  EXPECT_GT(m, 1ull << 20);
  EXPECT_LT(m, 1ull << 50);
}

}  // namespace
