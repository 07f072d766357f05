// fastText's subwords for skip-gram and CBOW (--subwords): a word's input vector is the
// average of its own row and the rows of its character n-grams, the n-grams hashed into
// `buckets` rows that follow the vocabulary's in the input table (fastText's input
// matrix: nwords + bucket rows; text/fasttext_subwords.h extracts and hashes them as
// fastText does). SubwordRows lists each vocabulary word's input rows in fastText's order
// (Dictionary::initNgrams): the word's own, then its n-grams'.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "text/fasttext_subwords.h"
#include "train/corpus/vocabulary.h"

namespace embed {

struct TrainSettings;

class SubwordRows {
 public:
  SubwordRows() = default;
  // Every word of `vocab`, with the n-grams `settings` give (none when settings.maxn is 0).
  SubwordRows(const Vocabulary& vocab, const SubwordSettings& settings);

  std::span<const std::uint32_t> of(std::uint32_t word) const {
    return {rows_.data() + offsets_[word], offsets_[word + 1] - offsets_[word]};
  }
  // How far word's average moves when each row it lists takes the same step g: g × gain.
  // 1 unless a row is listed twice (two n-grams in one bucket, or a repeated n-gram):
  // each listing adds the step, and the average counts each listing, so gain is
  // Σ (listings of a row)² / listings.
  float gain(std::uint32_t word) const { return gains_[word]; }
  std::size_t words() const { return gains_.size(); }
  std::size_t listed() const { return rows_.size(); }

 private:
  std::vector<std::uint32_t> offsets_{0};  // words + 1
  std::vector<std::uint32_t> rows_;
  std::vector<float> gains_;
};

// The n-gram settings of a run: {} (no n-grams) without --subwords.
SubwordSettings subword_settings(const TrainSettings& settings);

}  // namespace embed
