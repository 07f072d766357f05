#include "train/word2vec/word2vec_layout.h"

#include "train/run/train_settings.h"

namespace embed {

Word2vecLayout::Word2vecLayout(std::size_t dim_, Optimizer optimizer_, const OptimizerParams& hyper_)
    : dim(dim_), optimizer(optimizer_), hyper(resolve_params(optimizer_, hyper_)) {}

Word2vecLayout::Word2vecLayout(const TrainSettings& s) : Word2vecLayout(s.dim, s.optimizer, s.hyper) {}

std::size_t Word2vecLayout::state() const { return optimizer_spec(optimizer).state_floats(padded()); }

RowMatrix make_word2vec_table(std::size_t rows, const Word2vecLayout& layout, bool uniform, std::uint64_t seed, unsigned threads,
                              DType element) {
  const std::size_t state = layout.state();
  EMBED_ASSERT(state == 0 || element == DType::f32);
  // SGD's rows: the table every run before the optimizers had, drawn alike.
  RowMatrix table = state == 0 ? RowMatrix(rows, layout.dim, element) : RowMatrix(rows, layout.width());
  if (uniform) init_uniform(table, layout.dim, seed, threads);
  if (state == 0) return table;
  const OptimizerSpec& spec = optimizer_spec(layout.optimizer);
  for (std::size_t r = 0; r < rows; ++r) spec.init_state(table.row(r) + layout.padded(), layout.padded());
  return table;
}

}  // namespace embed
