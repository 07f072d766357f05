// The word counts of a corpus counted in parts (threads, each its byte range), merged as
// one pass over the whole would have counted them: the same counts, and the same order of
// first appearance, which breaks ties in the vocabulary's order.
//
// Adding each part's words to one counter, part after part, is one hash probe per word
// of every part on one thread: with tens of millions of distinct words the parts share
// few, and that serial merge took longer than the counting itself. Here each thread
// merges the words whose hash falls in its share of the hash space, from every part in
// order, then the shares' words are interleaved by where each first appeared.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "core/parallel.h"
#include "train/corpus/word_counter.h"

namespace embed {

class MergedCounts {
 public:
  // Merges `parts` (the counters of consecutive parts of the corpus, in its order) on
  // `threads` threads, emptying them as it goes.
  MergedCounts(std::vector<WordCounter>& parts, unsigned threads);

  // The same for `parts` parts read by `visit(part, fn)`, which calls fn(id, word,
  // count, hash) for each of the part's words in its order (ids 0, 1, 2 ...; hash as
  // WordCounter::hash): the ranks' counts as they arrive from mpirun's other processes
  // (corpus.cpp), merged without a counter per part. `visit` runs on every thread at once.
  template <typename Visit>
  MergedCounts(std::size_t parts, const Visit& visit, unsigned threads) {
    interleave(merge_shares(parts, visit, threads));
  }

  // As WordCounter's: ids 0, 1, 2 ... in order of first appearance in the whole corpus.
  std::size_t size() const { return order_.size(); }
  std::string_view word(std::uint32_t id) const { return shares_[order_[id].first].word(order_[id].second); }
  std::uint64_t count(std::uint32_t id) const { return shares_[order_[id].first].count(order_[id].second); }

 private:
  // Fills shares_ from the parts (as the constructors take them); returns where each
  // share's words first appeared: part << 32 | id in that part, rising with the share's
  // ids, since parts and their ids are merged in the corpus's order.
  template <typename Visit>
  std::vector<std::vector<std::uint64_t>> merge_shares(std::size_t parts, const Visit& visit, unsigned threads) {
    const std::size_t share_count = std::max(1u, threads);
    shares_.resize(share_count);
    std::vector<std::vector<std::uint64_t>> firsts(share_count);
    parallel_for(share_count, threads, [&](std::size_t s) {
      WordCounter& share = shares_[s];
      for (std::size_t part = 0; part < parts; ++part) {
        visit(part, [&](std::uint32_t id, std::string_view word, std::uint64_t count, std::uint32_t hash) {
          // The hash's top bits pick the share: its low bits pick the slot in the share's table.
          if ((static_cast<std::uint64_t>(hash) * share_count) >> 32 != s) return;
          const std::size_t known = share.size();
          share.add(word, count, hash);
          if (share.size() > known) firsts[s].push_back(static_cast<std::uint64_t>(part) << 32 | id);
        });
      }
    });
    return firsts;
  }
  // order_ from merge_shares' first places.
  void interleave(const std::vector<std::vector<std::uint64_t>>& firsts);

  std::vector<WordCounter> shares_;                             // the words, split by hash
  std::vector<std::pair<std::uint32_t, std::uint32_t>> order_;  // id -> (share, id in it)
};

}  // namespace embed
