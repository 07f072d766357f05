// GloVe's shuffled co-occurrence records on disk: what training streams when the
// records do not fit --memory, and what a checkpoint names instead of holding them.
// RecordShuffler writes it beside the run's output ("OUT.emb.glove-records"); it is
// removed when the run completes, and kept while a checkpoint names it.
//
// Layout: a 64-byte header, then the records (GloveRecord, 16 bytes, little-endian) in
// epoch 0's order (record_order.h):
//   "EMBGLREC" | u32 version (1) | u32 bytes per record (16) | u64 records | u64 rows | zeros
// `rows` is the vocabulary size: every record's row and column is below it.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "train/glove/glove_layout.h"

namespace embed {

inline constexpr std::size_t kRecordFileHeaderBytes = 64;

// A records file as it was written: a resumed run checks that it is still the same.
struct RecordFileInfo {
  std::string path;
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
  std::uint64_t records = 0;
};

// Writes a records file: the header, then records appended in order.
class RecordFileWriter {
 public:
  RecordFileWriter(std::string path, std::uint64_t rows);
  ~RecordFileWriter();
  RecordFileWriter(const RecordFileWriter&) = delete;
  RecordFileWriter& operator=(const RecordFileWriter&) = delete;
  void append(std::span<const GloveRecord> records);
  // Completes the header and closes the file.
  RecordFileInfo finish();

 private:
  std::string path_;
  std::uint64_t rows_;
  int fd_ = -1;
  std::uint64_t records_ = 0;
};

// Reads a records file from any record on, from several threads at once.
class RecordFileReader {
 public:
  // Opens `info.path` and checks that it is the file `info` describes (size,
  // modification time, records) and that its header is intact for `rows` words. Throws
  // embed::Error naming the file.
  RecordFileReader(const RecordFileInfo& info, std::uint64_t rows);
  ~RecordFileReader();
  RecordFileReader(const RecordFileReader&) = delete;
  RecordFileReader& operator=(const RecordFileReader&) = delete;

  std::uint64_t records() const { return records_; }
  // Reads out.size() records from record `first` on, checking that each names words
  // of the vocabulary (a damaged file must not write outside the tables).
  void read(std::uint64_t first, std::span<GloveRecord> out) const;

 private:
  std::string path_;
  std::uint64_t rows_;
  std::uint64_t records_;
  int fd_ = -1;
};

}  // namespace embed
