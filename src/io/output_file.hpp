// Atomic output: content goes to a temporary file beside the target, which is renamed over the
// target only when complete. A failing run never leaves a partial file, nor does an interrupted
// one: the temporary files in flight are known (PendingFile), and the CLI's handler of SIGINT,
// SIGTERM and SIGHUP removes them (remove_pending_files) before the process ends.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

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

// A temporary file this process is writing, known to remove_pending_files for as long as this
// object lives (it does not remove the file itself). At most 16 are known at once; a path longer
// than 4,095 bytes is not known.
class PendingFile {
public:
  explicit PendingFile(const std::string& path);
  ~PendingFile();
  PendingFile(const PendingFile&) = delete;
  PendingFile& operator=(const PendingFile&) = delete;

private:
  int slot_ = -1;
};

// Unlinks every PendingFile's path. Async-signal-safe (atomics and unlink only).
void remove_pending_files() noexcept;

// Outputs of one command made visible together (run's dump, timing document and stored
// document): each is staged as a temporary file beside its target, and commit() moves them all
// into place. A failure while staging or moving, or destruction before commit, removes every
// temporary file and every output already moved: a failing command leaves none of them.
class OutputBatch {
public:
  OutputBatch();
  ~OutputBatch();
  OutputBatch(const OutputBatch&) = delete;
  OutputBatch& operator=(const OutputBatch&) = delete;
  // `path` is replaced at commit. Throws InputError naming `path` when the staging fails.
  void replace(const std::string& path, const std::string& content);
  // A new file in folder `dir` at commit, never replacing one: next_name() proposes file names
  // (at most 100) until one is free. Throws InputError naming `dir` when the staging fails.
  void create_new(const std::string& dir, std::function<std::string()> next_name, const std::string& content);
  // Moves every staged file into place; the paths written, in the order staged. Throws InputError
  // (after removing what it moved) when a move fails.
  std::vector<std::string> commit();

private:
  struct Staged;
  std::vector<std::unique_ptr<Staged>> staged_;
  std::vector<std::string> moved_;
};

}  // namespace sfr::io
