#include "train/word_counter.h"

#include "core/error.h"

namespace embed {
namespace {

std::uint32_t hash_word(std::string_view word) {
  std::uint32_t h = 2166136261u;  // FNV-1a
  for (unsigned char c : word) h = (h ^ c) * 16777619u;
  return h;
}

constexpr std::size_t kInitialSlots = 1u << 16;

}  // namespace

WordCounter::WordCounter() : slots_(kInitialSlots, 0), mask_(kInitialSlots - 1) {}

std::uint32_t WordCounter::add(std::string_view word) {
  const std::uint32_t hash = hash_word(word);
  std::size_t slot = hash & mask_;
  for (;;) {
    const std::uint32_t entry = slots_[slot];
    if (entry == 0) break;
    const std::uint32_t id = entry - 1;
    if (hashes_[id] == hash && this->word(id) == word) {
      ++counts_[id];
      return id;
    }
    slot = (slot + 1) & mask_;
  }
  if (counts_.size() >= 0xFFFFFFF0u) fail("the corpus has more than 4 billion distinct words");
  const auto id = static_cast<std::uint32_t>(counts_.size());
  arena_.append(word);
  offsets_.push_back(arena_.size());
  counts_.push_back(1);
  hashes_.push_back(hash);
  slots_[slot] = id + 1;
  if (counts_.size() * 2 > slots_.size()) grow();  // keep the load under one half
  return id;
}

void WordCounter::grow() {
  slots_.assign(slots_.size() * 2, 0);
  mask_ = slots_.size() - 1;
  for (std::uint32_t id = 0; id < counts_.size(); ++id) {
    std::size_t slot = hashes_[id] & mask_;
    while (slots_[slot] != 0) slot = (slot + 1) & mask_;
    slots_[slot] = id + 1;
  }
}

}  // namespace embed
