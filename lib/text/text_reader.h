// Text vector files: GloVe (no header) and word2vec/fastText text (an "N D" header line).
// Every row is a word followed by D numbers; the last D fields are the numbers and
// everything before them is the word, so words containing spaces survive.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "core/byte_source.h"
#include "core/utf8.h"
#include "format/embedding_table.h"
#include "text/word_decoding.h"
#include "text/word_set.h"

namespace embed {

// The largest dimension a vector file's header may give (text or word2vec binary): far
// beyond any real vectors, small enough that one row fits in memory.
inline constexpr std::uint64_t kMaxVectorDimension = 1 << 24;

using RowSink = std::function<void(const EmbeddingTable& table, std::size_t first_row, std::span<float> values)>;

struct TextReadOptions {
  bool has_header = false;      // word2vec/fastText text: the first line is "COUNT DIM"
  std::uint64_t limit = 0;      // stop after this many rows (0: all)
  const WordSet* keep = nullptr;  // keep only these words (nullptr: all)
  unsigned threads = 1;
  WordDecoding words;  // their encoding, and words that do not decode (gensim's unicode_errors)
  std::size_t chunk_bytes = 32u << 20;  // text parsed per parallel round
  // When set, each batch of rows goes to row_sink(table, first_row, values) as soon as it
  // is parsed (in order, after its words are in the table) instead of into table.values,
  // so the vectors never have to be held in memory at once.
  RowSink row_sink;
};

// Parses a text vector file. Throws embed::Error "NAME:LINE: what was expected".
EmbeddingTable read_text_vectors(InputStream& in, const TextReadOptions& options);

// Parses one number of the plain form "-?DIGITS(.DIGITS)?" (at most 7 digits each side)
// starting at p, which must be followed by a separator or `end`; correctly rounded, like
// fast_float. Returns the end of the number, or nullptr for any other form. May read
// 8 bytes past `end`. Exposed for tests.
const char* parse_plain_decimal(const char* p, const char* end, float& out);

// Parses "COUNT DIM" (two non-negative integers, nothing else); nullopt when the line is not such a header.
std::optional<std::pair<std::uint64_t, std::uint64_t>> parse_count_dim_header(std::string_view line);

}  // namespace embed
