// glove-convert's work, kept out of the executable so tests can drive it directly.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/utf8.h"
#include "format/dtype.h"
#include "format/emb_file.h"
#include "format/quantized_rows.h"
#include "search/index_kinds.h"
#include "text/format_detect.h"
#include "text/word_decoding.h"

namespace embed {

struct ConvertOptions {
  std::string input;                 // path, or "-" for stdin
  std::string output;                // path, or "-" for stdout
  std::optional<VectorFormat> from;  // nullopt: detect
  std::optional<VectorFormat> to;    // nullopt: from the output's extension, else emb
  std::optional<DType> dtype;        // emb output only; default f32 (or the input .emb's dtype)
  QuantizeSpec quantize;             // emb output only: --dtype int8 or --pq M (storage dense: neither)
  bool normalize = false;
  std::uint64_t limit = 0;
  std::string vocab_path;  // keep only the words listed here
  unsigned threads = 1;
  WordDecoding words;  // --encoding, --unicode-errors
  bool verify = false;
  bool info = false;                     // print describe_emb() of the input instead of converting
  bool subwords = false;                 // --subwords: keep a fastText model's n-gram buckets (emb output only)
  const IndexKindSpec* index = nullptr;  // --index: add an approximate index (emb output only)
  IndexSettings index_settings;          // its settings (--ann-m, ...)
  std::string creator = "glove-convert " EMBED_VERSION;
};

// glove-convert's run: --info and --verify alone check and describe an .emb input on
// standard output; otherwise convert(). Throws UsageError without -o, embed::Error for
// -o with --info and for bad input.
void run_convert_command(const ConvertOptions& options);

// Converts options.input to options.output atomically. Throws embed::Error.
void convert(const ConvertOptions& options);

// The human-readable summary printed by --info: rows, dim, dtype, size, metadata, tensors.
std::string describe_emb(const EmbFile& file);

}  // namespace embed
