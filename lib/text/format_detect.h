// Which kind of vector file an input is, from its first bytes.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/byte_source.h"

namespace embed {

// The formats' names, aliases, readers and writers: vectors/vector_formats.h.
// fasttext_bin is only read; projector (a directory for TensorBoard's Embedding Projector) only written.
enum class VectorFormat { glove, w2v_text, w2v_bin, emb, fasttext_bin, projector };

// Looks at the (decompressed) start of `in` without consuming it:
// - fastText's magic number 793712314 (a little-endian int32), or the settings that start
//   a model of its original layout, is fasttext-bin;
// - a safetensors header (8-byte length, then "{") is emb;
// - a Python pickle (gensim's KeyedVectors.save) fails with a message that names it;
// - a first line "COUNT DIM" followed by a row whose numbers are raw bytes is w2v-bin;
// - a first line "COUNT DIM" followed by text rows is w2v-text;
// - anything else is GloVe text.
VectorFormat detect_format(InputStream& in);

// Fails with a message that names the kind of model when `head` (an input's first
// kFastTextHeadBytes bytes) is one that a text reader was asked to read (a fastText .bin
// or .ftz: --from fasttext-bin reads it; a pickled gensim model); otherwise returns.
void refuse_known_models(std::string_view head, const std::string& name);

}  // namespace embed
