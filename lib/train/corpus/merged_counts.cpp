#include "train/corpus/merged_counts.h"

#include <functional>
#include <queue>

namespace embed {

MergedCounts::MergedCounts(std::vector<WordCounter>& parts, unsigned threads) {
  const auto firsts = merge_shares(
      parts.size(),
      [&parts](std::size_t part, const auto& fn) {
        const WordCounter& counter = parts[part];
        for (std::uint32_t id = 0; id < counter.size(); ++id) fn(id, counter.word(id), counter.count(id), counter.hash(id));
      },
      threads);
  parts.clear();  // before the order's memory is taken
  parts.shrink_to_fit();
  interleave(firsts);
}

void MergedCounts::interleave(const std::vector<std::vector<std::uint64_t>>& firsts) {
  // The shares' words, interleaved by where they first appeared.
  std::size_t total = 0;
  for (const WordCounter& share : shares_) total += share.size();
  order_.reserve(total);
  using Head = std::pair<std::uint64_t, std::uint32_t>;  // a share's next word's first place, the share
  std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
  const auto share_count = static_cast<std::uint32_t>(shares_.size());
  std::vector<std::uint32_t> next(share_count, 0);
  for (std::uint32_t s = 0; s < share_count; ++s) {
    if (!firsts[s].empty()) heads.emplace(firsts[s][0], s);
  }
  while (!heads.empty()) {
    const std::uint32_t s = heads.top().second;
    heads.pop();
    order_.emplace_back(s, next[s]);
    if (++next[s] < firsts[s].size()) heads.emplace(firsts[s][next[s]], s);
  }
}

}  // namespace embed
