// GloVe's training step behind one interface, as Word2vecBackend is word2vec's: the
// trainer walks the epoch's co-occurrence records (shards, learning rate, stop,
// checkpoints) and hands each backend a block of them. The CPU trains the block in
// place; a GPU backend queues it (records streamed to the device, the two tables in
// device memory or, for host-resident tables, the rows the block touches moved).
#pragma once

#include <memory>
#include <span>
#include <string>

#include "train/engine/batch_loss.h"
#include "train/glove/glove_layout.h"

namespace embed {

class RowHome;

class GloveBackend {
 public:
  virtual ~GloveBackend() = default;
  virtual std::string name() const = 0;
  // Trains `records` in order (one step each), for `worker` (below the count the
  // backend was made for); concurrent workers update shared rows without locks. A
  // backend may return before the block is done and add its loss to a later call's
  // `loss` or finish()'s; `records` may be reused once train() returns.
  virtual void train(std::span<const GloveRecord> records, unsigned worker, float learning_rate, BatchLoss& loss) = 0;
  // Waits for `worker`'s blocks in flight and adds their loss.
  virtual void finish(unsigned /*worker*/, BatchLoss& /*loss*/) {}
  // Brings the host tables up to date when the backend keeps its own copy.
  virtual void copy_tables_to_host() {}
  // Where that copy's rows are for a data-parallel run's rounds (rank_averaging.h), or
  // null when the host tables are the tables (the CPU's).
  virtual RowHome* row_home() { return nullptr; }
  // The most records the trainer hands over at once.
  virtual std::size_t max_block_records() const = 0;
};

}  // namespace embed
