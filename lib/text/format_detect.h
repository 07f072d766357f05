// Which kind of vector file an input is, from its first bytes.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/byte_source.h"

namespace embed {

enum class VectorFormat { glove, w2v_text, w2v_bin, emb };

std::string_view format_name(VectorFormat format);
// Parses "glove" | "w2v-text" | "w2v-bin" | "emb".
std::optional<VectorFormat> parse_format_name(std::string_view name);

// Looks at the (decompressed) start of `in` without consuming it:
// - a safetensors header (8-byte length, then "{") is emb;
// - a first line "COUNT DIM" followed by a row whose numbers are raw bytes is w2v-bin;
// - a first line "COUNT DIM" followed by text rows is w2v-text;
// - anything else is GloVe text.
// Throws embed::Error naming the input for a model file we do not read as vectors (a
// fastText .bin), rather than reading its bytes as text.
VectorFormat detect_format(InputStream& in);

// Fails with a message that names the kind of model when `head` (an input's first bytes)
// is one (a fastText .bin, by its magic number); otherwise returns.
void refuse_known_models(std::string_view head, const std::string& name);

// The output format implied by a file name: .emb, .txt (GloVe), .vec (word2vec text), .bin (word2vec binary).
std::optional<VectorFormat> format_from_extension(const std::string& path);

}  // namespace embed
