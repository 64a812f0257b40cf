// core/format: the printf conventions every report shares.
#include <gtest/gtest.h>

#include "core/format.hpp"

namespace {

TEST(Format, BytesInBinaryUnits) {
  EXPECT_EQ(sfr::core::format_bytes(100), "100 B");
  EXPECT_EQ(sfr::core::format_bytes(1023), "1023 B");
  EXPECT_EQ(sfr::core::format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(sfr::core::format_bytes(5.0L * (1ull << 40)), "5.0 TiB");
  EXPECT_EQ(sfr::core::format_bytes(3.0L * (1ull << 50)), "3.0 PiB");
}

TEST(Format, NumbersInTheirOrder) {
  EXPECT_EQ(sfr::core::format_number("%.3f us", 1.23456), "1.235 us");
  EXPECT_EQ(sfr::core::format_number("L %.1f, beta %.2f (%.0f)", 1.26, 0.126, 7.0), "L 1.3, beta 0.13 (7)");
}

}  // namespace
