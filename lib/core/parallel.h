// Minimal data parallelism: run fn(i) for i in [0, count) on up to `threads` threads.
// An exception thrown by any task is rethrown in the caller after all threads join
// (the lowest-indexed failing task wins, so errors are deterministic).
#pragma once

#include <cstddef>
#include <functional>

namespace embed {

unsigned default_thread_count();

void parallel_for(std::size_t count, unsigned threads, const std::function<void(std::size_t)>& fn);

}  // namespace embed
