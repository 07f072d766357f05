// The CPU backend: Hogwild updates in place, one window at a time.
//
// Skip-gram shares a window's K negatives among its C context rows, as pWord2Vec's
// HogBatch does, so that a window touches 1 + K output rows instead of C × (1 + K).
// The updates themselves go in word2vec's order: a context row's 1 + K scores read the
// output rows as the previous context row left them, and each context row is updated
// before the next is scored. (HogBatch computes all C × (1+K) gradients from the old
// values and adds them at once, so a shared negative takes C stale steps together; on
// text8-head × 8 that cost 0.4 points of analogy accuracy against this order, which is
// no slower: bench/RESULTS.md, issue 23.) --pair-negatives gives each context row its
// own K negatives instead, as word2vec does. Rows are padded to 16 floats, so every loop
// runs over whole vectors. How a row takes its step is the optimizer's update rule
// (train/engine/update_rules.h), whose state sits in the row after the padded vector;
// the loops are instantiated per rule. With summed_windows, the rows step once per run
// of that many windows instead (summed_steps.h).
#include <algorithm>
#include <optional>
#include <type_traits>
#include <vector>

#include "core/cpu_isa.h"
#include "core/error.h"
#include "train/engine/row_ops.h"
#include "train/engine/row_prefetcher.h"
#include "train/engine/update_rule_for.h"
#include "train/word2vec/logistic_table.h"
#include "train/word2vec/summed_steps.h"
#include "train/word2vec/word2vec_backend.h"

namespace embed {
namespace {

struct Tables {
  float* input;
  float* output;
  std::size_t width;           // floats from one row to the next: the padded vector, then the optimizer's state
  std::size_t padded;          // the vector rounded up to 16 floats, where the state starts
  std::size_t dim;             // the vector
  const std::uint8_t* locked;  // per input row, 1: never updated (--lock-init); nullptr: none

