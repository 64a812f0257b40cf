#include "core/progress.hpp"

#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "core/environment.hpp"

namespace sfr::core {

bool progress_wanted(std::FILE* stream) {
  if (env_value(Env::ci) || env_value(Env::no_progress)) return false;
  const char* term = env_value(Env::term);
  if (term && std::strcmp(term, "dumb") == 0) return false;
  return ::isatty(::fileno(stream)) == 1;
}

Progress::Progress(std::string label, std::size_t total, std::FILE* stream)
    : Progress(std::move(label), total, stream, progress_wanted(stream)) {}

Progress::Progress(std::string label, std::size_t total, std::FILE* stream, bool enabled, std::chrono::milliseconds delay)
    : label_(std::move(label)), total_(total), stream_(stream), enabled_(enabled), start_(std::chrono::steady_clock::now()), delay_(delay) {
  draw(true);
}

Progress::~Progress() { done(); }

std::string Progress::line() const {
  std::string s = label_ + " [" + std::to_string(done_);
  if (total_) s += "/" + std::to_string(total_);
  s += "]";
  if (!what_.empty()) s += " " + what_;
  return s;
}

void Progress::step(const std::string& what) {
  ++done_;
  what_ = what;
  draw(false);
}

void Progress::draw(bool force) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - start_ < delay_) return;
  if (!force && drawn_ && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  std::string s = line();
  if (s.size() > 100) s = s.substr(0, 97) + "...";
  std::fprintf(stream_, "\r\033[K%s", s.c_str());
  std::fflush(stream_);
  drawn_ = true;
}

void Progress::done() {
  if (enabled_ && drawn_) {
    std::fprintf(stream_, "\r\033[K");
    std::fflush(stream_);
  }
  drawn_ = false;
  enabled_ = false;
}

}  // namespace sfr::core
