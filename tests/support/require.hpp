// An oracle a test needs and may lack (SimGrid's smpirun, Chromium, the cluster's namespaces, a
// GPU): without it the test skips, saying why, unless the environment variable REQUIRE is set.
// The test command sets it for every oracle it installs (.ci/test), so that in CI a missing one is
// a failure with its reason, never a silent skip.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>

#define SFR_SKIP_OR_REQUIRE(REQUIRE, why)                                                               \
  do {                                                                                                  \
    if (std::getenv(REQUIRE)) FAIL() << (why) << " (" REQUIRE " is set: the test command installs it)"; \
    GTEST_SKIP() << (why);                                                                              \
  } while (0)