  bool updates(std::uint32_t input_row) const { return locked == nullptr || locked[input_row] == 0; }
  // Steps `row` (of either table) by the ascent direction scale × x.
  template <typename Rule>
  __attribute__((always_inline)) void step(const Rule& rule, float* row, float scale, const float* x) const {
    rule_step(rule, row, row + padded, scale, x, dim, padded);
  }
};

// Per worker: one input row's gradient (skip-gram) or the gradient of the inputs' mean
// (CBOW), and CBOW's mean.
struct Scratch {
  std::vector<float> input_grad;  // stride
  std::vector<float> mean;        // CBOW: the inputs' mean (stride)
  RowPrefetcher prefetcher;       // the next window's rows
};

// One context row's step in word2vec's order, against out_rows[0] (the centre word,
// label 1) and out_rows[1, n_out) (negatives, label 0). All 1 + K scores come first:
// word2vec scores them one after another, but its steps between them touch only rows the
// later scores do not read (another output row, and the input's gradient), so this is
// the same arithmetic with independent dots (unless a negative repeats: then both copies
// read its old value). Inlined into each caller's target clone.
template <typename Rule>
__attribute__((always_inline)) inline void train_context_row(const Rule& rule, std::uint32_t input, const std::uint32_t* out_rows,
                                                             std::size_t n_out, const Tables& t, float* input_grad,
                                                             double& loss_sum) {
  const std::size_t width = t.width, n = t.padded;
  float* rows[64];
  float scores[64], gradient[64];
  float* in = t.input + input * width;
  if (n_out == 0) __builtin_unreachable();  // out_rows[0], the centre's row, is always there
  for (std::size_t o = 0; o < n_out; ++o) rows[o] = t.output + out_rows[o] * width;
  dots_of(in, rows, n_out, n, scores);
  output_gradients(rule, scores, n_out, gradient, loss_sum);
  if constexpr (std::is_same_v<Rule, SgdRule>) {
    sgd_context_steps(in, rows, gradient, n_out, n, t.updates(input));  // the steps below, in one pass
  } else {
    scale_copy(gradient[0], rows[0], input_grad, n);
    for (std::size_t o = 1; o < n_out; ++o) axpy(gradient[o], rows[o], input_grad, n);
    for (std::size_t o = 0; o < n_out; ++o) t.step(rule, rows[o], gradient[o], in);
    if (t.updates(input)) t.step(rule, in, 1.0f, input_grad);
  }
}

// Skip-gram with the window's negatives shared by its context rows.
template <typename Rule>
__attribute__((always_inline)) inline void train_skipgram(const Rule& rule, const WindowBatch& batch, const Tables& t, Scratch& s,
                                                          BatchLoss& loss) {
  double loss_sum = 0;
  std::uint32_t out_rows[64];
  for (std::size_t w = 0; w < batch.windows(); ++w) {
    const auto inputs = batch.window_inputs(w);
    const std::uint32_t target = batch.targets[w];
    out_rows[0] = target;
    std::size_t n_out = 1;
    for (std::uint32_t negative : batch.window_negatives(w)) {
      if (negative != target) out_rows[n_out++] = negative;
    }
    // The next window's rows, over this window's context rows.
    s.prefetcher.start_window(t.padded);
    if (w + 1 < batch.windows()) {
      s.prefetcher.add(t.output + std::size_t{batch.targets[w + 1]} * t.width);
      for (std::uint32_t negative : batch.window_negatives(w + 1)) s.prefetcher.add(t.output + std::size_t{negative} * t.width);
      for (std::uint32_t input : batch.window_inputs(w + 1)) s.prefetcher.add(t.input + std::size_t{input} * t.width);
    }
    s.prefetcher.spread_over(inputs.size());
    for (const std::uint32_t input : inputs) {
      s.prefetcher.step(t.padded);
      train_context_row(rule, input, out_rows, n_out, t, s.input_grad.data(), loss_sum);
    }
    loss.examples += inputs.size();
  }
  loss.sum += loss_sum;
}

// --pair-negatives: word2vec's own sampling, each context row with its own K negatives.
// A pair reads K output rows of its own, which do not stay in cache across the window:
// slower.
template <typename Rule>
__attribute__((always_inline)) inline void train_skipgram_pair_negatives(const Rule& rule, const WindowBatch& batch,
                                                                         const Tables& t, Scratch& s, BatchLoss& loss) {
  double loss_sum = 0;
  std::uint32_t out_rows[64];
  for (std::size_t w = 0; w < batch.windows(); ++w) {
    const std::size_t first = batch.input_offsets[w];
    const auto inputs = batch.window_inputs(w);
    const std::uint32_t target = batch.targets[w];
    out_rows[0] = target;
    for (std::size_t c = 0; c < inputs.size(); ++c) {
      std::size_t n_out = 1;
      for (std::uint32_t negative : batch.input_negatives(first + c)) {
        if (negative != target) out_rows[n_out++] = negative;
      }
      train_context_row(rule, inputs[c], out_rows, n_out, t, s.input_grad.data(), loss_sum);
    }
    loss.examples += inputs.size();
  }
  loss.sum += loss_sum;
}

// CBOW's output rows with SGD, none listed twice: rows[0] the centre's (label 1), the
// others negatives. Their scores against the mean (several rows at a time), then the
// steps and the mean's gradient in one pass (sgd_output_steps).
__attribute__((always_inline)) inline void train_cbow_outputs(const SgdRule& rule, float* const* rows, std::size_t n_out,
                                                              const float* mean, float* mean_grad, std::size_t n,
                                                              RowPrefetcher& prefetcher, double& loss_sum) {
  float scores[64], gradient[64];
  dots_of(mean, rows, n_out, n, scores);
  for (std::size_t o = 0; o < n_out; ++o) prefetcher.step(n);
  output_gradients(rule, scores, n_out, gradient, loss_sum);
  sgd_output_steps(rows, gradient, n_out, mean, mean_grad, n);
}

// CBOW as word2vec does it: the mean of the context rows predicts the centre word; the
// gradient of the mean is added, unscaled, to every context row.
template <typename Rule>
__attribute__((always_inline)) inline void train_cbow(const Rule& rule, const WindowBatch& batch, const Tables& t, Scratch& s,
                                                      BatchLoss& loss) {
  const LogisticTable& table = logistic_table();
  const std::size_t width = t.width, n = t.padded;
  double loss_sum = 0;
  float* mean = s.mean.data();
  float* mean_grad = s.input_grad.data();
  for (std::size_t w = 0; w < batch.windows(); ++w) {
    const auto inputs = batch.window_inputs(w);
    if (inputs.empty()) continue;
    const std::uint32_t target = batch.targets[w];
    // The next window's rows, over this window's output steps: its centre's and negatives'
    // output rows are mostly far apart in the table; most of its inputs are this window's.
    s.prefetcher.start_window(n);
    if (w + 1 < batch.windows()) {
      s.prefetcher.add(t.output + std::size_t{batch.targets[w + 1]} * width);
      for (std::uint32_t negative : batch.window_negatives(w + 1)) s.prefetcher.add(t.output + std::size_t{negative} * width);
      for (std::uint32_t input : batch.window_inputs(w + 1)) s.prefetcher.add(t.input + std::size_t{input} * width);
    }
    s.prefetcher.spread_over(1 + batch.negatives_per_window);
    scale_copy(1.0f, t.input + inputs[0] * width, mean, n);
    for (std::size_t c = 1; c < inputs.size(); ++c) axpy(1.0f, t.input + inputs[c] * width, mean, n);
    const float inv = 1.0f / static_cast<float>(inputs.size());
#pragma omp simd
    for (std::size_t i = 0; i < n; ++i) mean[i] *= inv;
    std::fill(mean_grad, mean_grad + n, 0.0f);

    // Always inlined, as every loop here: a lambda is a function of its own, which GCC had
    // kept out of line and compiled for the baseline alone (CBOW ran SSE2 on every CPU).
    auto train_output = [&](std::uint32_t row, float label) __attribute__((always_inline)) {
      s.prefetcher.step(n);
      float* out = t.output + row * width;
      const float score = dot(mean, out, n);
      const float g = rule.gradient_scale(label - table.sigmoid(score));
      loss_sum += table.loss(label > 0 ? score : -score);
      if constexpr (std::is_same_v<Rule, SgdRule>) {
        sgd_output_step(out, g, mean, mean_grad, n);
      } else {
        axpy(g, out, mean_grad, n);
        t.step(rule, out, g, mean);
      }
    };
    bool scored_first = false;
    if constexpr (std::is_same_v<Rule, SgdRule>) {
      // SGD: when no row repeats (a negative drawn twice), every row's score is the same
      // before the others' steps as after, so the scores come first, several rows at a
      // time, and the steps in one pass: the sequential loop's arithmetic.
      float* rows[64];
      std::size_t n_out = 0;
      rows[n_out++] = t.output + std::size_t{target} * width;
      for (std::uint32_t negative : batch.window_negatives(w)) {
        if (negative != target) rows[n_out++] = t.output + std::size_t{negative} * width;
      }
      scored_first = !has_repeat(rows, n_out);
      if (scored_first) train_cbow_outputs(rule, rows, n_out, mean, mean_grad, n, s.prefetcher, loss_sum);
    }
    if (!scored_first) {
      train_output(target, 1.0f);
      for (std::uint32_t negative : batch.window_negatives(w)) {
        if (negative != target) train_output(negative, 0.0f);
      }
    }
    for (std::uint32_t row : inputs) {
      if (t.updates(row)) t.step(rule, t.input + row * width, 1.0f, mean_grad);
    }
    ++loss.examples;
  }
  loss.sum += loss_sum;
}

// A batch of windows, with the model's loop.
template <typename Rule>
__attribute__((always_inline)) inline void train_batch(const Rule& rule, Model model, const WindowBatch& batch, const Tables& t,
                                                       Scratch& s, BatchLoss& loss) {
  if (model == Model::skipgram && batch.negatives_per_input) {
    train_skipgram_pair_negatives(rule, batch, t, s, loss);
  } else if (model == Model::skipgram) {
    train_skipgram(rule, batch, t, s, loss);
  } else {
    train_cbow(rule, batch, t, s, loss);
  }
}

// Each rule's entry points, one per instruction-set level (core/cpu_isa.h) with the loops
// above inlined into each: one function per rule, overloaded on its type, since Clang
// does not multiversion templates.
#define EMBED_WORD2VEC_LOOP(target, isa, Rule)                                                                   \
  target void train_batch_##isa(const Rule& rule, Model model, const WindowBatch& batch, const Tables& t, Scratch& s, \
                                BatchLoss& loss) {                                                               \
    train_batch(rule, model, batch, t, s, loss);                                                                 \
  }
#define EMBED_WORD2VEC_LOOPS(Rule) EMBED_AT_EACH_ISA(EMBED_WORD2VEC_LOOP, Rule)
EMBED_UPDATE_RULES(EMBED_WORD2VEC_LOOPS)
#undef EMBED_WORD2VEC_LOOPS
#undef EMBED_WORD2VEC_LOOP

template <typename Rule>
void train_batch_by(CpuIsa isa, const Rule& rule, Model model, const WindowBatch& batch, const Tables& t, Scratch& s,
                    BatchLoss& loss) {
  using Loop = void(const Rule&, Model, const WindowBatch&, const Tables&, Scratch&, BatchLoss&);
  version_for<Loop>(isa, &train_batch_avx512, &train_batch_avx2, &train_batch_baseline)(rule, model, batch, t, s, loss);
}

class CpuBackend final : public Word2vecBackend {
 public:
  CpuBackend(Model model, RowMatrix& input, RowMatrix& output, const Word2vecLayout& layout, unsigned workers,
             std::span<const std::uint8_t> locked, std::size_t summed_windows)
      : model_(model),
        layout_(layout),
        tables_{input.data(),    output.data(), input.stride(),
                layout.padded(), layout.dim,    locked.empty() ? nullptr : locked.data()},
        summed_windows_(summed_windows) {
    EMBED_ASSERT(input.stride() == output.stride() && input.rows() == output.rows());
    EMBED_ASSERT(input.stride() == layout.width());
    EMBED_ASSERT(locked.empty() || locked.size() == input.rows());
    rows_ = input.rows();
    scratch_.resize(workers);
    summed_.resize(workers);
    logistic_table();  // build the table before workers race to it
  }
  std::string name() const override {
    const std::string cpu = "cpu (" + std::string(cpu_isa_name(isa_)) + ")";
    return summed_windows_ == 0 ? cpu : cpu + ", steps summed over " + std::to_string(summed_windows_) + " windows";
  }

