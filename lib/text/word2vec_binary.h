// word2vec's binary format, as written by its C tool and by gensim:
// a text header "COUNT DIM\n", then per word its UTF-8 bytes, a space, DIM little-endian
// float32s and (word2vec C; optional for gensim) a newline.
#pragma once

#include "core/utf8.h"

#include <cstdint>

#include "core/atomic_output.h"
#include "core/byte_source.h"
#include "format/embedding_table.h"
#include "text/word_decoding.h"
#include "text/word_set.h"

namespace embed {

// Throws embed::Error "NAME: row R: ..." for truncated or malformed records.
EmbeddingTable read_word2vec_binary(InputStream& in, std::uint64_t limit, const WordSet* keep,
                                    const WordDecoding& words = {});

void write_word2vec_binary(const EmbeddingTable& table, AtomicOutput& out);

}  // namespace embed
