// Sorting on several threads: equal parts of the range sorted at once, then merged in
// pairs, level by level, each level's merges at once. For a strict total order (no two
// elements equal under `less`) the result is std::sort's. The vocabulary's order of tens
// of millions of words (train/corpus/corpus.cpp) is what needs it: one thread sorting
// them would be most of a 16-thread counting pass.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "core/parallel.h"

namespace embed {

template <typename T, typename Less>
void parallel_sort(std::vector<T>& values, unsigned threads, Less less) {
  constexpr std::size_t kSmallestPart = 1u << 16;  // below this a thread costs more than it sorts
  const std::size_t n = values.size();
  const std::size_t parts = std::min<std::size_t>(std::max(1u, threads), std::max<std::size_t>(1, n / kSmallestPart));
  if (parts == 1) {
    std::sort(values.begin(), values.end(), less);
    return;
  }
  std::vector<std::size_t> bounds(parts + 1);
  for (std::size_t k = 0; k <= parts; ++k) bounds[k] = n * k / parts;
  const auto at = [&](std::size_t part) { return values.begin() + static_cast<std::ptrdiff_t>(bounds[part]); };
  parallel_for(parts, threads, [&](std::size_t k) { std::sort(at(k), at(k + 1), less); });
  for (std::size_t width = 1; width < parts; width *= 2) {
    const std::size_t merges = (parts + 2 * width - 1) / (2 * width);
    parallel_for(merges, threads, [&](std::size_t m) {
      const std::size_t first = 2 * width * m, middle = std::min(parts, first + width), last = std::min(parts, first + 2 * width);
      if (middle < last) std::inplace_merge(at(first), at(middle), at(last), less);
    });
  }
}

}  // namespace embed
