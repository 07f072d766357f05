#include "train/glove/glove_summed_steps.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/error.h"
#include "train/engine/update_constants.h"
#include "train/engine/update_rule_for.h"
#include "train/glove/glove_error.h"

namespace embed {

std::size_t summed_records_override() { return summed_steps_override("EMBED_SUMMED_RECORDS"); }

std::size_t summed_records_on_gpu(Optimizer optimizer) {
  if (optimizer != Optimizer::adam && optimizer != Optimizer::adamw && optimizer != Optimizer::adamax) return 0;
  const std::size_t forced = summed_records_override();
  return forced > 0 ? forced : kSummedRecords;
}

namespace {

inline float clip(float x) { return std::min(std::max(x, -kGloveGradientClip), kGloveGradientClip); }

// Each summed row's one step: its vector's sum as the elements' gradients, the bias's
// (Σ the records' scaled coefficients) as the bias's, by the rule's element form.
template <typename Rule>
void step_summed_rows(const Rule& rule, RowSums& sums, RowMatrix& table, const GloveLayout& layout) {
  const auto rows = sums.rows();
  const std::size_t dim = layout.dim;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    float* row = table.row(rows[i]);
    float* state = row + layout.state();
    const float* g = sums.sum(i);
    const auto r = rule.begin(state);
    float sum = 0;
    for (std::size_t k = 0; k < dim; ++k) row[k] -= rule.change(r, state, k, row[k], g[k], sum);
    rule_end<PlainAdd>(rule, state, sum, dim);
    // AdaGrad's bias steps by the unscaled coefficient, which is its scaled one (its
    // gradient_scale is the identity); RowAdagrad's, SGD's and the others' by the scaled.
    row[dim] -= rule_bias_change<PlainAdd>(rule, r, state, dim, row[dim], g[dim], g[dim]);
  }
  sums.clear();
}

}  // namespace

GloveSummedSteps::GloveSummedSteps(std::size_t rows, const GloveLayout& layout, std::size_t records_per_step)
    : layout_(layout), records_per_step_(records_per_step), word_sums_(rows, layout.params), context_sums_(rows, layout.params) {
  EMBED_ASSERT(records_per_step > 0);
}

void GloveSummedSteps::train(std::span<const GloveRecord> records, RowMatrix& words, RowMatrix& contexts, float learning_rate,
                             const std::uint8_t* locked, BatchLoss& loss) {
  const std::size_t dim = layout_.dim;
  with_update_rule(layout_.optimizer, learning_rate, layout_.params, layout_.hyper, [&](const auto& rule) {
    for (std::size_t first = 0; first < records.size(); first += records_per_step_) {
      double loss_sum = 0;
      std::uint64_t examples = 0;
      for (const GloveRecord& r : records.subspan(first, std::min(records_per_step_, records.size() - first))) {
        const float* w = words.row(r.row);
        const float* c = contexts.row(r.column);
        const float diff = glove_error(w, c, dim, r.log_count);
        if (!std::isfinite(diff)) continue;
        const float fdiff = r.weight * diff;
        loss_sum += 0.5 * static_cast<double>(fdiff) * diff;
        ++examples;
        const float scale = rule.gradient_scale(fdiff);
        if (locked == nullptr || locked[r.row] == 0) {
          float* gw = word_sums_.of(r.row);
          for (std::size_t k = 0; k < dim; ++k) gw[k] += clip(scale * c[k]);
          gw[dim] += scale;
        }
        float* gc = context_sums_.of(r.column);
        for (std::size_t k = 0; k < dim; ++k) gc[k] += clip(scale * w[k]);
        gc[dim] += scale;
      }
      step_summed_rows(rule, word_sums_, words, layout_);
      step_summed_rows(rule, context_sums_, contexts, layout_);
      loss.sum += loss_sum;
      loss.examples += examples;
    }
  });
}

}  // namespace embed
