// sf-replay capture's bad cases: a command that is not a PETSc application, an application that
// fails or is killed, another PETSc, no SF operation, options that cannot work. Each: one line,
// the documented exit status, and no trace file.
#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "support/process.hpp"

namespace fs = std::filesystem;
using sfr_test::occurrences;
using sfr_test::run_command;

namespace {

struct CaptureCli : ::testing::Test {
  fs::path dir = fs::temp_directory_path() / ("sfr_capture_cli_" + std::to_string(::getpid()) + "_" +
                                              ::testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::path out = dir / "t.json";
  void SetUp() override {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  sfr_test::Proc capture(const std::string& rest, const std::string& env = "") {
    return run_command((env.empty() ? "" : "env " + env + " ") + SFR_CLI " capture -o " + out.string() + " " + rest);
  }
  // Exit 2, the reason said once, no trace.
  void expect_refused(const sfr_test::Proc& p, const std::string& why) const {
    EXPECT_EQ(p.status, 2) << p.out;
    EXPECT_EQ(occurrences(p.out, why), 1u) << p.out;
    EXPECT_FALSE(fs::exists(out));
  }
  std::string fake(const std::string& what) const {
    return std::string("env LD_LIBRARY_PATH=") + fs::path(SFR_FAKE_PETSC).parent_path().string() + " " SFR_FAKE_APP " " + what;
  }
};

}  // namespace

TEST_F(CaptureCli, ACommandThatIsNotAPetscApplication) {
  const auto p = capture("-- true");
  EXPECT_EQ(p.status, 2) << p.out;
  EXPECT_EQ(occurrences(p.out, "created no PetscSF"), 1u) << p.out;
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(CaptureCli, AFailingApplicationKeepsItsExitStatus) {
  const auto p = capture("-- sh -c 'exit 7'");
  EXPECT_EQ(p.status, 7) << p.out;
  EXPECT_NE(p.out.find("exited with status 7; no trace written"), std::string::npos) << p.out;
  EXPECT_FALSE(fs::exists(out));
  const auto k = capture("-- sh -c 'kill -9 $$'");
  EXPECT_EQ(k.status, 128 + 9) << k.out;
  EXPECT_NE(k.out.find("killed by signal 9"), std::string::npos) << k.out;
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(CaptureCli, AnotherPetscVersionIsRefused) {
  expect_refused(capture("-- " + fake("bcast"), "FAKE_PETSC_MINOR=19"),
                 "the application runs PETSc 3.19.0; this capture library was built for PETSc 3.18");
}

TEST_F(CaptureCli, APetscWith64BitIndicesIsRefused) {
  expect_refused(capture("-- " + fake("bcast"), "FAKE_PETSC_MINOR=18 FAKE_PETSC_INT_SIZE=8"), "64-bit PetscInt");
}

TEST_F(CaptureCli, APetscApplicationWithoutSFOperations) {
  expect_refused(capture("-- " + fake("none"), "FAKE_PETSC_MINOR=18"), "no PetscSF carried an operation");
}

TEST_F(CaptureCli, AnUnwritableOutputIsRefusedBeforeTheApplicationRuns) {
  const fs::path marker = dir / "ran";
  const auto p = run_command(SFR_CLI " capture -o " + (dir / "missing" / "t.json").string() + " -- touch " + marker.string());
  EXPECT_EQ(p.status, 2) << p.out;
  EXPECT_NE(p.out.find("--output"), std::string::npos) << p.out;
  EXPECT_FALSE(fs::exists(marker));
}

TEST_F(CaptureCli, OptionsThatCannotWork) {
  auto no_cmd = capture("");
  EXPECT_EQ(no_cmd.status, 2);
  EXPECT_NE(no_cmd.out.find("no command given after '--'"), std::string::npos) << no_cmd.out;
  auto no_out = run_command(SFR_CLI " capture -- true");
  EXPECT_EQ(no_out.status, 2);
  EXPECT_NE(no_out.out.find("no --output given"), std::string::npos) << no_out.out;
  auto zero = capture("--max-ops 0 -- true");
  EXPECT_EQ(zero.status, 2);
  EXPECT_NE(zero.out.find("--max-ops"), std::string::npos) << zero.out;
  std::ofstream(dir / "a-file") << "x";
  auto view = capture("--sf-view " + (dir / "a-file").string() + " -- true");
  EXPECT_EQ(view.status, 2);
  EXPECT_NE(view.out.find("--sf-view: '" + (dir / "a-file").string() + "' is not a folder"), std::string::npos) << view.out;
  // The command without '--': said, with where it goes.
  auto no_sep = capture("mpiexec -n 2 ./app");
  EXPECT_EQ(no_sep.status, 2);
  EXPECT_EQ(occurrences(no_sep.out, "'mpiexec': the application's command goes after '--'"), 1u) << no_sep.out;
  // capture itself started by mpiexec (each rank would capture again): refused before anything runs.
  const fs::path marker = dir / "ran";
  expect_refused(capture("-- touch " + marker.string(), "OMPI_COMM_WORLD_RANK=1"), "this capture runs as a rank of an MPI launch");
  expect_refused(capture("-- touch " + marker.string(), "PMIX_RANK=0"), "PMIX_RANK=0");
  EXPECT_FALSE(fs::exists(marker));
  auto lib_and_more = capture("--library");
  EXPECT_EQ(lib_and_more.status, 2);
  EXPECT_NE(lib_and_more.out.find("--library: takes no other option"), std::string::npos) << lib_and_more.out;
}

// --sf-view makes its folder (CapturePetsc writes the views into one); a capture that fails
// leaves none behind.
TEST_F(CaptureCli, SfViewOfAFailedCaptureLeavesNoFolder) {
  const fs::path failed = dir / "failed-views";
  EXPECT_EQ(capture("--sf-view " + failed.string() + " -- sh -c 'exit 3'").status, 3);
  EXPECT_FALSE(fs::exists(failed));
}

TEST_F(CaptureCli, LibraryPrintsAnExistingPath) {
  const auto p = run_command(SFR_CLI " capture --library");
  ASSERT_EQ(p.status, 0) << p.out;
  std::string path = p.out.substr(0, p.out.find('\n'));
  EXPECT_TRUE(fs::exists(path)) << path;
  EXPECT_EQ(fs::path(path).filename(), "libsfr_capture.so");
}

// SIGINT / SIGTERM to capture while its application runs (a launcher, here a shell, with two
// "ranks" that have written a rank file into the capture's folder and wait): forwarded to the
// launcher's process group, whose processes all end; the capture waits for them, removes its
// temporary folder and says it was interrupted, with status 128+N.
TEST_F(CaptureCli, ASignalIsForwardedAndTheTemporaryFolderRemoved) {
  for (const int sig : {SIGINT, SIGTERM}) {
    const fs::path tmp = dir / "tmp";
    fs::create_directories(tmp);
    sfr_test::Background cap("env TMPDIR=" + tmp.string() + " " SFR_CLI " capture -o " + out.string() +
                             " -- sh -c 'touch $SFR_CAPTURE_DIR/rank-0.json; sleep 61 & sleep 62 & wait'");
    // Until the ranks run (the launcher's children, under the capture).
    std::vector<pid_t> ranks;
    for (int k = 0; k < 1500 && ranks.size() < 2; ++k) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      const auto launcher = sfr_test::children_of(cap.pid());
      ranks = launcher.empty() ? std::vector<pid_t>{} : sfr_test::children_of(launcher.front());
    }
    ASSERT_EQ(ranks.size(), 2u) << cap.output();
    ASSERT_FALSE(fs::is_empty(tmp)) << "no capture folder";
    ::kill(cap.pid(), sig);
    ASSERT_EQ(cap.wait_for(15), 128 + sig) << cap.output();
    EXPECT_EQ(occurrences(cap.output(), "sf-replay capture: interrupted by signal " + std::to_string(sig) + "; no trace written"), 1u)
        << cap.output();
    EXPECT_EQ(sfr_test::still_alive_after(ranks, 10), std::vector<pid_t>{}) << "ranks still running 10 s after the capture ended";
    EXPECT_TRUE(fs::is_empty(tmp)) << "the capture's temporary folder is left";
    EXPECT_FALSE(fs::exists(out));
    fs::remove_all(tmp);
  }
}
