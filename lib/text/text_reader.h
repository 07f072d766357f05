// Text vector files: GloVe (no header) and word2vec/fastText text (an "N D" header line).
// Every row is a word followed by D numbers; the last D fields are the numbers and
// everything before them is the word, so words containing spaces survive.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/byte_source.h"
#include "format/embedding_table.h"
#include "text/word_set.h"

namespace embed {

struct TextReadOptions {
  bool has_header = false;      // word2vec/fastText text: the first line is "COUNT DIM"
  std::uint64_t limit = 0;      // stop after this many rows (0: all)
  const WordSet* keep = nullptr;  // keep only these words (nullptr: all)
  unsigned threads = 1;
  std::size_t chunk_bytes = 32u << 20;  // text parsed per parallel round
};

// Parses a text vector file. Throws embed::Error "NAME:LINE: what was expected".
EmbeddingTable read_text_vectors(InputStream& in, const TextReadOptions& options);

// Parses "COUNT DIM" (two non-negative integers, nothing else); nullopt when the line is not such a header.
std::optional<std::pair<std::uint64_t, std::uint64_t>> parse_count_dim_header(std::string_view line);

}  // namespace embed
