#include "cli/signals.hpp"

#include <signal.h>

#include "io/output_file.hpp"

namespace sfr::cli {

namespace {

extern "C" void remove_and_reraise(int sig) {
  sfr::io::remove_pending_files();
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

}  // namespace

void remove_partial_output_on_signals() {
  struct sigaction sa {};
  sa.sa_handler = remove_and_reraise;
  sigemptyset(&sa.sa_mask);
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    // A signal the caller ignores (nohup: SIGHUP) stays ignored.
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    ::sigaction(sig, &sa, nullptr);
  }
}

}  // namespace sfr::cli
