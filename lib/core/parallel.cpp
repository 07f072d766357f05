#include "core/parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace embed {

unsigned default_thread_count() { return std::max(1u, std::thread::hardware_concurrency()); }

void parallel_for(std::size_t count, unsigned threads, const std::function<void(std::size_t)>& fn) {
  parallel_for_workers(count, threads, [&](std::size_t task, unsigned) { fn(task); });
}

void parallel_for_workers(std::size_t count, unsigned threads,
                          const std::function<void(std::size_t task, unsigned worker)>& fn) {
  const std::size_t workers = std::min<std::size_t>(std::max(1u, threads), count);
  if (workers <= 1) {
    for (std::size_t i = 0; i < count; ++i) fn(i, 0);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::mutex error_mutex;
  std::exception_ptr first_error;
  std::size_t first_error_index = count;
  auto work = [&](unsigned worker) {
    for (std::size_t i; (i = next.fetch_add(1)) < count;) {
      try {
        fn(i, worker);
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (i < first_error_index) {
          first_error_index = i;
          first_error = std::current_exception();
        }
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(workers - 1);
  for (std::size_t t = 1; t < workers; ++t) pool.emplace_back(work, static_cast<unsigned>(t));
  work(0);
  for (auto& t : pool) t.join();
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace embed
