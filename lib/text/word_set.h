// A set of words for --vocab, looked up by string_view without allocating.
#pragma once

#include <string>
#include <string_view>
#include <unordered_set>

namespace embed {

struct WordHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using WordSet = std::unordered_set<std::string, WordHash, std::equal_to<>>;

// Reads one word per line (trailing "\r" and surrounding spaces/tabs removed, blank lines skipped).
WordSet read_word_list(const std::string& path);

}  // namespace embed
