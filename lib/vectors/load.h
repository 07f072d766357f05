// Loading vectors from any supported file into memory, whatever its format.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "format/emb_file.h"
#include "format/embedding_table.h"
#include "text/format_detect.h"
#include "text/subword_table.h"
#include "text/text_reader.h"
#include "text/word_set.h"

namespace embed {

struct LoadOptions {
  std::optional<VectorFormat> format;  // nullopt: detect from the content
  std::uint64_t limit = 0;             // keep the first `limit` rows (0: all)
  const WordSet* keep = nullptr;       // keep only these words (nullptr: all)
  unsigned threads = 1;
  WordDecoding words;                  // --encoding and --unicode-errors: text, word2vec and fastText words
  bool verify = false;                                   // .emb inputs: check checksums and index first
  bool subwords = false;                                 // fastText and .emb inputs: keep the n-gram bucket rows too
  bool model_rows = false;                               // fastText inputs: keep own and output rows (FastTextModel)
  RowSink row_sink;                                      // text inputs: stream rows here instead of into table.values
};

struct LoadedVectors {
  EmbeddingTable table;
  VectorFormat format;
  bool normalized = false;                   // an .emb input said its rows have unit length
  std::optional<DType> dtype;                // an .emb input's vectors' type (none when compressed)
  RowStorage storage = RowStorage::dense;    // an .emb input's rows: compressed ones are decoded
  bool streamed = false;                     // the values went to LoadOptions::row_sink, table.values is empty
  std::optional<SubwordTable> subwords;      // with LoadOptions::subwords, when the input has them
  bool subwords_left = false;                // the input has n-gram bucket rows that were not kept
  std::vector<float> own_rows, output_rows;  // with LoadOptions::model_rows, from a fastText model
};

// Reads `path` ("-": stdin; gzip is detected). Throws embed::Error with file and line.
LoadedVectors load_vectors(const std::string& path, const LoadOptions& options);
// The same from an opened input; `format` is options.format or detect_format(in).
LoadedVectors load_vectors(InputStream& in, VectorFormat format, const LoadOptions& options);

// Opens an .emb file: mapped when it is a plain file, read into memory from stdin or gzip.
EmbFile open_emb(const std::string& path);
// The same from an opened input.
EmbFile open_emb(InputStream& in);

}  // namespace embed
