#include "core/stop_signal.h"

#include <signal.h>
#include <time.h>

#include <csignal>
#include <cstdint>

#include "core/atomic_output.h"

namespace embed {
namespace {

std::atomic<bool> requested{false};
std::atomic<int> requesting_signal{0};
std::atomic<std::int64_t> first_request_ns{0};  // CLOCK_MONOTONIC; 0: none yet

// A signal within this long of the first is the same request: `timeout -s INT` (and
// `kill -INT -- -PGID`, a terminal's Ctrl-C to a pipeline's group) can deliver one
// signal twice, to the process and to its group, and taken as "stop now" the second
// ended runs with no checkpoint (issue 37: 1 to 3 runs of 12).
constexpr std::int64_t kSameRequestNs = 1'000'000'000;

std::int64_t now_ns() {  // clock_gettime is async-signal-safe
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

extern "C" void on_stop_signal(int signo) {
  const std::int64_t now = now_ns();
  std::int64_t first = 0;
  if (first_request_ns.compare_exchange_strong(first, now)) {  // the first: stop at the next chance
    requesting_signal.store(signo);
    requested.store(true);
    return;
  }
  if (now - first < kSameRequestNs) return;
  remove_temporaries_and_die(signo);  // asked again: stop now
}

}  // namespace

void install_stop_handlers() {
  install_cleanup_handlers();  // SIGHUP and SIGPIPE keep the plain cleanup
  for (int signo : {SIGINT, SIGTERM}) {
    struct sigaction old {};
    sigaction(signo, nullptr, &old);
    if (old.sa_handler == SIG_IGN) continue;  // respect nohup and friends
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(signo, &action, nullptr);
  }
}

const std::atomic<bool>& stop_requested() { return requested; }
int stop_signal() { return requesting_signal.load(); }

}  // namespace embed
