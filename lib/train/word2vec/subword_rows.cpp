#include "train/word2vec/subword_rows.h"

#include <algorithm>

#include "train/run/train_settings.h"

namespace embed {

SubwordRows::SubwordRows(const Vocabulary& vocab, const SubwordSettings& settings) {
  const std::size_t words = vocab.size();
  offsets_.reserve(words + 1);
  gains_.reserve(words);
  std::vector<std::uint32_t> sorted;
  for (std::size_t w = 0; w < words; ++w) {
    const std::size_t first = rows_.size();
    rows_.push_back(static_cast<std::uint32_t>(w));
    if (settings.buckets > 0) {
      for (std::uint32_t bucket : subword_buckets(vocab.words[w], settings)) {
        rows_.push_back(static_cast<std::uint32_t>(words + bucket));
      }
    }
    offsets_.push_back(static_cast<std::uint32_t>(rows_.size()));
    // Σ count² / n over the rows listed, counted in a sorted copy.
    sorted.assign(rows_.begin() + static_cast<std::ptrdiff_t>(first), rows_.end());
    std::sort(sorted.begin(), sorted.end());
    double squares = 0;
    for (std::size_t i = 0; i < sorted.size();) {
      std::size_t j = i;
      while (j < sorted.size() && sorted[j] == sorted[i]) ++j;
      squares += static_cast<double>((j - i) * (j - i));
      i = j;
    }
    gains_.push_back(static_cast<float>(squares / static_cast<double>(sorted.size())));
  }
}

SubwordSettings subword_settings(const TrainSettings& s) {
  if (!s.subwords) return {};
  return {s.minn, s.maxn, s.buckets};
}

}  // namespace embed
