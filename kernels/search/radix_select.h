// The GPU's top-k selection, as far as it is arithmetic: plain C++ that nvcc compiles for
// the device and the unit tests compile for the host, where a sequential reference built
// from the same pieces is checked against TopK (tests/unit/test_radix_select.cpp).
// No CUDA header is included.
//
// A candidate is one 64-bit key: the score's bits made order-preserving as an unsigned
// integer in the high half, and 0xFFFFFFFF − row in the low half. So a larger key is a
// better hit, exactly as TopK's `better` orders them (higher score, then lower row), and
// keys are unique (rows < 2^32). The k largest keys are found by radix select: MSB-first
// 8-bit digits; each round takes the histogram of the next digit over the keys that share
// the prefix chosen so far, keeps every bin above the one where the k-th largest key falls,
// and either takes that whole bin (when it holds exactly the keys still wanted) and stops,
// or descends into it. Since keys are unique, the eighth round always stops. The
// selection is then every key whose top 8·(round+1) bits are ≥ the final prefix: exactly
// min(k, candidates) keys, unordered.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define EMBED_HOST_DEVICE __host__ __device__
#else
#define EMBED_HOST_DEVICE
#endif

namespace embed::radix {

inline constexpr int kDigitBits = 8;
inline constexpr unsigned kBins = 1u << kDigitBits;
inline constexpr int kRounds = 64 / kDigitBits;

// The float's bits as an unsigned integer that orders as the float does (NaN aside):
// negative values flipped entirely, positive ones with the sign bit set. −0 becomes +0
// first, because `better` treats them as equal (and then orders by row).
EMBED_HOST_DEVICE inline std::uint32_t ordered_bits(float score) {
  if (score == 0.0f) score = 0.0f;
  std::uint32_t bits;
  std::memcpy(&bits, &score, sizeof bits);
  return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
}

EMBED_HOST_DEVICE inline float score_of_bits(std::uint32_t ordered) {
  const std::uint32_t bits = (ordered & 0x80000000u) ? (ordered & 0x7FFFFFFFu) : ~ordered;
  float score;
  std::memcpy(&score, &bits, sizeof score);
  return score;
}

EMBED_HOST_DEVICE inline std::uint64_t make_key(float score, std::uint32_t row) {
  return (std::uint64_t{ordered_bits(score)} << 32) | (0xFFFFFFFFu - row);
}
EMBED_HOST_DEVICE inline float key_score(std::uint64_t key) { return score_of_bits(static_cast<std::uint32_t>(key >> 32)); }
EMBED_HOST_DEVICE inline std::uint32_t key_row(std::uint64_t key) {
  return 0xFFFFFFFFu - static_cast<std::uint32_t>(key & 0xFFFFFFFFu);
}

// The shift that brings round r's digit to the bottom (round 0: the top 8 bits).
EMBED_HOST_DEVICE inline int digit_shift(int round) { return 64 - kDigitBits * (round + 1); }
EMBED_HOST_DEVICE inline unsigned digit(std::uint64_t key, int round) {
  return static_cast<unsigned>(key >> digit_shift(round)) & (kBins - 1);
}
// Whether `key` shares the `round` digits chosen before round `round` (`prefix`).
EMBED_HOST_DEVICE inline bool in_prefix(std::uint64_t key, std::uint64_t prefix, int round) {
  return round == 0 || (key >> (64 - kDigitBits * round)) == prefix;
}

struct Choice {
  unsigned bin;         // the digit where the wanted-th largest key falls
  std::uint32_t above;  // keys in the bins above it: all selected
  bool done;            // the bin holds exactly the keys still wanted: select it whole and stop
};

// One round's decision from its histogram (kBins counts over the keys in the prefix),
// when `wanted` (≥ 1, ≤ the histogram's total) keys are still to be selected.
EMBED_HOST_DEVICE inline Choice choose_bin(const std::uint32_t* histogram, std::uint32_t wanted) {
  std::uint32_t above = 0;
  for (int bin = static_cast<int>(kBins) - 1; bin > 0; --bin) {
    const std::uint32_t count = histogram[bin];
    if (above + count >= wanted) return {static_cast<unsigned>(bin), above, above + count == wanted};
    above += count;
  }
  return {0, above, above + histogram[0] == wanted};
}

// After the round that was done (`round`, with `prefix` including its bin), whether `key`
// is selected.
EMBED_HOST_DEVICE inline bool selected(std::uint64_t key, std::uint64_t prefix, int round) {
  return (key >> digit_shift(round)) >= prefix;
}

}  // namespace embed::radix
