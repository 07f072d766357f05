// Striped locks over the rows of a host table, for threads that add deltas to shared
// rows (host-resident GPU tables, gather transfers: every worker thread writes its
// batch's changes back as it completes). `row += delta` element by element is a
// read-modify-write, so two threads adding to one row at once can lose an update;
// holding the row's stripe makes each row's adds whole. Rows map to stripes by index,
// so two rows rarely share one and the threads seldom wait.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>

namespace embed {

class RowLocks {
 public:
  std::mutex& of(std::uint32_t row) { return stripes_[row % kStripes].mutex; }

 private:
  static constexpr std::size_t kStripes = 1024;
  struct alignas(64) Stripe {  // a cache line each: no false sharing between stripes
    std::mutex mutex;
  };
  std::array<Stripe, kStripes> stripes_;
};

}  // namespace embed
