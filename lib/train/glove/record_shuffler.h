// Puts GloVe's records, which the merge of the counts hands over sorted by (row,
// column), in a uniformly random order in a records file (record_file.h), within a
// memory budget.
//
// When they fit the budget they are collected, shuffled in memory (shuffle_records with
// epoch 0) and kept there for training as well as written. Otherwise each record goes
// to one of K bucket files drawn at random, and each bucket, small enough for the
// budget, is shuffled in memory and appended to the file: given the bucket sizes, every
// order is equally likely, in two passes over the disk, as Stanford GloVe's `shuffle`
// does it in bounded memory. The bucket files are anonymous (unlinked at once) in the
// records file's directory, so nothing is left behind by a killed process.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "train/engine/random.h"
#include "train/glove/glove_layout.h"
#include "train/glove/record_file.h"

namespace embed {

class RecordShuffler {
 public:
  // Writes `path` for a vocabulary of `rows` words, shuffling from `seed`, holding at
  // most `memory_bytes` of records (and bucket buffers) at once.
  RecordShuffler(std::string path, std::uint64_t rows, std::uint64_t seed, std::uint64_t memory_bytes);
  ~RecordShuffler();
  RecordShuffler(const RecordShuffler&) = delete;
  RecordShuffler& operator=(const RecordShuffler&) = delete;

  // At most how many records will come: sizes the buckets if they are needed.
  void expect(std::uint64_t at_most);
  void add(const GloveRecord& record);

  struct Result {
    RecordFileInfo file;
    bool in_memory = false;     // `kept` holds the records in the file's order
    std::uint64_t buckets = 0;  // 0 when shuffled in memory
  };
  // Writes the file; fills `kept` when the records fit the budget.
  Result finish(std::vector<GloveRecord>& kept);

 private:
  struct Bucket;
  void scatter_collected();
  void flush(Bucket& bucket);

  std::string path_;
  std::uint64_t rows_, seed_, memory_bytes_;
  std::uint64_t at_most_ = 0;
  std::vector<GloveRecord> collected_;  // while they fit in memory
  std::vector<std::unique_ptr<Bucket>> buckets_;
  std::size_t buffer_records_ = 0;
  Random pick_;
};

}  // namespace embed
