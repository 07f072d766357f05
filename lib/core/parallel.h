// Minimal data parallelism: run fn(i) for i in [0, count) on up to `threads` threads.
// An exception thrown by any task is rethrown in the caller after all threads join
// (the lowest-indexed failing task wins, so errors are deterministic).
#pragma once

#include <cstddef>
#include <functional>

namespace embed {

unsigned default_thread_count();

void parallel_for(std::size_t count, unsigned threads, const std::function<void(std::size_t)>& fn);

// The same, also passing which worker (0 .. threads-1) runs the task, so that tasks can
// accumulate into per-worker state without locks. Worker 0 is the calling thread.
void parallel_for_workers(std::size_t count, unsigned threads,
                          const std::function<void(std::size_t task, unsigned worker)>& fn);

}  // namespace embed
