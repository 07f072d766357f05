#include "train/gpu/hot_subword_rows.h"

#include <algorithm>
#include <numeric>

#include "core/error.h"

namespace embed {

std::vector<std::uint32_t> hot_bucket_rows(const SubwordRows& subwords, std::span<const std::int64_t> counts,
                                           std::size_t hot_rows) {
  const std::size_t words = subwords.words();
  EMBED_ASSERT(counts.size() == words);
  hot_rows = std::min(hot_rows, words);
  if (hot_rows == 0) return {};
  // Each listed row's touches; a row listed twice by a word is touched twice per occurrence.
  std::uint32_t last_row = 0;
  for (std::uint32_t w = 0; w < words; ++w) {
    for (std::uint32_t row : subwords.of(w)) last_row = std::max(last_row, row);
  }
  std::vector<std::uint64_t> touches(std::size_t{last_row} + 1, 0);
  for (std::uint32_t w = 0; w < words; ++w) {
    for (std::uint32_t row : subwords.of(w)) touches[row] += static_cast<std::uint64_t>(std::max<std::int64_t>(counts[w], 0));
  }
  std::vector<std::uint32_t> rows(touches.size());
  std::iota(rows.begin(), rows.end(), 0u);
  auto more_touched = [&](std::uint32_t a, std::uint32_t b) {
    return touches[a] != touches[b] ? touches[a] > touches[b] : a < b;
  };
  std::nth_element(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(hot_rows - 1), rows.end(), more_touched);
  std::vector<std::uint32_t> buckets;
  for (std::size_t k = 0; k < hot_rows; ++k) {
    if (rows[k] >= words && touches[rows[k]] > 0) buckets.push_back(rows[k]);
  }
  std::sort(buckets.begin(), buckets.end());
  return buckets;
}

}  // namespace embed
