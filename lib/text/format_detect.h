// Which kind of vector file an input is, from its first bytes: the byte-level tests that
// the vector-format registry's detect hooks point at (vectors/vector_formats.h, whose
// detect_format asks them), and the refusals of files that are models, not vectors.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/byte_source.h"

namespace embed {

// The formats' names, aliases, detection, readers and writers: vectors/vector_formats.h.
// fasttext_bin is only read; projector (a directory for TensorBoard's Embedding Projector) only written.
enum class VectorFormat { glove, w2v_text, w2v_bin, emb, fasttext_bin, projector };

// The tests below (with is_fasttext_model, text/fasttext_model.h) are what the registry's
// entries point their detect hooks at; each judges the (decompressed) start of an input.

// A safetensors header (an 8-byte length, then "{"): an .emb.
bool is_safetensors(std::string_view head);
// A first line "COUNT DIM" followed by a row whose numbers are text: word2vec text. `text`
// is the start of the input after any UTF-8 byte-order mark (which the readers skip).
bool is_w2v_text(std::string_view text);
// A first line "COUNT DIM" followed by a row whose numbers are raw bytes: word2vec binary.
bool is_w2v_bin(std::string_view text);

// Fails, saying the file is empty or cut short, when `name` ends in ".emb" and `head` (its
// whole content, when shorter than 9 bytes) is too short to hold a safetensors header:
// rather than reading its few bytes as a text vector's word. Otherwise returns.
void refuse_short_emb(std::string_view head, const std::string& name);

// Fails with a message that names gensim when `head` starts a Python pickle (gensim's
// KeyedVectors.save); otherwise returns. Ask it only once the binary formats whose first
// bytes could look the same are ruled out (a safetensors header of 640 bytes).
void refuse_pickle(std::string_view head, const std::string& name);

// Fails with a message that names the kind of model when `head` (an input's first
// kFastTextHeadBytes bytes) is one that a text reader was asked to read (a fastText .bin
// or .ftz: --from fasttext-bin reads it; a pickled gensim model); otherwise returns.
void refuse_known_models(std::string_view head, const std::string& name);

}  // namespace embed
