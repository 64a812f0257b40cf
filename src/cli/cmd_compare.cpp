// Placeholder until the simulator land: a clear error instead of a missing command.
#include "cli/command.hpp"
#include "core/error.hpp"

namespace sfr::cli {

int cmd_compare(const Args&) {
  throw InputError("compare", "not available in this build yet (the simulator are not built)"); }

}  // namespace sfr::cli
