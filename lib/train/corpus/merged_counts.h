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

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "train/corpus/word_counter.h"

namespace embed {

class MergedCounts {
 public:
  // Merges `parts` (the counters of consecutive parts of the corpus, in its order) on
  // `threads` threads, emptying them as it goes.
  MergedCounts(std::vector<WordCounter>& parts, unsigned threads);

  // As WordCounter's: ids 0, 1, 2 ... in order of first appearance in the whole corpus.
  std::size_t size() const { return order_.size(); }
  std::string_view word(std::uint32_t id) const { return shares_[order_[id].first].word(order_[id].second); }
  std::uint64_t count(std::uint32_t id) const { return shares_[order_[id].first].count(order_[id].second); }

 private:
  std::vector<WordCounter> shares_;                             // the words, split by hash
  std::vector<std::pair<std::uint32_t, std::uint32_t>> order_;  // id -> (share, id in it)
};

}  // namespace embed
