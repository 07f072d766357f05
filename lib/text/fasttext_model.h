// fastText's native model files (.bin), read as word vectors: each word's vector is
// computed as `fasttext print-word-vectors` and gensim's load_facebook_vectors compute it,
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
// Older files, which gensim reads too:
//   version 11 (fastText from May to October 2017): the same bytes. Its models gave "</s>"
//         n-grams (version 12 stopped), and gensim still does, so they are kept here.
//   the original layout (before May 2017): no magic number or version (the file starts
//         with the args), no pruneidx_size, no quant_input or qout; "</s>" had n-grams.
// An entry with an empty word is skipped with a warning (gensim keeps it, as the key "";
// a row here needs a name). Quantized (.ftz) and supervised models are refused with a
// message that says so.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/byte_source.h"
#include "core/utf8.h"
#include "format/embedding_table.h"
#include "text/subword_table.h"
#include "text/word_decoding.h"
#include "text/word_set.h"

namespace embed {

inline constexpr std::int32_t kFastTextMagic = 793712314;
inline constexpr std::int32_t kFastTextVersion = 12;
inline constexpr std::int32_t kFastTextOldestVersion = 11;
// The bytes is_fasttext_model judges: the original layout's args and dictionary sizes.
inline constexpr std::size_t kFastTextHeadBytes = 68;

// Whether `head`, a file's first kFastTextHeadBytes bytes (fewer when the file is shorter,
// at least 8), starts a fastText model: the magic number, or in the original layout
// settings and dictionary sizes that fastText could have written (text, safetensors and
// pickles never look so).
bool is_fasttext_model(std::string_view head);

struct FastTextReadOptions {
  std::uint64_t limit = 0;                               // keep the first `limit` words (0: all)
  const WordSet* keep = nullptr;                         // keep only these words (nullptr: all)
  WordDecoding words;  // --encoding and --unicode-errors
  bool keep_subwords = false;                            // also return the n-gram bucket rows
  bool keep_rows = false;                                // also return the kept words' own input rows and output rows
};

struct FastTextModel {
  EmbeddingTable table;                  // the words in the model's order, with their counts
  std::optional<SubwordTable> subwords;  // when asked for and the model has n-grams (maxn > 0)
  bool subwords_left = false;            // the model has n-grams, not asked for
  // With keep_rows, in the table's order (rows × dim): each word's own row of the input
  // matrix (its vector is the average of it and its n-grams' rows), and its row of the
  // output matrix (what skip-gram and CBOW score contexts against).
  std::vector<float> own_rows, output_rows;
};

// Throws embed::Error "NAME: ..." naming what was expected, for truncated or malformed
// files, and for quantized or supervised models.
FastTextModel read_fasttext_model(InputStream& in, const FastTextReadOptions& options);

}  // namespace embed
