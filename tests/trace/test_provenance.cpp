// Result provenance and --store: SHA-256 against the FIPS 180-2 vectors and coreutils' sha256sum,
// the commit against git, and a store that never rewrites a file.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "core/error.hpp"
#include "support/process.hpp"
#include "trace/provenance.hpp"

namespace fs = std::filesystem;
using namespace sfr;

TEST(Provenance, Sha256KnownVectors) {
  EXPECT_EQ(trace::sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(trace::sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(trace::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Provenance, FileHashMatchesSha256sum) {
  // Larger than the reader's 1 MiB chunk, so that chunking is exercised.
  const fs::path f = fs::temp_directory_path() / ("sfr_sha_" + std::to_string(::getpid()));
  {
    std::ofstream out(f, std::ios::binary);
    for (int i = 0; i < 300000; ++i) out << i << ' ';
  }
  const auto r = sfr_test::run_command("sha256sum " + f.string());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(trace::sha256_file(f.string()), r.out.substr(0, 64));
  fs::remove(f);
  EXPECT_THROW(trace::sha256_file(f.string()), InputError);
}

TEST(Provenance, ObjectHasEveryField) {
  const auto p = trace::provenance({"simulate", 8, "t", "", ""});
  for (const char* k : {"tool", "command", "commit", "date", "host", "cpu_model", "cores", "mpi", "ranks", "trace", "trace_sha256"})
    EXPECT_TRUE(p.contains(k)) << k;
  EXPECT_EQ(p["ranks"], 8);
  EXPECT_EQ(p["trace"], "t");
  EXPECT_TRUE(p["mpi"].is_null());
  EXPECT_TRUE(p["trace_sha256"].is_null());
  EXPECT_TRUE(std::regex_match(p["date"].get<std::string>(), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
}

// The build's commit is the source tree's HEAD (when git and the repository are here).
TEST(Provenance, CommitIsTheSourceTreesHead) {
  const auto r = sfr_test::run_command(std::string("git -C ") + SFR_TRACES_DIR + "/.. rev-parse HEAD");
  if (r.status != 0) GTEST_SKIP() << "no git or no repository: " << r.out;
  // Built from that tree; a commit made after the build would differ (rebuild first).
  EXPECT_EQ(std::string(trace::build_commit()).substr(0, 40), r.out.substr(0, 40));
}

TEST(Provenance, StoreNeverRewritesAndLeavesNoTemporary) {
  const fs::path dir = fs::temp_directory_path() / ("sfr_store_" + std::to_string(::getpid())) / "sub";
  fs::remove_all(dir.parent_path());
  std::set<std::string> names;
  for (int k = 0; k < 20; ++k) names.insert(trace::store_document(dir.string(), "timing", "a/b c", "{\"k\": " + std::to_string(k) + "}\n"));
  EXPECT_EQ(names.size(), 20u);
  std::set<std::string> contents;
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    ++files;
    EXPECT_EQ(e.path().filename().string().rfind("timing-a_b_c-", 0), 0u) << e.path();
    contents.insert(sfr_test::slurp(e.path()));
  }
  EXPECT_EQ(files, 20u);  // no temporary left behind
  EXPECT_EQ(contents.size(), 20u);
  // A file in the way of the folder, and a folder that cannot be written.
  const fs::path file = dir / "plain";
  std::ofstream(file) << "x";
  EXPECT_THROW(trace::check_store_dir("--store", file.string()), InputError);
  if (::geteuid() != 0) {
    ::chmod(dir.c_str(), 0500);
    EXPECT_THROW(trace::store_document(dir.string(), "timing", "t", "{}"), InputError);
    ::chmod(dir.c_str(), 0700);
  }
  fs::remove_all(dir.parent_path());
}
