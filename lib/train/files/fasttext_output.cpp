#include "train/files/fasttext_output.h"

#include <algorithm>
#include <vector>

namespace embed {

void write_fasttext_output(AtomicOutput& out, const Vocabulary& vocab, std::size_t dim, const RowReader& vectors,
                           const RowReader& context, const SubwordTable* subwords, const FastTextWriteArgs& args) {
  EmbeddingTable table;
  table.dim = dim;
  table.origin_kind = "row";
  std::vector<float> row(dim);
  std::vector<float> output(vocab.size() * dim);
  for (std::size_t r = 0; r < vocab.size(); ++r) {
    vectors(r, row.data());
    table.add_row(vocab.words[r], row, r + 1);
    // fastText counts every word at least once (a word --init-keep kept has count 0).
    table.counts.push_back(std::max<std::int64_t>(1, static_cast<std::int64_t>(vocab.counts[r])));
    context(r, output.data() + r * dim);
  }
  write_fasttext_model(table, subwords, output, args, out, out.path());
  out.commit();
}

}  // namespace embed
