#include "core/stop_signal.h"

#include <signal.h>

#include <csignal>

#include "core/atomic_output.h"

namespace embed {
namespace {

std::atomic<bool> requested{false};
std::atomic<int> requesting_signal{0};

extern "C" void on_stop_signal(int signo) {
  if (requested.exchange(true)) remove_temporaries_and_die(signo);  // the second time: stop now
  requesting_signal.store(signo);
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
