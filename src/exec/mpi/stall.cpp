#include "exec/mpi/stall.hpp"

#include <mpi.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

namespace sfr::exec::mpi::stall {

namespace {

struct Watch {
  std::atomic<std::uint64_t> ticks{0};
  std::atomic<bool> armed{false};
  std::mutex m;  // guards what, ranks, since
  std::string what;
  std::vector<int> ranks;
  Clock::time_point since;
  std::string cmd;
  double seconds = 0;
  int rank = 0;
};

Watch& watch() {
  static Watch w;
  return w;
}

std::string rank_list(const std::vector<int>& ranks) {
  if (ranks.empty()) return "any rank";
  std::string s = ranks.size() == 1 ? "rank " : "ranks ";
  constexpr std::size_t kShown = 16;
  for (std::size_t k = 0; k < ranks.size() && k < kShown; ++k) s += (k ? ", " : "") + std::to_string(ranks[k]);
  if (ranks.size() > kShown) s += ", ... (" + std::to_string(ranks.size()) + " in all)";
  return s;
}

[[noreturn]] void fire(const std::string& what, const std::vector<int>& ranks) {
  Watch& w = watch();
  const int rank = w.rank;
  char secs[32];
  std::snprintf(secs, sizeof secs, "%g", w.seconds);
  const std::string line = "sf-replay " + w.cmd + ": error: rank " + std::to_string(rank) + ": no progress for " + secs + " s in " + what +
                           ", waiting for " + rank_list(ranks) + " (--stall-timeout)\n";
  (void)!::write(2, line.data(), line.size());
  // Should the abort not come back (a launcher that cannot reach a cut node), leave anyway.
  std::thread([] {
    std::this_thread::sleep_for(std::chrono::seconds(3));
    std::_Exit(1);
  }).detach();
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);
}

void run() {
  Watch& w = watch();
  // Ranks other than 0 give rank 0 two more seconds, so that a stall every rank meets is said once.
  Progress p(std::chrono::duration<double>(w.seconds + (w.rank == 0 ? 0 : 2)), w.ticks.load(std::memory_order_relaxed), Clock::now());
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    Clock::time_point since;
    {
      std::lock_guard l(w.m);
      since = w.since;
    }
    if (!p.stalled(Clock::now(), w.ticks.load(std::memory_order_relaxed), w.armed.load(std::memory_order_relaxed), since)) continue;
    std::lock_guard l(w.m);
    fire(w.what, w.ranks);
  }
}

}  // namespace

bool Progress::stalled(Clock::time_point now, std::uint64_t ticks, bool armed, Clock::time_point armed_since) {
  if (ticks != seen_ || !armed) {
    seen_ = ticks;
    last_ = now;
    return false;
  }
  last_ = std::max(last_, armed_since);
  return now - last_ >= limit_;
}

void start(const char* cmd, double seconds) {
  Watch& w = watch();
  if (seconds <= 0 || !w.cmd.empty()) return;
  w.cmd = cmd;
  w.seconds = seconds;
  MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
  std::thread(run).detach();  // lives as long as the process
}

void doing(std::string what, std::vector<int> ranks) {
  Watch& w = watch();
  {
    std::lock_guard l(w.m);
    w.what = std::move(what);
    w.ranks = std::move(ranks);
    w.since = Clock::now();
  }
  w.armed.store(true, std::memory_order_relaxed);
}

void tick() noexcept { watch().ticks.fetch_add(1, std::memory_order_relaxed); }

void idle() { watch().armed.store(false, std::memory_order_relaxed); }

}  // namespace sfr::exec::mpi::stall
