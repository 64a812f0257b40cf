// A test fixture for running the sf-replay binary (SFR_CLI) in a private temporary folder:
// exit status, stdout and stderr apart, and helpers to write input files there.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "support/process.hpp"

namespace sfr_test {

struct CliResult {
  int status;
  std::string out, err;
};

class CliTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("sfr_cli_" + std::to_string(::getpid()) + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Any shell command line, run in no particular folder.
  CliResult sh(const std::string& cmd) {
    const auto out = dir_ / "stdout", err = dir_ / "stderr";
    const int raw = std::system((cmd + " >" + out.string() + " 2>" + err.string()).c_str());
    return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(out), slurp(err)};
  }
  // sf-replay with these arguments.
  CliResult run(const std::string& args) { return sh(std::string(SFR_CLI) + " " + args); }
  std::filesystem::path write(const std::string& name, const std::string& text) {
    const auto p = dir_ / name;
    std::ofstream(p) << text;
    return p;
  }

  std::filesystem::path dir_;
};

// A refusal: exit status 2 and exactly one line on stderr that contains `want` (`what` names the
// case in failure messages).
inline void expect_refused(const CliResult& r, const std::string& what, const std::string& want) {
  EXPECT_EQ(r.status, 2) << what << ": " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << what << ": " << r.err;
  EXPECT_NE(r.err.find(want), std::string::npos) << what << ": " << r.err;
}

}  // namespace sfr_test
