#include "io/output_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "core/failpoint.hpp"

namespace sfr::io {

void check_output_path(const std::string& option, const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path target(path);
  if (path.empty()) throw InputError(option, "empty output path");
  if (fs::is_directory(target, ec)) throw InputError(option, "'" + path + "' is a folder, not a file");
  const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  if (!fs::is_directory(dir, ec)) throw InputError(option, "cannot write '" + path + "': folder '" + dir.string() + "' does not exist");
  if (const auto why = cannot_create_in(dir.string()); !why.empty())
    throw InputError(option, "cannot write '" + path + "' in folder '" + dir.string() + "': " + why);
}

std::string cannot_create_in(const std::string& dir) {
  const std::string probe = (std::filesystem::path(dir) / (".sfr-probe." + std::to_string(::getpid()))).string();
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) {
    if (errno == EEXIST) return "";
    // /proc and /sys say "no such file" to a new name: the folder takes no new files.
    return errno == ENOENT ? std::string("the folder takes no new files") : std::string(std::strerror(errno));
  }
  ::close(fd);
  ::unlink(probe.c_str());
  return "";
}

void write_new_file(const std::string& path, const std::string& content, const std::string& name) {
  namespace fs = std::filesystem;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw InputError(name, std::string("cannot write output file: ") + std::strerror(errno));
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.flush();
  out.close();
  std::error_code ec;
  if (!out) {
    fs::remove(path, ec);
    throw InputError(name, "error while writing output file");
  }
  try {
    core::fail_point(core::FailPoint::stall_write);
    core::fail_point(core::FailPoint::write);
  } catch (...) {
    fs::remove(path, ec);
    throw;
  }
}

namespace {

// The pending temporary files: a slot is claimed (1), its path written, then published (2) for
// remove_pending_files; only lock-free atomics, so that a signal handler may read them.
constexpr int kSlots = 16;
constexpr std::size_t kPathMax = 4096;
struct Slot {
  std::atomic<int> state{0};  // 0 free, 1 being written, 2 published
  char path[kPathMax];
};
Slot slots[kSlots];
static_assert(std::atomic<int>::is_always_lock_free);

// The temporary file beside `target` that this process writes it through.
std::filesystem::path temp_beside(const std::filesystem::path& target, const std::string& tag) {
  return target.parent_path() / ("." + target.filename().string() + ".tmp." + std::to_string(::getpid()) + tag);
}

}  // namespace

PendingFile::PendingFile(const std::string& path) {
  if (path.size() >= kPathMax) return;
  for (int k = 0; k < kSlots; ++k) {
    int free = 0;
    if (!slots[k].state.compare_exchange_strong(free, 1)) continue;
    std::memcpy(slots[k].path, path.c_str(), path.size() + 1);
    slots[k].state.store(2);
    slot_ = k;
    return;
  }
}

PendingFile::~PendingFile() {
  if (slot_ >= 0) slots[slot_].state.store(0);
}

void remove_pending_files() noexcept {
  for (auto& s : slots)
    if (s.state.load() == 2) ::unlink(s.path);
}

void write_file_atomic(const std::string& path, const std::string& content) {
  OutputBatch b;
  b.replace(path, content);
  b.commit();
}

struct OutputBatch::Staged {
  std::string tmp, target;                 // target: empty until a new file's name is found
  std::function<std::string()> next_name;  // create_new: names to try in dir
  std::string dir;
  PendingFile pending;
  explicit Staged(const std::string& t) : tmp(t), pending(t) {}
  ~Staged() {
    std::error_code ec;
    std::filesystem::remove(tmp, ec);  // gone after a rename; after a link, the second name
  }
};

OutputBatch::OutputBatch() = default;

OutputBatch::~OutputBatch() {
  staged_.clear();
  std::error_code ec;
  for (const auto& m : moved_) std::filesystem::remove(m, ec);  // a commit that failed midway
}

void OutputBatch::replace(const std::string& path, const std::string& content) {
  auto s = std::make_unique<Staged>(temp_beside(path, "." + std::to_string(staged_.size())).string());
  s->target = path;
  write_new_file(s->tmp, content, path);
  staged_.push_back(std::move(s));
}

void OutputBatch::create_new(const std::string& dir, std::function<std::string()> next_name, const std::string& content) {
  auto s = std::make_unique<Staged>(temp_beside(std::filesystem::path(dir) / "store", "." + std::to_string(staged_.size())).string());
  s->dir = dir;
  s->next_name = std::move(next_name);
  write_new_file(s->tmp, content, dir);
  staged_.push_back(std::move(s));
}

std::vector<std::string> OutputBatch::commit() {
  namespace fs = std::filesystem;
  for (auto& s : staged_) {
    if (s->next_name) {
      // link() refuses an existing name: a new file never replaces one.
      int err = 0;
      for (int attempt = 0; attempt < 100 && s->target.empty(); ++attempt) {
        const std::string name = (fs::path(s->dir) / s->next_name()).string();
        if (::link(s->tmp.c_str(), name.c_str()) == 0)
          s->target = name;
        else if ((err = errno) != EEXIST)
          break;
      }
      if (s->target.empty()) throw InputError(s->dir, std::string("cannot file the result document: ") + std::strerror(err));
    } else {
      std::error_code ec;
      fs::rename(s->tmp, s->target, ec);
      if (ec) throw InputError(s->target, "cannot move output file into place: " + ec.message());
    }
    moved_.push_back(s->target);
  }
  std::vector<std::string> out;
  out.swap(moved_);
  staged_.clear();
  return out;
}

}  // namespace sfr::io
