// A graceful stop for long runs. After install_stop_handlers(), the first SIGINT or
// SIGTERM only sets a flag, which the work loop polls at safe points so that it can save
// a checkpoint; a second one, a second or more later, gives up at once, removing
// temporary outputs as usual (one sooner is the first delivered twice: stop_signal.cpp).
#pragma once

#include <atomic>

namespace embed {

void install_stop_handlers();
// True once a stop has been asked for.
const std::atomic<bool>& stop_requested();
// The signal that asked (SIGINT or SIGTERM), or 0.
int stop_signal();

}  // namespace embed
