// The word -> row hash table stored in .emb files as `vocab.index`.
//
// Open addressing with linear probing over `capacity` U32 slots, each holding a
// row number or kEmptySlot. A word's home slot is (fnv1a64(word) * capacity) >> 64
// (the high half of a 128-bit product), and probing steps +1, wrapping to 0.
// The capacity keeps the load at most one half; it need not be a power of two, which
// lets the writer pick its parity for alignment. Everything here is plain enough to re-implement
// in ten lines of Python (docs/FORMAT.md does).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace embed {

inline constexpr std::uint32_t kEmptySlot = 0xFFFFFFFFu;
inline constexpr std::uint64_t kMaxIndexedRows = kEmptySlot;  // rows are stored as U32

// 64-bit FNV-1a over the word's UTF-8 bytes.
inline std::uint64_t word_hash(std::string_view word) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : word) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

__extension__ typedef unsigned __int128 uint128;  // GCC/Clang; __extension__ keeps -Wpedantic quiet

inline std::uint64_t home_slot(std::uint64_t hash, std::uint64_t capacity) {
  return static_cast<std::uint64_t>((static_cast<uint128>(hash) * capacity) >> 64);
}

// The fewest slots a writer may use: a load of at most one half keeps probes short.
// (The .emb writer adds one slot when that keeps the tensors after it aligned.)
inline std::uint64_t min_index_capacity(std::uint64_t rows) { return 2 * rows + 1; }

// Looks `word` up; `word_at(row)` returns the stored word of a row. Slots holding a
// row >= rows (a corrupt file) are treated as misses, so lookups never read out of bounds.
template <typename WordAt>
std::optional<std::uint64_t> find_in_index(std::span<const std::uint32_t> slots, std::uint64_t rows,
                                           const WordAt& word_at, std::string_view word) {
  const std::uint64_t capacity = slots.size();
  if (capacity == 0) return std::nullopt;
  std::uint64_t slot = home_slot(word_hash(word), capacity);
  for (std::uint64_t probes = 0; probes < capacity; ++probes) {
    const std::uint32_t row = slots[slot];
    if (row == kEmptySlot) return std::nullopt;
    if (row < rows && word_at(row) == word) return row;
    if (++slot == capacity) slot = 0;
  }
  return std::nullopt;
}

// Builds `capacity` (> rows) slots for rows [0, rows). When a word repeats, calls
// on_duplicate(first_row, repeated_row), which is expected to throw.
template <typename WordAt, typename OnDuplicate>
std::vector<std::uint32_t> build_index(std::uint64_t rows, std::uint64_t capacity, const WordAt& word_at,
                                       const OnDuplicate& on_duplicate) {
  std::vector<std::uint32_t> slots(capacity, kEmptySlot);
  for (std::uint64_t row = 0; row < rows; ++row) {
    const std::string_view word = word_at(row);
    std::uint64_t slot = home_slot(word_hash(word), capacity);
    while (slots[slot] != kEmptySlot) {
      if (word_at(slots[slot]) == word) on_duplicate(std::uint64_t{slots[slot]}, row);
      if (++slot == capacity) slot = 0;
    }
    slots[slot] = static_cast<std::uint32_t>(row);
  }
  return slots;
}

}  // namespace embed
