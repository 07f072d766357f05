// One worker's byte range of a corpus file (corpus_shards.h) read as vocabulary rows, a
// batch at a time: the epochs' view of a corpus streamed from disk instead of kept in
// memory (issue 17; not yet used by the trainer). Tokens are split and cut as
// read_corpus splits and cuts them, words outside the vocabulary are skipped, and lines
// end where read_corpus ends them, so the ranges read in turn give read_corpus's ids.
#pragma once

#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "train/corpus_shards.h"
#include "train/vocabulary.h"

namespace embed {

// Word → vocabulary row. Holds views of `vocab`'s words: the vocabulary must outlive it.
class RowLookup {
 public:
  explicit RowLookup(const Vocabulary& vocab);
  std::optional<std::uint32_t> row(std::string_view word) const;

 private:
  std::unordered_map<std::string_view, std::uint32_t> rows_;
};

class CorpusRangeReader {
 public:
  // Throws embed::Error when `path` cannot be opened. `ends_file`: the range ends where
  // the file does, which ends a line, as the end of each corpus file does.
  CorpusRangeReader(const std::string& path, ByteRange range, bool ends_file, const RowLookup& lookup,
                    std::size_t max_token_bytes);

  // Replaces `rows` with the rows of the next tokens, at most `max_rows` of them, and
  // `line_ends` with the positions in `rows` where a line ended (a position of 0 means
  // before the first row; consecutive ends at one position are reported once).
  void next(std::size_t max_rows, std::vector<std::uint32_t>& rows, std::vector<std::uint64_t>& line_ends);
  // Nothing is left to read.
  bool done() const { return exhausted() && offset_ == buffer_.size() && end_reported_; }
  // Tokens read so far, in the vocabulary or not, and the byte where reading goes on.
  std::uint64_t tokens_read() const { return tokens_; }
  std::uint64_t position() const { return buffer_start_ + offset_; }

 private:
  bool exhausted() const { return buffer_start_ + buffer_.size() == range_.end; }
  // Drops the consumed bytes and appends up to a block more of the range.
  void fill();
  void end_line(std::size_t rows_so_far, std::vector<std::uint64_t>& line_ends);

  std::string path_;
  std::ifstream in_;
  ByteRange range_;
  bool ends_file_;
  const RowLookup& lookup_;
  std::size_t max_token_bytes_;
  std::string buffer_;            // bytes [buffer_start_, buffer_start_ + size) of the file
  std::uint64_t buffer_start_ = 0;
  std::size_t offset_ = 0;        // the first unconsumed byte of buffer_
  std::uint64_t tokens_ = 0;
  std::uint64_t rows_read_ = 0;   // rows returned before the current batch
  std::optional<std::uint64_t> last_end_;  // the last line end reported, in rows read overall
  bool end_reported_ = false;
};

}  // namespace embed
