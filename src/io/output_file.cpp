#include "io/output_file.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"

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
  if (!out) {
    out.close();
    std::error_code ec;
    fs::remove(path, ec);
    throw InputError(name, "error while writing output file");
  }
}

void write_file_atomic(const std::string& path, const std::string& content) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path tmp = target.parent_path() / ("." + target.filename().string() + ".tmp." + std::to_string(::getpid()));
  write_new_file(tmp.string(), content, path);
  std::error_code ec;
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw InputError(path, "cannot move output file into place: " + ec.message());
  }
}

}  // namespace sfr::io
