// The two random choices word2vec makes per word, as precomputed tables:
// - NegativeSampler draws negatives from the unigram distribution raised to 3/4, in
//   constant time from Vose's alias table (word2vec's 1e8-entry table would take 400 MB
//   and only approximates the distribution).
// - keep_thresholds gives each word its probability of surviving subsampling,
//   (sqrt(f / t) + 1) * t / f with f = count / total and t = --sample, as 32-bit
//   thresholds to compare with a random word.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "train/engine/random.h"

namespace embed {

class NegativeSampler {
 public:
  NegativeSampler(std::span<const std::int64_t> counts, double power);
  std::uint32_t draw(Random& random) const {
    const std::uint64_t r = random.next();
    const auto bucket = static_cast<std::uint32_t>(((r >> 32) * size_) >> 32);
    return static_cast<std::uint32_t>(r) < threshold_[bucket] ? bucket : alias_[bucket];
  }
  // The probability of drawing `row` (for tests).
  double probability(std::uint32_t row) const;

 private:
  std::uint64_t size_;
  std::vector<std::uint32_t> threshold_;  // keep the bucket's own row when the low word is below this
  std::vector<std::uint32_t> alias_;
};

// Per vocabulary row: keep the word when Random::next32() < threshold. 0xFFFFFFFF
// (and sample == 0) means always keep.
std::vector<std::uint32_t> keep_thresholds(std::span<const std::int64_t> counts, double sample);
// The probability that subsampling keeps a word counted `count` times of `total`, at most 1
// (1 when sample is 0): what keep_thresholds draws against.
double keep_probability(double count, double total, double sample);
inline constexpr std::uint32_t kAlwaysKeep = 0xFFFFFFFFu;

}  // namespace embed
