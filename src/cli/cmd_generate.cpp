// Placeholder until the generators land: a clear error instead of a missing command.
#include "cli/command.hpp"
#include "core/error.hpp"

namespace sfr::cli {

int cmd_generate(const Args&) {
  throw InputError("generate", "not available in this build yet (the generators are not built)"); }

}  // namespace sfr::cli
