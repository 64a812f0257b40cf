// Seeded mutation fuzzing of the machine-file reader: every mutation of the presets' JSON form is
// a machine or an InputError with one line; nothing else escapes and nothing crashes.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "io/json_strict.hpp"
#include "sim/machine.hpp"
#include "support/mutate.hpp"

using namespace sfr;

TEST(MachineFuzz, MutatedMachineFilesAreValidOrOneLineInputErrors) {
  std::vector<std::string> seeds;
  for (const char* name : {"lassen", "generic"}) seeds.push_back(sim::machine_to_json(*sim::preset(name)).dump(1));
  int valid = 0, refused = 0;
  for (std::uint64_t k = 0; k < 4000; ++k) {
    const std::string text = sfr_test::mutate(seeds[k % seeds.size()], k);
    try {
      sim::parse_machine(io::parse_json_strict(text, "m.json"), "m.json");
      ++valid;
    } catch (const InputError& e) {
      const std::string msg = e.what();
      ASSERT_EQ(msg.rfind("m.json", 0), 0u) << "seed " << k << ": " << msg;
      ASSERT_EQ(msg.find('\n'), std::string::npos) << "seed " << k << ": " << msg;
      ++refused;
    } catch (const std::exception& e) {
      FAIL() << "seed " << k << ": " << typeid(e).name() << ": " << e.what();
    }
  }
  EXPECT_GT(valid, 50);
  EXPECT_GT(refused, 1000);
}
