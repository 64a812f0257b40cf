// Seeded mutation fuzzing of the trace reader (run by ctest in CI, under AddressSanitizer there):
// every mutation of the sample traces is either a valid trace or an InputError with one line
// naming the source; nothing else escapes, nothing crashes, and nothing allocates past the limit
// (graphs of valid mutants are built within 256 MiB, refusals being InputErrors too).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "exec/conformance.hpp"
#include "support/malformed_cases.hpp"
#include "support/mutate.hpp"
#include "support/sample_traces.hpp"
#include "trace/reader.hpp"

using namespace sfr;

TEST(ReaderFuzz, MutatedTracesAreValidOrOneLineInputErrors) {
  std::vector<std::string> seeds = {sfr_test::kBaseTrace};
  for (const auto& p : sfr_test::sample_traces())
    if (std::filesystem::file_size(p) < 64 * 1024) {
      std::ifstream in(p, std::ios::binary);
      seeds.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
  ASSERT_GE(seeds.size(), 5u);
  const auto start = std::chrono::steady_clock::now();
  int valid = 0, refused = 0;
  for (std::uint64_t k = 0; k < 6000; ++k) {
    // A bound on time as well as on cases: CI runs this under AddressSanitizer.
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(60)) break;
    const std::string text = sfr_test::mutate(seeds[k % seeds.size()], k);
    try {
      const auto t = trace::parse_trace(text, "fuzz.json", {256u << 20});
      for (const auto& sf : t.trace().sfs) t.graph(sf.name);
      exec::data_estimate(t, -1, true, true);
      ++valid;
    } catch (const InputError& e) {
      const std::string msg = e.what();
      ASSERT_EQ(msg.rfind("fuzz.json", 0) == 0 || msg.rfind("/sfs/", 0) == 0, true) << "seed " << k << ": " << msg;
      ASSERT_EQ(msg.find('\n'), std::string::npos) << "seed " << k << ": " << msg;
      ++refused;
    } catch (const std::exception& e) {
      FAIL() << "seed " << k << " (mutation of seed document " << k % seeds.size() << "): " << typeid(e).name() << ": " << e.what();
    }
  }
  // Both outcomes occur: the mutations are neither all fatal nor all harmless.
  EXPECT_GT(valid, 50);
  EXPECT_GT(refused, 1000);
  std::cout << valid << " valid and " << refused << " refused mutants\n";
}
