#include "train/glove/glove_layout.h"

#include <algorithm>
#include <cmath>

#include "core/parallel.h"
#include "train/engine/random.h"

namespace embed {

float glove_weight(double count, double x_max, double alpha) {
  return count >= x_max ? 1.0f : static_cast<float>(std::pow(count / x_max, alpha));
}

GloveLayout::GloveLayout(std::size_t d, Optimizer rule, const OptimizerParams& given)
    : dim(d),
      params(RowMatrix::stride_for(d + 1)),
      width(params + optimizer_spec(rule).state_floats(params)),
      optimizer(rule),
      hyper(resolve_params(rule, given)) {}

RowMatrix make_glove_table(std::size_t rows, const GloveLayout& layout, std::uint64_t seed, unsigned table, unsigned threads) {
  const OptimizerSpec& optimizer = optimizer_spec(layout.optimizer);
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
      optimizer.init_state(row + layout.state(), layout.params);
    }
  });
  return matrix;
}

}  // namespace embed
