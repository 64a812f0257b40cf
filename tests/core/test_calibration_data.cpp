#include "core/calibration_data.hpp"

#include <gtest/gtest.h>

namespace sfr::core {

// The spread of calibrate's rounds: the median (upper of the middle two) over the least, whatever
// order the rounds came in.
TEST(CalibrationData, RoundSpreadIsTheMedianOverTheLeast) {
  EXPECT_DOUBLE_EQ(round_spread({3.0, 1.0, 2.0}), 2.0);
  EXPECT_DOUBLE_EQ(round_spread({8.0, 2.0, 4.0, 6.0}), 3.0);  // sorted 2 4 6 8: the middle's upper, 6, over 2
  EXPECT_DOUBLE_EQ(round_spread({5.0}), 1.0);
  EXPECT_DOUBLE_EQ(round_spread({}), 0.0);
  EXPECT_DOUBLE_EQ(round_spread({0.0, 1.0, 2.0}), 0.0);  // no positive least: no spread to say
}

}  // namespace sfr::core
