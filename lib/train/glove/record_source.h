// Where GloVe's trainer takes each epoch's records from, in the epoch's order
// (record_order.h): a vector in memory reordered in place between epochs, or the
// records file streamed from disk, each worker reading its blocks into its own buffer.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "train/glove/glove_layout.h"
#include "train/glove/record_file.h"
#include "train/glove/record_order.h"

namespace embed {

class RecordSource {
 public:
  virtual ~RecordSource() = default;
  virtual std::uint64_t size() const = 0;
  // Puts the records in the order of epoch `epoch`. Called before the first read and
  // between epochs, while no worker reads.
  virtual void order_for(unsigned epoch) = 0;
  // Records [first, end) of the epoch's order, or a first part of them (never empty):
  // valid until `worker` reads again. Workers read concurrently.
  virtual std::span<const GloveRecord> read(unsigned worker, std::uint64_t first, std::uint64_t end) = 0;
};

// Records in `records`, which must hold epoch 0's order or be empty (then they are
// read from `file`). A full shuffle starts again from epoch 0's order, read back from
// `file`, or without one (tests) from a copy made here.
std::unique_ptr<RecordSource> memory_records(std::vector<GloveRecord>& records, RecordShuffle shuffle, std::uint64_t seed,
                                             const RecordFileReader* file);

// Records streamed from `file` in the block order of each epoch, at most `max_read`
// at once per worker (the buffers, workers x max_read records, are the memory it takes).
std::unique_ptr<RecordSource> streamed_records(const RecordFileReader& file, std::uint64_t seed, unsigned workers,
                                               std::size_t max_read);

}  // namespace embed
