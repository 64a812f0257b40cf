// Progress lines: drawn only on a terminal outside CI, redrawn at most 10 times a second, erased
// when done; what a line says.
#include <gtest/gtest.h>

#include <pty.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/progress.hpp"

using sfr::core::Progress;

namespace {
std::string contents(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string s;
  for (int c; (c = std::fgetc(f)) != EOF;) s += static_cast<char>(c);
  return s;
}
}  // namespace

TEST(Progress, NothingOnAFileOrPipe) {
  std::FILE* f = std::tmpfile();
  {
    Progress p("work", 3, f);
    p.step("a");
    p.step("b");
  }
  EXPECT_EQ(contents(f), "");
  std::fclose(f);
}

TEST(Progress, OnlyOnATerminalOutsideCi) {
  int master = -1, slave = -1;
  if (::openpty(&master, &slave, nullptr, nullptr, nullptr) != 0) GTEST_SKIP() << "no pseudo-terminal here";
  std::FILE* tty = ::fdopen(slave, "w");
  const char* ci = std::getenv("CI");
  const std::string saved_ci = ci ? ci : "";
  ::unsetenv("CI");
  ::unsetenv("SFR_NO_PROGRESS");
  ::setenv("TERM", "xterm", 1);
  EXPECT_TRUE(sfr::core::progress_wanted(tty));
  ::setenv("CI", "true", 1);
  EXPECT_FALSE(sfr::core::progress_wanted(tty));
  ::unsetenv("CI");
  ::setenv("SFR_NO_PROGRESS", "1", 1);
  EXPECT_FALSE(sfr::core::progress_wanted(tty));
  ::unsetenv("SFR_NO_PROGRESS");
  if (ci) ::setenv("CI", saved_ci.c_str(), 1);
  std::FILE* f = std::tmpfile();
  EXPECT_FALSE(sfr::core::progress_wanted(f));
  std::fclose(f);
  std::fclose(tty);
  ::close(master);
}

TEST(Progress, QuickWorkDrawsNothing) {
  std::FILE* f = std::tmpfile();
  {
    Progress p("quick", 3, f, true);  // the default one-second delay
    p.step("a");
  }
  EXPECT_EQ(contents(f), "");
  std::fclose(f);
}

TEST(Progress, DrawsThrottledAndErasesWhenDone) {
  std::FILE* f = std::tmpfile();
  {
    Progress p("generate suite", 500, f, true, std::chrono::milliseconds(0));
    for (int k = 0; k < 500; ++k) p.step("t" + std::to_string(k) + ".json");
    EXPECT_EQ(p.line(), "generate suite [500/500] t499.json");
  }
  const std::string s = contents(f);
  std::size_t draws = 0;
  for (std::size_t pos = 0; (pos = s.find("\r\033[K", pos)) != std::string::npos; ++pos) ++draws;
  EXPECT_EQ(s.find("generate suite [0/500]"), 4u);  // the first draw, after "\r\033[K"
  EXPECT_LT(draws, 20u);                            // 500 quick steps: throttled, not 500 draws
  EXPECT_GE(draws, 2u);
  EXPECT_EQ(s.substr(s.size() - 4), "\r\033[K");  // erased at the end
  std::fclose(f);
  std::FILE* g = std::tmpfile();
  {
    Progress q("count", 0, g, false);
    q.step();
    EXPECT_EQ(q.line(), "count [1]");
  }
  std::fclose(g);
}
