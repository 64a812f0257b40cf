// core/environment: the one table of environment variables, the one reading of the launcher's
// rank, and that the command line reference (src/cli/README.md) and the sources keep to them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/environment.hpp"
#include "core/error.hpp"
#include "support/process.hpp"

namespace {

namespace fs = std::filesystem;
using sfr::core::Env;

const fs::path kRoot = fs::path(SFR_TRACES_DIR).parent_path();

// Sets the launcher's three variables for one scope (nullptr: unset) and takes them back.
class LauncherVars {
public:
  LauncherVars(const char* ompi, const char* pmix, const char* pmi) {
    set("OMPI_COMM_WORLD_RANK", ompi);
    set("PMIX_RANK", pmix);
    set("PMI_RANK", pmi);
  }
  ~LauncherVars() {
    for (const auto& [name, value] : saved_) value ? setenv(name.c_str(), value->c_str(), 1) : unsetenv(name.c_str());
  }

private:
  void set(const char* name, const char* value) {
    const char* old = std::getenv(name);
    saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
    value ? setenv(name, value, 1) : unsetenv(name);
  }
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

TEST(Environment, TheLauncherRankIsOpenMpisThenPmixThenPmi) {
  {
    LauncherVars v(nullptr, nullptr, nullptr);
    EXPECT_FALSE(sfr::core::launcher_rank());
  }
  {
    LauncherVars v(nullptr, nullptr, "5");
    ASSERT_TRUE(sfr::core::launcher_rank());
    EXPECT_EQ(sfr::core::launcher_rank()->rank, 5);
    EXPECT_STREQ(sfr::core::launcher_rank()->variable, "PMI_RANK");
  }
  {
    LauncherVars v(nullptr, "3", "5");
    EXPECT_EQ(sfr::core::launcher_rank()->rank, 3);
    EXPECT_STREQ(sfr::core::launcher_rank()->variable, "PMIX_RANK");
  }
  {
    LauncherVars v("2", "3", "5");
    EXPECT_EQ(sfr::core::launcher_rank()->rank, 2);
    EXPECT_EQ(sfr::core::launcher_rank()->text, "2");
    EXPECT_STREQ(sfr::core::launcher_rank()->variable, "OMPI_COMM_WORLD_RANK");
  }
}

TEST(Environment, TheEmulatedDeviceSeedIsAnUnsignedIntegerOrAnErrorNamingTheVariable) {
  const char* old = std::getenv("SFR_EMULATE_DEVICE");
  const std::string kept = old ? old : "";
  setenv("SFR_EMULATE_DEVICE", "42", 1);
  EXPECT_EQ(sfr::core::emulated_device_seed(), 42u);
  setenv("SFR_EMULATE_DEVICE", "", 1);
  EXPECT_FALSE(sfr::core::emulated_device_seed());
  for (const char* bad : {"-1", "4x", "seed", "99999999999999999999999"}) {
    setenv("SFR_EMULATE_DEVICE", bad, 1);
    try {
      sfr::core::emulated_device_seed();
      ADD_FAILURE() << bad << " accepted";
    } catch (const sfr::InputError& e) {
      EXPECT_NE(std::string(e.what()).find("SFR_EMULATE_DEVICE"), std::string::npos) << e.what();
    }
  }
  old ? setenv("SFR_EMULATE_DEVICE", kept.c_str(), 1) : unsetenv("SFR_EMULATE_DEVICE");
}

// The command line reference (src/cli/README.md, "Environment variables") lists the table's rows,
// each "| `NAME` | MEANING |", and no other.
TEST(Environment, TheReadmesTableIsTheCodesTable) {
  const std::string readme = sfr_test::slurp(kRoot / "src" / "cli" / "README.md");
  const auto start = readme.find("\n## Environment variables\n");
  ASSERT_NE(start, std::string::npos) << "src/cli/README.md has no section \"## Environment variables\"";
  const auto end = readme.find("\n#", start + 1);
  std::istringstream section(readme.substr(start, end - start));
  std::set<std::string> rows;
  for (std::string line; std::getline(section, line);)
    if (line.rfind("| `", 0) == 0) rows.insert(line);
  std::set<std::string> expected;
  for (const auto& v : sfr::core::kEnvironment) expected.insert(std::string("| `") + v.name + "` | " + v.meaning + " |");
  EXPECT_EQ(rows, expected);
}

// No source reads the environment but through the table (std::getenv, getenv, secure_getenv).
TEST(Environment, NoSourceReadsItButThroughTheTable) {
  std::vector<std::string> readers;
  for (const char* dir : {"src", "sim", "generators"})
    for (const auto& e : fs::recursive_directory_iterator(kRoot / dir)) {
      const auto ext = e.path().extension();
      if (ext != ".cpp" && ext != ".hpp" && ext != ".c" && ext != ".h" && ext != ".cu" && ext != ".cuh") continue;
      if (e.path().filename() == "environment.hpp") continue;
      if (sfr_test::slurp(e.path()).find("getenv(") != std::string::npos) readers.push_back(fs::relative(e.path(), kRoot).string());
    }
  EXPECT_TRUE(readers.empty()) << "read the environment through core/environment.hpp: " << testing::PrintToString(readers);
}

}  // namespace
