// One worker's byte range of a corpus (corpus_shards.h) read from disk as sentences of
// vocabulary rows: the epochs' view of the corpus. Tokens are split and cut as
// read_corpus counted them, words outside the vocabulary are skipped, and a sentence
// ends at the end of a line (or of a file), after `max_rows` words, or at the range's
// end; lines without a vocabulary word give no sentence. Read in turn from one range
// covering the corpus, the sentences are word2vec's: what gensim's LineSentence and
// word2vec.c's 10,000-word sentences give.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "train/corpus/corpus.h"
#include "train/corpus/corpus_shards.h"
#include "train/corpus/vocabulary.h"
#include "train/corpus/word_counter.h"

namespace embed {

// Word → vocabulary row, probed for every token of every epoch. One 16-byte slot per
// probe holds the word's hash and, for a word of up to 7 bytes (most of them), the word
// itself, so that a hit touches one cache line; WordCounter's layout (slot, hash, offset,
// bytes: four arrays) made lookups half the cost of reading the corpus.
class RowLookup {
 public:
  // Holds views of `vocab`'s words: the vocabulary must outlive it.
  explicit RowLookup(const Vocabulary& vocab);

  std::optional<std::uint32_t> row(std::string_view word) const {
    const std::uint32_t hash = token_hash(word);
    const std::uint64_t key = key_of(word);
    for (std::size_t s = hash & mask_;; s = (s + 1) & mask_) {
      const Slot& slot = slots_[s];
      if (slot.row_plus_one == 0) return std::nullopt;
      if (slot.hash == hash && slot.key == key && (word.size() < 8 || words_[slot.row_plus_one - 1] == word)) {
        return slot.row_plus_one - 1;
      }
    }
  }

 private:
  struct Slot {
    std::uint64_t key = 0;
    std::uint32_t hash = 0;
    std::uint32_t row_plus_one = 0;  // 0: empty
  };
  // A word of up to 7 bytes: its bytes, and its length in the top byte (the whole word).
  // A longer one: its first 7 bytes and 0x80 in the top byte (then compared in full).
  static std::uint64_t key_of(std::string_view word) {
    std::uint64_t key = 0;
    const std::size_t n = word.size() < 8 ? word.size() : 7;
    std::memcpy(&key, word.data(), n);
    return key | (word.size() < 8 ? std::uint64_t{word.size()} : std::uint64_t{0x80}) << 56;
  }

  std::vector<std::string_view> words_;
  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
};

class CorpusReader {
 public:
  // Reads [range.begin, range.end) of `files` laid end to end. The files, the lookup
  // and the vocabulary must outlive the reader.
  CorpusReader(const std::vector<CorpusFile>& files, ByteRange range, const RowLookup& lookup, std::size_t max_token_bytes);
  ~CorpusReader();
  CorpusReader(const CorpusReader&) = delete;
  CorpusReader& operator=(const CorpusReader&) = delete;

  // Replaces `rows` with the next sentence's rows; false (and no rows) at the range's end.
  // Throws embed::Error naming the file and byte when a file cannot be read.
  bool next_sentence(std::size_t max_rows, std::vector<std::uint32_t>& rows);
  // Whether the last sentence began a line (rather than going on with one that was cut
  // after max_rows words): what GloVe's windows, which span a whole line, need to know.
  bool sentence_starts_line() const { return starts_line_; }
  // The global byte where reading goes on: a reader made at this position reads the
  // sentences this one would have read next.
  std::uint64_t position() const { return file_start_ + buffer_start_ + offset_; }

 private:
  // Loads more of the current file's part of the range; false when none is left.
  bool fill();
  // Moves on to the next file; false when the range has no more.
  bool next_file();

  const std::vector<CorpusFile>& files_;
  ByteRange range_;
  const RowLookup& lookup_;
  std::size_t max_token_bytes_;
  std::size_t file_ = 0;          // the file being read
  std::uint64_t file_start_ = 0;  // its global position
  std::uint64_t part_end_ = 0;    // where reading it stops, in the file
  int fd_ = -1;
  std::string buffer_;  // bytes [buffer_start_, buffer_start_ + size) of the file
  std::uint64_t buffer_start_ = 0;
  std::size_t offset_ = 0;  // the first unconsumed byte of buffer_
  std::string long_token_;  // the first max_token_bytes_ + 1 bytes of a token longer than that
  bool line_start_ = true;  // no word of the current line has been read yet
  bool starts_line_ = true;
};

}  // namespace embed
