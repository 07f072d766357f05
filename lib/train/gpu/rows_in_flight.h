// Host placement with mapped transfers (host_tables.h): how many batches in flight hold a
// copy of each row of a host table, so that a batch's write-back, a kernel storing into
// the pinned table through the bus, can store a row whole (one write across the bus)
// rather than stage it for the CPU to add its change (two copies staged, read, and the
// table's row read and written).
//
// Storing whole is right when the batch's copy was the row: every batch that held the row
// before had written it back, and every batch that takes it later adds its change after
// this store. So, with the write-backs queued in the order the batches claimed their rows
// (a turn taken with the claims: write_back_turns.h):
// - claim() when the batch is queued: the first holder (no other batch holds the row, so
//   every earlier batch is done: a batch releases its rows once it is) stores whole; any
//   other has its change added by the CPU once it is done, which is after that store;
// - release() once the batch is done (its write-back run, its changes added).
// A later holder's gather may read the row before or after an earlier holder's store:
// either way its change (trained − gathered) added after that store is exact per element.
// The rows a batch copies are the rarer ones, so two batches in flight seldom share one.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace embed {

class RowsInFlight {
 public:
  explicit RowsInFlight(std::size_t rows) : holders_(std::make_unique<std::atomic<std::uint16_t>[]>(rows)) {}

  // Counts a batch's copy of `row`; true when no other batch in flight holds one.
  bool claim(std::uint32_t row) const { return holders_[row].fetch_add(1, std::memory_order_relaxed) == 0; }
  // The batch's write-back of `row` is done.
  void release(std::uint32_t row) const { holders_[row].fetch_sub(1, std::memory_order_relaxed); }
  std::uint16_t holders(std::uint32_t row) const { return holders_[row].load(std::memory_order_relaxed); }
  // Asks for the row's count ahead of a claim: claims are made under a lock that every
  // GPU worker takes in turn, so its misses in a table of millions of rows would be
  // everyone's wait.
  void prefetch(std::uint32_t row) const { __builtin_prefetch(&holders_[row], 1); }

 private:
  // At most a batch per slot holds a row (a batch lists each row once): far fewer than
  // 65,536 slots.
  std::unique_ptr<std::atomic<std::uint16_t>[]> holders_;
};

}  // namespace embed
