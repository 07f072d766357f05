// The vocabulary as gensim's evaluations see it: the first `restrict_rows` words,
// upper-cased, each upper-cased form mapping to its most frequent (first) row.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "search/vector_space.h"

namespace embed {

class CaseInsensitiveVocab {
 public:
  CaseInsensitiveVocab(const VectorSpace& space, std::uint64_t restrict_rows);
  // The row of `upper_word` (already upper-cased), or nullopt when outside the restricted vocabulary.
  std::optional<std::uint64_t> find(const std::string& upper_word) const;
  std::uint64_t rows() const { return rows_; }

 private:
  std::uint64_t rows_;
  std::unordered_map<std::string, std::uint64_t> rows_by_upper_;
};

}  // namespace embed
