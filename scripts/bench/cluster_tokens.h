// The planted structure that bench-gen-clusters writes and bench-cluster-quality scores,
// defined once so that the two cannot drift apart: token id i (0 <= i < V) is spelled
// "w" followed by i in base 36 (lowercase digits 0-9a-z: w0, w1z, wabc), and its cluster
// is i / S, so clusters are contiguous blocks of S ids (the last one possibly smaller).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace bench {

// For both tools' --help.
inline constexpr const char* kClusterMapping =
    "Tokens: id i (0 <= i < V) is written 'w' + i in base 36 (digits 0-9a-z, no leading zeros: w0, w1z, wabc).\n"
    "Clusters: the cluster of id i is i / S (integer division): contiguous blocks of S ids, the last one\n"
    "possibly smaller.";

inline std::uint64_t cluster_of(std::uint64_t id, std::uint64_t cluster_size) { return id / cluster_size; }

// The longest spelling: "w" and 13 digits hold any 64-bit id.
inline constexpr std::size_t kMaxTokenChars = 14;

// Writes the spelling of `id` at `out` (at least kMaxTokenChars bytes); returns its length.
inline std::size_t spell_token(std::uint64_t id, char* out) {
  char digits[13];
  std::size_t n = 0;
  do {
    const unsigned d = static_cast<unsigned>(id % 36);
    digits[n++] = static_cast<char>(d < 10 ? '0' + d : 'a' + (d - 10));
    id /= 36;
  } while (id != 0);
  out[0] = 'w';
  for (std::size_t i = 0; i < n; ++i) out[1 + i] = digits[n - 1 - i];
  return n + 1;
}

// The id `word` spells, or nullopt when it is not exactly a spelling spell_token makes
// (another prefix, uppercase, a leading zero, more than 12 digits).
inline std::optional<std::uint64_t> parse_token(std::string_view word) {
  // 12 base-36 digits stay below 2^63: no overflow check needed, and ids are 32-bit anyway.
  if (word.size() < 2 || word.size() > 13 || word[0] != 'w') return std::nullopt;
  if (word[1] == '0' && word.size() > 2) return std::nullopt;
  std::uint64_t id = 0;
  for (std::size_t i = 1; i < word.size(); ++i) {
    const char c = word[i];
    unsigned d;
    if (c >= '0' && c <= '9') {
      d = static_cast<unsigned>(c - '0');
    } else if (c >= 'a' && c <= 'z') {
      d = static_cast<unsigned>(c - 'a') + 10;
    } else {
      return std::nullopt;
    }
    id = id * 36 + d;
  }
  return id;
}

}  // namespace bench
