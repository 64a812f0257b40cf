// Atomic output: content goes to a temporary file beside the target, which is renamed over the
// target only when complete. A failing run never leaves a partial file.
#pragma once

#include <string>

namespace sfr::trace {

// Throws InputError naming the path if it cannot be written.
void write_file_atomic(const std::string& path, const std::string& content);

}  // namespace sfr::trace
