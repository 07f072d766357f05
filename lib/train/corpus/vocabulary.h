// The training vocabulary: the words kept after --min-count and --max-vocab, most
// frequent first (row 0 is the most frequent word, as word2vec and gensim order it),
// with how often each occurred in the corpus.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace embed {

struct Vocabulary {
  std::vector<std::string> words;
  std::vector<std::int64_t> counts;  // parallel to words, non-increasing

  std::size_t size() const { return words.size(); }
  // Occurrences of all vocabulary words: what word2vec calls train_words.
  std::uint64_t total_count() const;
};

// The words laid out as .emb and checkpoints store them: all bytes concatenated, and
// offsets where word i is bytes[offsets[i], offsets[i+1]).
struct PackedWords {
  std::string bytes;
  std::vector<std::int64_t> offsets{0};
};
PackedWords pack_words(std::span<const std::string> words);
inline PackedWords pack_words(const Vocabulary& vocab) { return pack_words(vocab.words); }

}  // namespace embed
