// Correlation with human similarity judgements on WordSim-353-style files: lines
// "word<TAB>word<TAB>score", "#" comments. Computed as gensim's
// KeyedVectors.evaluate_word_pairs (4.x): words upper-cased, only the first
// N words known (`vocab`), pairs with an unknown word skipped and counted as OOV,
// lines without exactly three tab-separated fields or with a non-numeric score skipped.
#pragma once

#include <cstdint>
#include <string>

#include "eval/case_insensitive_vocab.h"
#include "search/vector_space.h"

namespace embed {

struct WordPairsResult {
  double spearman = 0;
  double pearson = 0;
  std::uint64_t pairs = 0;          // well-formed pairs
  std::uint64_t oov_pairs = 0;      // of which had an unknown word
  std::uint64_t usable_pairs() const { return pairs - oov_pairs; }
  std::uint64_t skipped_lines = 0;  // malformed lines
  double oov_percent() const { return pairs ? 100.0 * static_cast<double>(oov_pairs) / static_cast<double>(pairs) : 0; }
};

// Throws embed::Error when fewer than two pairs have both words known (nothing to
// correlate), or when no line of the file is a word pair (another format), naming its
// first line.
WordPairsResult evaluate_word_pairs(const VectorSpace& space, const CaseInsensitiveVocab& vocab, const std::string& path);

}  // namespace embed
