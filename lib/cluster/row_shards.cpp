#include "cluster/row_shards.h"

#include <algorithm>
#include <numeric>
#include <tuple>
#include <utility>

#include "core/error.h"

namespace embed {
namespace {

// The multiplier's start: the golden ratio's 64-bit fraction, odd, which spreads
// consecutive rows across the range (Fibonacci hashing).
constexpr std::uint64_t kGoldenMultiplier = 0x9E3779B97F4A7C15ull;
// The offset: another fixed odd constant, so that row 0 is not always at p = 0.
constexpr std::uint64_t kOffsetSeed = 0xD1B54A32D192ED03ull;

// Rows are below 2^32 (a vocabulary row is a U32 in the word index), so a product of two
// residues fits in 64 bits.
std::uint64_t mul_mod(std::uint64_t a, std::uint64_t b, std::uint64_t m) { return a * b % m; }

// a⁻¹ mod m for a coprime with m (extended Euclid; every value below 2^33 in magnitude).
std::uint64_t inverse_mod(std::uint64_t a, std::uint64_t m) {
  std::int64_t t = 0, new_t = 1;
  auto r = static_cast<std::int64_t>(m), new_r = static_cast<std::int64_t>(a);
  while (new_r != 0) {
    const std::int64_t q = r / new_r;
    std::tie(t, new_t) = std::pair{new_t, t - q * new_t};
    std::tie(r, new_r) = std::pair{new_r, r - q * new_r};
  }
  EMBED_ASSERT(r == 1);
  if (t < 0) t += static_cast<std::int64_t>(m);
  return static_cast<std::uint64_t>(t);
}

}  // namespace

RowShards::RowShards(std::uint64_t rows, unsigned ranks, unsigned rank) : rows_(rows), ranks_(ranks), rank_(rank) {
  EMBED_ASSERT(rows >= 1 && rows < (1ull << 32) && ranks >= 1 && rank < ranks);
  // The first multiplier from the golden constant on that is coprime with rows.
  multiplier_ = kGoldenMultiplier % rows_;
  while (std::gcd(multiplier_, rows_) != 1) multiplier_ = (multiplier_ + 1) % rows_;
  offset_ = kOffsetSeed % rows_;
  inverse_ = inverse_mod(multiplier_, rows_);
}

std::uint64_t RowShards::permuted(std::uint64_t row) const {
  EMBED_ASSERT(row < rows_);
  return (mul_mod(multiplier_, row, rows_) + offset_) % rows_;
}

std::uint64_t RowShards::row_at(unsigned r, std::uint64_t slot) const {
  const std::uint64_t p = slot * ranks_ + r;
  EMBED_ASSERT(r < ranks_ && p < rows_);
  return mul_mod(inverse_, (p + rows_ - offset_) % rows_, rows_);
}

RowShards::Remote RowShards::remote_rows(std::span<const std::uint64_t> touched) const {
  Remote remote;
  remote.counts.assign(ranks_, 0);
  for (std::uint64_t row : touched) {
    if (!owned(row)) remote.rows.push_back(row);
  }
  std::sort(remote.rows.begin(), remote.rows.end(), [this](std::uint64_t a, std::uint64_t b) {
    const unsigned oa = owner(a), ob = owner(b);
    return oa != ob ? oa < ob : a < b;
  });
  remote.rows.erase(std::unique(remote.rows.begin(), remote.rows.end()), remote.rows.end());
  for (std::uint64_t row : remote.rows) ++remote.counts[owner(row)];
  return remote;
}

}  // namespace embed
