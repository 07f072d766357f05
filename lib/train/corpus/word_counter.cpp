#include "train/corpus/word_counter.h"

#include <cstring>

#include "core/error.h"

namespace embed {

// Eight bytes at a time, multiply-and-fold (the epochs hash every token they read, so
// byte-at-a-time FNV-1a showed in their profile).
std::uint32_t token_hash(std::string_view word) {
  constexpr std::uint64_t kMultiplier = 0xff51afd7ed558ccdull;
  std::uint64_t h = 0x9e3779b97f4a7c15ull ^ word.size();
  const char* bytes = word.data();
  std::size_t left = word.size();
  for (; left >= 8; left -= 8, bytes += 8) {
    std::uint64_t v;
    std::memcpy(&v, bytes, 8);
    h = (h ^ v) * kMultiplier;
    h ^= h >> 32;
  }
  if (left > 0) {
    std::uint64_t v = 0;
    std::memcpy(&v, bytes, left);
    h = (h ^ v) * kMultiplier;
    h ^= h >> 32;
  }
  h = (h ^ (h >> 29)) * 0xc4ceb9fe1a85ec53ull;
  return static_cast<std::uint32_t>(h ^ (h >> 32));
}

namespace {

constexpr std::size_t kInitialSlots = 1u << 16;

}  // namespace

WordCounter::WordCounter() : slots_(kInitialSlots, 0), mask_(kInitialSlots - 1) {}

std::size_t WordCounter::slot_of(std::string_view word, std::uint32_t hash) const {
  std::size_t slot = hash & mask_;
  for (;;) {
    const std::uint32_t entry = slots_[slot];
    if (entry == 0) return slot;
    const std::uint32_t id = entry - 1;
    if (hashes_[id] == hash && this->word(id) == word) return slot;
    slot = (slot + 1) & mask_;
  }
}

std::uint32_t WordCounter::add(std::string_view word, std::uint64_t times, std::uint32_t hash) {
  const std::size_t slot = slot_of(word, hash);
  if (slots_[slot] != 0) {
    const std::uint32_t id = slots_[slot] - 1;
    counts_[id] += times;
    return id;
  }
  if (counts_.size() >= 0xFFFFFFF0u) fail("the corpus has more than 4 billion distinct words");
  const auto id = static_cast<std::uint32_t>(counts_.size());
  arena_.append(word);
  offsets_.push_back(arena_.size());
  counts_.push_back(times);
  hashes_.push_back(hash);
  slots_[slot] = id + 1;
  if (counts_.size() * 2 > slots_.size()) grow();  // keep the load under one half
  return id;
}

void WordCounter::add_all(std::span<const std::string_view> words) {
  ahead_.resize(words.size());
  for (std::size_t i = 0; i < words.size(); ++i) ahead_[i] = token_hash(words[i]);
  // Three stages, each a few words behind the last: the word's home slot; the entries of
  // the id found there (usually the word's); the bytes those entries point at.
  constexpr std::size_t kSlotAhead = 12, kEntryAhead = 8, kBytesAhead = 4;
  const std::size_t n = words.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (i + kSlotAhead < n) __builtin_prefetch(&slots_[ahead_[i + kSlotAhead] & mask_]);
    if (i + kEntryAhead < n) {
      if (const std::uint32_t entry = slots_[ahead_[i + kEntryAhead] & mask_]; entry != 0) {
        __builtin_prefetch(&hashes_[entry - 1]);
        __builtin_prefetch(&offsets_[entry - 1]);
        __builtin_prefetch(&counts_[entry - 1], 1);
      }
    }
    if (i + kBytesAhead < n) {
      if (const std::uint32_t entry = slots_[ahead_[i + kBytesAhead] & mask_]; entry != 0) {
        __builtin_prefetch(arena_.data() + offsets_[entry - 1]);
      }
    }
    add(words[i], 1, ahead_[i]);
  }
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
