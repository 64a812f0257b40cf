// Progress of long work (suite generation, calibration, big generate/simulate runs, benchmarks) on
// a terminal: one line on stderr, first drawn after a second (quick work shows nothing), redrawn
// at most 10 times a second and erased when done. Nothing
// at all when stderr is not a terminal (logs, pipes) or in CI (the CI variable is set), or with
// SFR_NO_PROGRESS set, so that logs and captured outputs stay clean.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>

namespace sfr::core {

// Whether progress lines go to this stream: a terminal, not CI, not switched off.
bool progress_wanted(std::FILE* stream);

class Progress {
public:
  // `total` 0: steps are counted without a total.
  Progress(std::string label, std::size_t total, std::FILE* stream = stderr);
  Progress(std::string label, std::size_t total, std::FILE* stream, bool enabled,
           std::chrono::milliseconds delay = std::chrono::milliseconds(1000));
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void step(const std::string& what = "");  // one more unit done; `what`: the one starting next
  void done();                              // erases the line (also on destruction)
  // The line as drawn now, e.g. "generate suite [3/18] stencil.json".
  std::string line() const;
  bool on() const { return enabled_; }  // false: nothing will be drawn (callers may skip building labels)

private:
  void draw(bool force);
  std::string label_, what_;
  std::size_t total_, done_ = 0;
  std::FILE* stream_;
  bool enabled_, drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_{};
  std::chrono::milliseconds delay_;
};

}  // namespace sfr::core