  void train(const WindowBatch& batch, unsigned worker, BatchLoss& loss) override {
    EMBED_ASSERT(worker < scratch_.size());
    EMBED_ASSERT(batch.negatives_per_window < 63);
    if (summed_windows_ > 0) {
      std::optional<SummedSteps>& summed = summed_[worker];
      if (!summed) summed.emplace(rows_, rows_, layout_, summed_windows_);
      summed->train(model_, batch, tables_.input, tables_.output, tables_.locked, loss);
      return;
    }
    Scratch& s = scratch_[worker];
    if (s.input_grad.empty()) {
      s.input_grad.assign(tables_.padded, 0.0f);
      s.mean.assign(tables_.padded, 0.0f);
    }
    with_update_rule(layout_.optimizer, batch.learning_rate, layout_.padded(), layout_.hyper,
                     [&](const auto& rule) { train_batch_by(isa_, rule, model_, batch, tables_, s, loss); });
  }

 private:
  Model model_;
  CpuIsa isa_ = cpu_isa();
  Word2vecLayout layout_;
  Tables tables_;
  std::vector<Scratch> scratch_;
  std::size_t summed_windows_;                      // 0: every window steps its rows
  std::size_t rows_ = 0;                            // of each table
  std::vector<std::optional<SummedSteps>> summed_;  // per worker, with summed_windows_
};

}  // namespace

std::unique_ptr<Word2vecBackend> make_word2vec_cpu_backend(Model model, RowMatrix& input, RowMatrix& output,
                                                           const Word2vecLayout& layout, unsigned workers,
                                                           std::span<const std::uint8_t> locked, std::size_t summed_windows) {
  return std::make_unique<CpuBackend>(model, input, output, layout, workers, locked, summed_windows);
}

}  // namespace embed
