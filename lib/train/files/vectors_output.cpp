#include "train/files/vectors_output.h"

#include <algorithm>
#include <vector>

#include "format/emb_writer.h"
#include "format/embedding_table.h"

namespace embed {

RowReader table_rows(const RowMatrix& table, std::size_t dim, std::size_t column) {
  if (table.half()) {
    // A GPU's f16 host tables (row_matrix.h): each row widened on the writer's thread.
    return [&table, dim, column](std::size_t r, float* out) {
      thread_local std::vector<float> row;
      row.resize(column + dim);
      table.load_row(r, row.data(), column + dim);
      std::copy_n(row.data() + column, dim, out);
    };
  }
  return [&table, dim, column](std::size_t r, float* out) { std::copy_n(table.row(r) + column, dim, out); };
}

void write_trained_vectors(AtomicOutput& out, const Vocabulary& vocab, std::size_t dim, const RowReader& row, DType dtype,
                           const std::string& source, const std::map<std::string, std::string>& metadata, unsigned threads,
                           const EmbExtras& extras, const QuantizeSpec* quantize) {
  // The table's words and counts; its values stream from `table` below.
  EmbeddingTable words;
  words.dim = dim;
  words.origin_kind = "row";
  PackedWords packed = pack_words(vocab);
  words.word_bytes = std::move(packed.bytes);
  words.word_offsets = std::move(packed.offsets);
  for (std::size_t r = 0; r < vocab.size(); ++r) words.origins.push_back(r + 1);
  words.counts = vocab.counts;

  EmbWriteOptions options;
  options.dtype = dtype;
  options.source = source;
  options.creator = "embed-train " EMBED_VERSION;
  options.threads = threads;
  options.extra_metadata = metadata;
  const std::shared_ptr<const void> extra_bytes = extras ? extras(options) : nullptr;
  if (quantize && quantize->storage != RowStorage::dense) {
    words.values.resize(vocab.size() * dim);
    for (std::size_t r = 0; r < vocab.size(); ++r) row(r, words.values.data() + r * dim);
    QuantizeSpec spec = *quantize;
    spec.threads = threads;
    const QuantizedRows rows = QuantizedRows::encode(words.values, dim, spec);
    rows.add_to_emb(options);
    write_emb(words, options, out);
    out.commit();
    return;
  }
  EmbStreamWriter writer(out, dim, options);
  constexpr std::size_t kRowsPerBlock = 4096;
  std::vector<float> block;
  // A pipe or a device takes the rows twice, measured and then written (emb_writer.h):
  // reading them again costs less than a second copy of the table.
  for (int pass = 0; pass < writer.passes(); ++pass) {
    if (pass == 1) writer.write_header(words);
    for (std::size_t first = 0; first < vocab.size(); first += kRowsPerBlock) {
      const std::size_t n = std::min(kRowsPerBlock, vocab.size() - first);
      block.resize(n * dim);
      for (std::size_t r = 0; r < n; ++r) row(first + r, block.data() + r * dim);
      writer.add_rows(words, first, block);
    }
  }
  writer.finish(words);
  out.commit();
}

}  // namespace embed
