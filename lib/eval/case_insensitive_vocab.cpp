#include "eval/case_insensitive_vocab.h"

#include <algorithm>

#include "core/utf8.h"

namespace embed {

CaseInsensitiveVocab::CaseInsensitiveVocab(const VectorSpace& space, std::uint64_t restrict_rows)
    : rows_(restrict_rows ? std::min(restrict_rows, space.rows()) : space.rows()) {
  rows_by_upper_.reserve(rows_);
  for (std::uint64_t r = 0; r < rows_; ++r) rows_by_upper_.try_emplace(utf8_upper(space.word(r)), r);
}

std::optional<std::uint64_t> CaseInsensitiveVocab::find(const std::string& upper_word) const {
  const auto it = rows_by_upper_.find(upper_word);
  if (it == rows_by_upper_.end()) return std::nullopt;
  return it->second;
}

}  // namespace embed
