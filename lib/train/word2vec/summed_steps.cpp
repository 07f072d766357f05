#include "train/word2vec/summed_steps.h"

#include <algorithm>
#include <cstdlib>

#include "core/error.h"
#include "train/engine/row_ops.h"
#include "train/engine/update_rule_for.h"
#include "train/word2vec/logistic_table.h"

namespace embed {

std::size_t summed_windows_override() { return summed_steps_override("EMBED_SUMMED_WINDOWS"); }

std::size_t summed_windows_on_gpu(Optimizer optimizer) {
  if (optimizer_spec(optimizer).concurrent) return 0;
  const std::size_t forced = summed_windows_override();
  return forced > 0 ? forced : kSummedWindows;
}

namespace {

struct Tables {
  float* input;
  float* output;
  std::size_t width, padded;
  const std::uint8_t* locked;

  float* input_row(std::uint32_t row) const { return input + std::size_t{row} * width; }
  float* output_row(std::uint32_t row) const { return output + std::size_t{row} * width; }
  bool updates(std::uint32_t input_row) const { return locked == nullptr || locked[input_row] == 0; }
};

// One input row against output rows out[0, n_out) (the target, label 1, then the
// negatives): its scores from the rows as they stand, each pair's gradient added to both
// rows' sums.
template <typename Rule>
void sum_context_row(const Rule& rule, std::uint32_t input, const std::uint32_t* out, std::size_t n_out, const Tables& t,
                     RowSums& input_sums, RowSums& output_sums, double& loss_sum) {
  const LogisticTable& table = logistic_table();
  const std::size_t n = t.padded;
  const float* in = t.input_row(input);
  float gradient[64];
  for (std::size_t o = 0; o < n_out; ++o) {
    const float score = dot(in, t.output_row(out[o]), n);
    const float label = o == 0 ? 1.0f : 0.0f;
    gradient[o] = rule.gradient_scale(label - table.sigmoid(score));
    loss_sum += table.loss(o == 0 ? score : -score);
  }
  if (t.updates(input)) {
    float* sum = input_sums.of(input);
    for (std::size_t o = 0; o < n_out; ++o) axpy(gradient[o], t.output_row(out[o]), sum, n);
  }
  for (std::size_t o = 0; o < n_out; ++o) axpy(gradient[o], in, output_sums.of(out[o]), n);
}

// Windows [first, end) of `batch`, their gradients into the sums.
template <typename Rule>
void sum_windows(const Rule& rule, Model model, const WindowBatch& batch, std::size_t first, std::size_t end, const Tables& t,
                 RowSums& input_sums, RowSums& output_sums, float* mean, float* mean_gradient, BatchLoss& loss) {
  const LogisticTable& table = logistic_table();
  const std::size_t n = t.padded;
  double loss_sum = 0;
  std::uint32_t out[64];
  for (std::size_t w = first; w < end; ++w) {
    const auto inputs = batch.window_inputs(w);
    const std::uint32_t target = batch.targets[w];
    if (model == Model::skipgram) {
      const std::size_t at = batch.input_offsets[w];
      std::size_t n_out = batch.negatives_per_input ? 0 : list_output_rows(target, batch.window_negatives(w), out);
      for (std::size_t c = 0; c < inputs.size(); ++c) {
        if (batch.negatives_per_input) n_out = list_output_rows(target, batch.input_negatives(at + c), out);
        sum_context_row(rule, inputs[c], out, n_out, t, input_sums, output_sums, loss_sum);
      }
      loss.examples += inputs.size();
      continue;
    }
    // CBOW: the inputs' mean against the outputs; the mean's gradient, unscaled, is every
    // input's (as word2vec's).
    if (inputs.empty()) continue;
    scale_copy(1.0f, t.input_row(inputs[0]), mean, n);
    for (std::size_t c = 1; c < inputs.size(); ++c) axpy(1.0f, t.input_row(inputs[c]), mean, n);
    const float inv = 1.0f / static_cast<float>(inputs.size());
    for (std::size_t i = 0; i < n; ++i) mean[i] *= inv;
    std::fill(mean_gradient, mean_gradient + n, 0.0f);
    const std::size_t n_out = list_output_rows(target, batch.window_negatives(w), out);
    for (std::size_t o = 0; o < n_out; ++o) {
      const float* row = t.output_row(out[o]);
      const float score = dot(mean, row, n);
      const float g = rule.gradient_scale((o == 0 ? 1.0f : 0.0f) - table.sigmoid(score));
      loss_sum += table.loss(o == 0 ? score : -score);
      axpy(g, row, mean_gradient, n);
      axpy(g, mean, output_sums.of(out[o]), n);
    }
    for (std::uint32_t row : inputs) {
      if (t.updates(row)) axpy(1.0f, mean_gradient, input_sums.of(row), n);
    }
    ++loss.examples;
  }
  loss.sum += loss_sum;
}

// Each summed row's one step: the sum is its ascent direction.
template <typename Rule>
void step_summed_rows(const Rule& rule, RowSums& sums, float* table, const Tables& t, std::size_t dim) {
  const auto rows = sums.rows();
  for (std::size_t k = 0; k < rows.size(); ++k) {
    float* row = table + std::size_t{rows[k]} * t.width;
    rule_step(rule, row, row + t.padded, 1.0f, sums.sum(k), dim, t.padded);
  }
  sums.clear();
}

}  // namespace

SummedSteps::SummedSteps(std::size_t input_rows, std::size_t output_rows, const Word2vecLayout& layout,
                         std::size_t windows_per_step)
    : layout_(layout),
      windows_per_step_(windows_per_step),
      input_sums_(input_rows, layout.padded()),
      output_sums_(output_rows, layout.padded()),
      mean_(layout.padded()),
      mean_gradient_(layout.padded()) {
  EMBED_ASSERT(windows_per_step > 0);
}

void SummedSteps::train(Model model, const WindowBatch& batch, float* input, float* output, const std::uint8_t* locked,
                        BatchLoss& loss) {
  EMBED_ASSERT(batch.negatives_per_window < 63);
  const Tables t{input, output, layout_.width(), layout_.padded(), locked};
  with_update_rule(layout_.optimizer, batch.learning_rate, layout_.padded(), layout_.hyper, [&](const auto& rule) {
    for (std::size_t first = 0; first < batch.windows(); first += windows_per_step_) {
      const std::size_t end = std::min(batch.windows(), first + windows_per_step_);
      sum_windows(rule, model, batch, first, end, t, input_sums_, output_sums_, mean_.data(), mean_gradient_.data(), loss);
      step_summed_rows(rule, input_sums_, input, t, layout_.dim);
      step_summed_rows(rule, output_sums_, output, t, layout_.dim);
    }
  });
}

}  // namespace embed
