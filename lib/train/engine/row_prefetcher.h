// Asking for the rows the CPU trainers will read next, ahead of their use: a window's rows
// are scattered over tables far larger than the caches, and each is a few cache lines.
#pragma once

#include <cstddef>
#include <vector>

namespace embed {

// Always inlined, as row_ops.h's loops, into each caller's instruction-set version: out of
// line, step() was a call per context row (3% of skip-gram's time).
// Asks for the first `floats` of a row (its cache lines) ahead of their use.
__attribute__((always_inline)) inline void prefetch_row(const float* row, std::size_t floats) {
  for (std::size_t i = 0; i < floats; i += 64 / sizeof(float)) __builtin_prefetch(row + i, 1, 1);
}

// The next window's rows, asked for a few at a time while this window trains. Asked for
// all at once at the window's start (some 60 rows of 7 lines in skip-gram), most requests
// found the core's miss buffers full and were dropped: perf showed the first loads of the
// rows stalling as if never asked for (subword skip-gram on text8-head x 8: the output
// rows' dot product 34% of the time, the centre's average 22%).
class RowPrefetcher {
 public:
  // At a window's start: asks for the rows queued during the window before that are not yet
  // asked for (this window's), then empties the queue for the next window's.
  __attribute__((always_inline)) void start_window(std::size_t floats) {
    while (next_ < rows_.size()) prefetch_row(rows_[next_++], floats);
    rows_.clear();
    next_ = 0;
  }
  void add(const float* row) { rows_.push_back(row); }
  // The rows added are to be asked for over `steps` calls of step().
  void spread_over(std::size_t steps) { per_step_ = steps == 0 ? rows_.size() : (rows_.size() + steps - 1) / steps; }
  __attribute__((always_inline)) void step(std::size_t floats) {
    for (std::size_t k = 0; k < per_step_ && next_ < rows_.size(); ++k) prefetch_row(rows_[next_++], floats);
  }

 private:
  std::vector<const float*> rows_;
  std::size_t next_ = 0, per_step_ = 0;
};

}  // namespace embed
