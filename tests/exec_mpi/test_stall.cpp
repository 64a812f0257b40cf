// The stall watch's decision (exec::mpi::stall::Progress) on a clock of the test's own: a rank
// that progresses is never stalled however long it runs; one that stops is stalled exactly when
// `limit` has passed since its last progress, or since it was armed, whichever is later; a
// disarmed rank (reading, writing, agreeing) is never stalled, and its time there does not count.
#include <gtest/gtest.h>

#include "exec/mpi/stall.hpp"

using sfr::exec::mpi::stall::Clock;
using sfr::exec::mpi::stall::Progress;

namespace {
Clock::time_point at(double seconds) { return Clock::time_point{} + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds)); }
}  // namespace

// Polls every 0.1 s over 100 s, a tick every 0.5 s, limit 1 s: never stalled.
TEST(StallProgress, ARankThatProgressesIsNeverStalled) {
  Progress p(std::chrono::seconds(1), 0, at(0));
  std::uint64_t ticks = 0;
  for (int k = 1; k <= 1000; ++k) {
    if (k % 5 == 0) ++ticks;
    ASSERT_FALSE(p.stalled(at(0.1 * k), ticks, true, at(0))) << "at " << 0.1 * k << " s";
  }
}

// Ticks until 5 s, then none: stalled from 6 s (5 + the limit), not before.
TEST(StallProgress, StalledTheLimitAfterTheLastProgress) {
  Progress p(std::chrono::seconds(1), 0, at(0));
  std::uint64_t ticks = 0;
  double first = -1;
  for (int k = 1; k <= 100 && first < 0; ++k) {
    const double now = 0.1 * k;
    if (k <= 50) ++ticks;
    if (p.stalled(at(now), ticks, true, at(0))) first = now;
  }
  EXPECT_NEAR(first, 6.0, 1e-9);
}

// Disarmed from 1 s to 30 s with no tick, armed again at 30 s (a new op): its time counts from 30 s.
TEST(StallProgress, TheTimeDisarmedDoesNotCountAndArmingRestartsIt) {
  Progress p(std::chrono::seconds(2), 7, at(0));
  EXPECT_FALSE(p.stalled(at(1), 7, true, at(0)));
  for (double s = 1.5; s < 30; s += 0.5) EXPECT_FALSE(p.stalled(at(s), 7, false, at(0))) << s;
  EXPECT_FALSE(p.stalled(at(31), 7, true, at(30)));
  EXPECT_FALSE(p.stalled(at(31.9), 7, true, at(30)));
  EXPECT_TRUE(p.stalled(at(32), 7, true, at(30)));
}
