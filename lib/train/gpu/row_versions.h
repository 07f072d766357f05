// How many times host placement's write-back has written each row of a host table, so
// that a batch can tell that no other batch wrote one of its rows since it gathered it:
// then the trained copy is the row, and the write-back copies it home whole instead of
// adding its change (row_remap.h), reading one row where the add reads three (the
// table's, the trained copy's, and the copy as gathered). The rows a batch copies are the
// ones that are not hot, the rarer ones, so two batches in flight seldom share one.
//
// The write-back increments a row's count after writing it, holding the row's stripe lock
// (row_locks.h), so writes and increments of one row take turns. A gather reads the count
// before its copy; when the write-back, holding the lock, finds the count unchanged, no
// write of the row has begun since that read (one under way at the read ends with an
// increment after it), so the copy was whole and the row is still what it copied. A count
// wraps after 65,536 writes of one row, far more than the batches in flight at once.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace embed {

class RowVersions {
 public:
  explicit RowVersions(std::size_t rows) : counts_(std::make_unique<std::atomic<std::uint16_t>[]>(rows)) {}

  std::atomic<std::uint16_t>& of(std::uint32_t row) const { return counts_[row]; }

 private:
  std::unique_ptr<std::atomic<std::uint16_t>[]> counts_;  // zero: no row written yet
};

}  // namespace embed
