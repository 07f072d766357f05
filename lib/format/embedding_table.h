// Word vectors held in memory while converting: the words, one f32 row per word,
// optional counts, and where each row came from so that errors can point at it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/float_buffer.h"

namespace embed {

struct EmbeddingTable {
  std::size_t dim = 0;
  std::string word_bytes;                       // all words' UTF-8, concatenated
  std::vector<std::int64_t> word_offsets{0};    // row i is word_bytes[offsets[i], offsets[i+1])
  FloatBuffer values;                           // rows() * dim, row-major
  std::vector<std::int64_t> counts;             // empty, or one frequency per row
  std::vector<std::uint64_t> origins;           // per row: the input line (text) or record number
  std::string origin_kind = "line";             // what origins count: "line" or "row"
  // Said after a duplicate word's message: how the reader may have made two words equal
  // (--unicode-errors replace or ignore), or empty.
  std::string duplicate_note;

  std::size_t rows() const { return word_offsets.size() - 1; }
  std::string_view word(std::size_t row) const {
    return std::string_view(word_bytes).substr(static_cast<std::size_t>(word_offsets[row]),
                                               static_cast<std::size_t>(word_offsets[row + 1] - word_offsets[row]));
  }
  std::span<const float> row(std::size_t r) const { return {values.data() + r * dim, dim}; }
  std::span<float> row(std::size_t r) { return {values.data() + r * dim, dim}; }

  void add_row(std::string_view word, std::span<const float> vector, std::uint64_t origin);
};

// Builds the vocab.index slots (capacity 0: the minimum), failing with
// "SOURCE:LINE: duplicate word ..." naming both rows' origins.
std::vector<std::uint32_t> index_words(const EmbeddingTable& table, const std::string& source_name,
                                       std::uint64_t capacity = 0);

// Scales every row of `values` (rows of `dim` floats) to unit L2 length; rows of zero
// length stay zero. Returns how many were zero.
std::size_t normalize_rows(std::span<float> values, std::size_t dim, unsigned threads);

// L2 norm of each row of `values`, summed in double.
std::vector<float> row_norms(std::span<const float> values, std::size_t dim, unsigned threads);

}  // namespace embed
