// fastText's native model files (.bin, fastText 0.9's format version 12), read as word
// vectors: each word's vector is computed as `fasttext print-word-vectors` computes it,
// the average of the word's own input row and its character n-grams' bucket rows
// (text/fasttext_subwords.h). The layout, from fastText's fasttext.cc, args.cc,
// dictionary.cc and densematrix.cc, all little-endian:
//   int32 magic 793712314, int32 version 12;
//   args: int32 dim, ws, epoch, minCount, neg, wordNgrams, loss, model, bucket, minn, maxn,
//         lrUpdateRate, then a float64 t;
//   dictionary: int32 size, nwords, nlabels, int64 ntokens, int64 pruneidx_size (-1 when
//         not pruned), then `size` entries (NUL-terminated word, int64 count, int8 type:
//         0 word, 1 label; words first, by descending count), then pruneidx_size pairs of int32;
//   bool quant_input, the input matrix (int64 rows = nwords + bucket, int64 cols = dim,
//   rows × cols float32), bool qout, the output matrix (the same shape of header and data).
// Quantized (.ftz) and supervised models are refused with a message that says so.
#pragma once

#include <cstdint>
#include <optional>

#include "core/byte_source.h"
#include "core/utf8.h"
#include "format/embedding_table.h"
#include "text/subword_table.h"
#include "text/word_set.h"

namespace embed {

inline constexpr std::int32_t kFastTextMagic = 793712314;
inline constexpr std::int32_t kFastTextVersion = 12;

struct FastTextReadOptions {
  std::uint64_t limit = 0;        // keep the first `limit` words (0: all)
  const WordSet* keep = nullptr;  // keep only these words (nullptr: all)
  UnicodeErrors unicode_errors = UnicodeErrors::strict;  // words that are not UTF-8
  bool keep_subwords = false;     // also return the n-gram bucket rows
};

struct FastTextModel {
  EmbeddingTable table;                  // the words in the model's order, with their counts
  std::optional<SubwordTable> subwords;  // when asked for and the model has n-grams (maxn > 0)
};

// Throws embed::Error "NAME: ..." naming what was expected, for truncated or malformed
// files, and for quantized or supervised models.
FastTextModel read_fasttext_model(InputStream& in, const FastTextReadOptions& options);

}  // namespace embed
