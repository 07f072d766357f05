// Counting distinct words while a corpus streams past: an open-addressing hash table
// whose keys live in one growing byte arena, so that a corpus of a billion tokens costs
// one hash probe per token and no allocation per word.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace embed {

// The hash WordCounter and RowLookup file corpus tokens under (in memory only; not
// format/word_index.h's word_hash, which .emb files store).
std::uint32_t token_hash(std::string_view word);

class WordCounter {
 public:
  WordCounter();
  // Counts `times` occurrences of `word` (one token; or a count another counter made) and
  // returns its id: 0, 1, 2 ... in order of first appearance.
  std::uint32_t add(std::string_view word, std::uint64_t times = 1) { return add(word, times, token_hash(word)); }
  // The same, for a word whose token_hash is known (another counter's: hash(id)).
  std::uint32_t add(std::string_view word, std::uint64_t times, std::uint32_t hash);
  // Counts one occurrence of each of `words`, in their order, as add() one at a time
  // would. With millions of distinct words a lookup is a few cache misses in a row (the
  // slot, the word's id entries, its bytes): fetching those of the words a few ahead while
  // this one is counted overlaps them.
  void add_all(std::span<const std::string_view> words);

  std::size_t size() const { return counts_.size(); }
  std::string_view word(std::uint32_t id) const {
    return std::string_view(arena_).substr(offsets_[id], offsets_[id + 1] - offsets_[id]);
  }
  std::uint64_t count(std::uint32_t id) const { return counts_[id]; }
  std::uint32_t hash(std::uint32_t id) const { return hashes_[id]; }  // token_hash(word(id))

 private:
  // The slot that holds `word` (whose hash is `hash`), or the empty slot where it would go.
  std::size_t slot_of(std::string_view word, std::uint32_t hash) const;
  void grow();
  std::string arena_;
  std::vector<std::uint64_t> offsets_{0};  // word id's bytes: arena_[offsets_[id], offsets_[id+1])
  std::vector<std::uint64_t> counts_;
  std::vector<std::uint32_t> hashes_;  // per id, so that growing never rehashes bytes
  std::vector<std::uint32_t> slots_;   // id + 1, or 0 for an empty slot
  std::vector<std::uint32_t> ahead_;   // add_all: the words' hashes
  std::size_t mask_;
};

}  // namespace embed
