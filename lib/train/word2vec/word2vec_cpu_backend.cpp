// The CPU backend: Hogwild updates in place, one window at a time.
//
// Skip-gram follows pWord2Vec's HogBatch: a window's C context rows and its 1 + K
// output rows (target and shared negatives) form a C × (1+K) block of scores; both
// gradients are computed from the old values, then added back without locks. Rows are
// padded to 16 floats, so every loop runs over whole vectors.
#include <algorithm>
#include <vector>

#include "core/error.h"
#include "train/word2vec/logistic_table.h"
#include "train/word2vec/word2vec_backend.h"

namespace embed {
namespace {

inline float dot(const float* __restrict a, const float* __restrict b, std::size_t n) {
  float sum = 0;
#pragma omp simd reduction(+ : sum)
  for (std::size_t i = 0; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

inline void axpy(float alpha, const float* __restrict x, float* __restrict y, std::size_t n) {
#pragma omp simd
  for (std::size_t i = 0; i < n; ++i) y[i] += alpha * x[i];
}

inline void scale_copy(float alpha, const float* __restrict x, float* __restrict y, std::size_t n) {
#pragma omp simd
  for (std::size_t i = 0; i < n; ++i) y[i] = alpha * x[i];
}

struct Tables {
  float* input;
  float* output;
  std::size_t stride;
  const std::uint8_t* locked;  // per input row, 1: never updated (--lock-init); nullptr: none

  bool updates(std::uint32_t input_row) const { return locked == nullptr || locked[input_row] == 0; }
};

// Per worker: gradient tiles for the inputs and outputs of one window, and its scores.
struct Scratch {
  std::vector<float> input_grad;   // max_inputs × stride
  std::vector<float> output_grad;  // (1 + K) × stride
  std::vector<float> gradient;     // max_inputs × (1 + K): label - sigmoid(score), times lr
  std::vector<float> mean;         // CBOW: the inputs' mean (stride)
};

__attribute__((target_clones("avx512f", "avx2", "default"))) void train_skipgram(const WindowBatch& batch,
                                                                                   const Tables& t, Scratch& s,
                                                                                   BatchLoss& loss) {
  const LogisticTable& table = logistic_table();
  const std::size_t stride = t.stride;
  const std::size_t outputs = 1 + batch.negatives_per_window;
  const float lr = batch.learning_rate;
  double loss_sum = 0;
  std::uint32_t out_rows[64];
  for (std::size_t w = 0; w < batch.windows(); ++w) {
    const auto inputs = batch.window_inputs(w);
    if (inputs.empty()) continue;
    const std::uint32_t target = batch.targets[w];
    out_rows[0] = target;
    std::size_t n_out = 1;
    for (std::uint32_t negative : batch.window_negatives(w)) {
      if (negative != target) out_rows[n_out++] = negative;
    }
    // Scores and gradients: g = (label - sigmoid(score)) * lr.
    for (std::size_t c = 0; c < inputs.size(); ++c) {
      const float* in = t.input + inputs[c] * stride;
      for (std::size_t o = 0; o < n_out; ++o) {
        const float score = dot(in, t.output + out_rows[o] * stride, stride);
        const float label = o == 0 ? 1.0f : 0.0f;
        s.gradient[c * outputs + o] = (label - table.sigmoid(score)) * lr;
        loss_sum += table.loss(o == 0 ? score : -score);
      }
    }
    // Output gradients from the old inputs.
    for (std::size_t o = 0; o < n_out; ++o) {
      float* grad = s.output_grad.data() + o * stride;
      scale_copy(s.gradient[o], t.input + inputs[0] * stride, grad, stride);
      for (std::size_t c = 1; c < inputs.size(); ++c) axpy(s.gradient[c * outputs + o], t.input + inputs[c] * stride, grad, stride);
    }
    // Input gradients from the old outputs.
    for (std::size_t c = 0; c < inputs.size(); ++c) {
      float* grad = s.input_grad.data() + c * stride;
      scale_copy(s.gradient[c * outputs], t.output + out_rows[0] * stride, grad, stride);
      for (std::size_t o = 1; o < n_out; ++o) axpy(s.gradient[c * outputs + o], t.output + out_rows[o] * stride, grad, stride);
    }
    for (std::size_t c = 0; c < inputs.size(); ++c) {
      if (t.updates(inputs[c])) axpy(1.0f, s.input_grad.data() + c * stride, t.input + inputs[c] * stride, stride);
    }
    for (std::size_t o = 0; o < n_out; ++o) axpy(1.0f, s.output_grad.data() + o * stride, t.output + out_rows[o] * stride, stride);
    loss.examples += inputs.size();
  }
  loss.sum += loss_sum;
}

// CBOW as word2vec does it: the mean of the context rows predicts the centre word; the
// gradient of the mean is added, unscaled, to every context row.
__attribute__((target_clones("avx512f", "avx2", "default"))) void train_cbow(const WindowBatch& batch,
                                                                               const Tables& t, Scratch& s,
                                                                               BatchLoss& loss) {
  const LogisticTable& table = logistic_table();
  const std::size_t stride = t.stride;
  const float lr = batch.learning_rate;
  double loss_sum = 0;
  float* mean = s.mean.data();
  float* mean_grad = s.input_grad.data();
  for (std::size_t w = 0; w < batch.windows(); ++w) {
    const auto inputs = batch.window_inputs(w);
    if (inputs.empty()) continue;
    const std::uint32_t target = batch.targets[w];
    scale_copy(1.0f, t.input + inputs[0] * stride, mean, stride);
    for (std::size_t c = 1; c < inputs.size(); ++c) axpy(1.0f, t.input + inputs[c] * stride, mean, stride);
    const float inv = 1.0f / static_cast<float>(inputs.size());
#pragma omp simd
    for (std::size_t i = 0; i < stride; ++i) mean[i] *= inv;
    std::fill(mean_grad, mean_grad + stride, 0.0f);

    auto train_output = [&](std::uint32_t row, float label) {
      float* out = t.output + row * stride;
      const float score = dot(mean, out, stride);
      const float g = (label - table.sigmoid(score)) * lr;
      loss_sum += table.loss(label > 0 ? score : -score);
      axpy(g, out, mean_grad, stride);
      axpy(g, mean, out, stride);
    };
    train_output(target, 1.0f);
    for (std::uint32_t negative : batch.window_negatives(w)) {
      if (negative != target) train_output(negative, 0.0f);
    }
    for (std::uint32_t row : inputs) {
      if (t.updates(row)) axpy(1.0f, mean_grad, t.input + row * stride, stride);
    }
    ++loss.examples;
  }
  loss.sum += loss_sum;
}

class CpuBackend final : public Word2vecBackend {
 public:
  CpuBackend(Model model, RowMatrix& input, RowMatrix& output, unsigned workers, std::size_t max_inputs,
             std::span<const std::uint8_t> locked)
      : model_(model),
        tables_{input.data(), output.data(), input.stride(), locked.empty() ? nullptr : locked.data()},
        max_inputs_(max_inputs) {
    EMBED_ASSERT(input.stride() == output.stride() && input.rows() == output.rows());
    EMBED_ASSERT(locked.empty() || locked.size() == input.rows());
    scratch_.resize(workers);
    logistic_table();  // build the table before workers race to it
  }
  std::string name() const override { return "cpu"; }

  void train(const WindowBatch& batch, unsigned worker, BatchLoss& loss) override {
    EMBED_ASSERT(worker < scratch_.size());
    EMBED_ASSERT(batch.negatives_per_window < 63);
    Scratch& s = scratch_[worker];
    const std::size_t outputs = 1 + batch.negatives_per_window;
    const std::size_t stride = tables_.stride;
    if (s.output_grad.size() < outputs * stride) {
      s.input_grad.assign(std::max<std::size_t>(max_inputs_, 1) * stride, 0.0f);
      s.output_grad.assign(outputs * stride, 0.0f);
      s.gradient.assign(std::max<std::size_t>(max_inputs_, 1) * outputs, 0.0f);
      s.mean.assign(stride, 0.0f);
    }
    if (model_ == Model::skipgram) {
      train_skipgram(batch, tables_, s, loss);
    } else {
      train_cbow(batch, tables_, s, loss);
    }
  }

 private:
  Model model_;
  Tables tables_;
  std::size_t max_inputs_;
  std::vector<Scratch> scratch_;
};

}  // namespace

std::unique_ptr<Word2vecBackend> make_word2vec_cpu_backend(Model model, RowMatrix& input, RowMatrix& output, unsigned workers,
                                               std::size_t max_inputs_per_window, std::span<const std::uint8_t> locked) {
  return std::make_unique<CpuBackend>(model, input, output, workers, max_inputs_per_window, locked);
}

}  // namespace embed
