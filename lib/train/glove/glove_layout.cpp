#include "train/glove/glove_layout.h"

#include <algorithm>
#include <cmath>

#include "core/parallel.h"
#include "train/engine/random.h"

namespace embed {

float glove_weight(double count, double x_max, double alpha) {
  return count >= x_max ? 1.0f : static_cast<float>(std::pow(count / x_max, alpha));
}

GloveLayout::GloveLayout(std::size_t d, Optimizer optimizer, AdagradMode adagrad) : dim(d), params(RowMatrix::stride_for(d + 1)) {
  switch (optimizer) {
    case Optimizer::sgd: width = params; break;
    case Optimizer::adagrad: width = adagrad == AdagradMode::element ? 2 * params : params + 16; break;
    case Optimizer::adam: width = 3 * params + 16; break;
  }
}

RowMatrix make_glove_table(std::size_t rows, const GloveLayout& layout, Optimizer optimizer, std::uint64_t seed, unsigned table,
                           unsigned threads) {
  RowMatrix matrix(rows, layout.width);
  constexpr std::size_t kRowsPerTask = 4096;
  const std::size_t tasks = (rows + kRowsPerTask - 1) / kRowsPerTask;
  const float scale = 1.0f / static_cast<float>(layout.dim);
  parallel_for(tasks, threads, [&](std::size_t task) {
    const std::size_t end = std::min(rows, (task + 1) * kRowsPerTask);
    for (std::size_t r = task * kRowsPerTask; r < end; ++r) {
      Random random(seed, (std::uint64_t{0x2000} + table) << 32 | r);
      float* row = matrix.row(r);
      for (std::size_t i = 0; i <= layout.dim; ++i) row[i] = (random.uniform() - 0.5f) * scale;
      if (optimizer == Optimizer::adam) {
        std::fill_n(row + layout.state() + 2 * layout.params, 2, 1.0f);
      }
    }
  });
  return matrix;
}

}  // namespace embed
