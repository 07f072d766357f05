#include "train/corpus/merged_counts.h"

#include <algorithm>
#include <functional>
#include <queue>

#include "core/parallel.h"

namespace embed {

MergedCounts::MergedCounts(std::vector<WordCounter>& parts, unsigned threads) {
  const std::size_t share_count = std::max(1u, threads);
  shares_.resize(share_count);
  // Where each share's words first appeared: part << 32 | id in that part, rising with
  // the share's ids, since parts and their ids are merged in the corpus's order.
  std::vector<std::vector<std::uint64_t>> firsts(share_count);
  parallel_for(share_count, threads, [&](std::size_t s) {
    WordCounter& share = shares_[s];
    for (std::size_t part = 0; part < parts.size(); ++part) {
      const WordCounter& counter = parts[part];
      for (std::uint32_t id = 0; id < counter.size(); ++id) {
        const std::uint32_t hash = counter.hash(id);
        // The hash's top bits pick the share: its low bits pick the slot in the share's table.
        if ((static_cast<std::uint64_t>(hash) * share_count) >> 32 != s) continue;
        const std::size_t known = share.size();
        share.add(counter.word(id), counter.count(id), hash);
        if (share.size() > known) firsts[s].push_back(static_cast<std::uint64_t>(part) << 32 | id);
      }
    }
  });
  parts.clear();
  parts.shrink_to_fit();

  // The shares' words, interleaved by where they first appeared.
  std::size_t total = 0;
  for (const WordCounter& share : shares_) total += share.size();
  order_.reserve(total);
  using Head = std::pair<std::uint64_t, std::uint32_t>;  // a share's next word's first place, the share
  std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
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
