// Atomic output: content goes to a temporary file beside the target, which is renamed over the
// target only when complete. A failing run never leaves a partial file.
#pragma once

#include <string>

namespace sfr::io {

// Throws InputError naming the path if it cannot be written.
void write_file_atomic(const std::string& path, const std::string& content);

// Writes `content` to `path` (no rename); on failure removes what was written and throws
// InputError naming `name` (the file the user knows of). The first step of the atomic writes.
void write_new_file(const std::string& path, const std::string& content, const std::string& name);

// Throws InputError(option, ...) when `path` could not be written later: it is a folder, or its
// folder is missing or not writable. Commands call it before any work, so that a long run does
// not fail at its very end.
void check_output_path(const std::string& option, const std::string& path);

// Empty when a file can be created in folder `dir` (tried: a probe file is created and removed,
// since permission bits say nothing of /proc, read-only mounts or root), else the reason.
std::string cannot_create_in(const std::string& dir);

}  // namespace sfr::io
