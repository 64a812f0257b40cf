// Atomic outputs: a batch of outputs appears together or not at all (a failure while staging or
// moving removes what it staged and moved), a new file never replaces one, and the temporary files
// in flight are what remove_pending_files (the signal handler's step) unlinks.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "core/error.hpp"
#include "io/output_file.hpp"
#include "support/process.hpp"

namespace fs = std::filesystem;
using namespace sfr;

namespace {

struct OutputFiles : ::testing::Test {
  fs::path dir = fs::temp_directory_path() / ("sfr_output_" + std::to_string(::getpid()) + "_" +
                                              ::testing::UnitTest::GetInstance()->current_test_info()->name());
  void SetUp() override {
    fs::remove_all(dir);
    fs::create_directories(dir / "store");
  }
  void TearDown() override { fs::remove_all(dir); }
  std::set<std::string> files() const {
    std::set<std::string> s;
    for (const auto& e : fs::recursive_directory_iterator(dir))
      if (e.is_regular_file()) s.insert(fs::relative(e.path(), dir).string());
    return s;
  }
};

}  // namespace

TEST_F(OutputFiles, ABatchAppearsAtCommit) {
  io::OutputBatch b;
  b.replace((dir / "a.json").string(), "A");
  int n = 0;
  b.create_new((dir / "store").string(), [&] { return "doc-" + std::to_string(n++) + ".json"; }, "S");
  EXPECT_FALSE(fs::exists(dir / "a.json"));  // staged only
  std::ofstream(dir / "store" / "doc-0.json") << "taken";  // the first name is taken: never replaced
  const auto written = b.commit();
  ASSERT_EQ(written.size(), 2u);
  EXPECT_EQ(sfr_test::slurp(dir / "a.json"), "A");
  EXPECT_EQ(written[1], (dir / "store" / "doc-1.json").string());
  EXPECT_EQ(sfr_test::slurp(dir / "store" / "doc-0.json"), "taken");
  EXPECT_EQ(sfr_test::slurp(dir / "store" / "doc-1.json"), "S");
  EXPECT_EQ(files(), (std::set<std::string>{"a.json", "store/doc-0.json", "store/doc-1.json"}));
}

TEST_F(OutputFiles, ABatchLeftUncommittedLeavesNothing) {
  {
    io::OutputBatch b;
    b.replace((dir / "a.json").string(), "A");
    b.create_new((dir / "store").string(), [] { return "doc.json"; }, "S");
  }
  EXPECT_EQ(files(), std::set<std::string>{});
}

TEST_F(OutputFiles, AFailedStagingLeavesNothing) {
  io::OutputBatch b;
  b.replace((dir / "a.json").string(), "A");
  EXPECT_THROW(b.replace((dir / "no-such-folder" / "b.json").string(), "B"), InputError);
  EXPECT_EQ(files().size(), 1u);  // a.json's temporary, until the batch goes
}

TEST_F(OutputFiles, AFailedMoveRemovesWhatWasMoved) {
  fs::create_directories(dir / "b.json");  // a folder: renaming a file over it fails
  {
    io::OutputBatch b;
    b.replace((dir / "a.json").string(), "A");
    b.replace((dir / "b.json").string(), "B");
    EXPECT_THROW(b.commit(), InputError);
  }
  EXPECT_FALSE(fs::exists(dir / "a.json"));
  EXPECT_EQ(files(), std::set<std::string>{});
}

TEST_F(OutputFiles, PendingFilesAreWhatASignalRemoves) {
  const fs::path t1 = dir / ".x.tmp", t2 = dir / ".y.tmp", kept = dir / "z.json";
  for (const auto& p : {t1, t2, kept}) std::ofstream(p) << "x";
  {
    const io::PendingFile p1(t1.string()), p2(t2.string());
    io::remove_pending_files();
  }
  EXPECT_FALSE(fs::exists(t1));
  EXPECT_FALSE(fs::exists(t2));
  EXPECT_TRUE(fs::exists(kept));
  std::ofstream(t1) << "again";
  io::remove_pending_files();  // no longer pending: left alone
  EXPECT_TRUE(fs::exists(t1));
}
