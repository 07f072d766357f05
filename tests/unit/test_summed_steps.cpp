// Summed steps (train/word2vec/summed_steps.h, train/glove/glove_summed_steps.h): the CPU
// backends with summed_windows (summed_records) against a reference written from the
// definition (every gradient of a run of windows or records from the rows as the run
// found them, summed per row, then one step per row), and against the per-window
// (per-record) backends where the two must agree.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "train/glove/glove_cpu_backend.h"
#include "train/glove/glove_layout.h"
#include "train/word2vec/logistic_table.h"
#include "train/word2vec/word2vec_backend.h"
#include "train/word2vec/word2vec_layout.h"
#include "train_fixtures.h"

using namespace embed;
using namespace embed::test;

namespace {

// `windows` windows over `rows` rows, each with `inputs` inputs and 5 negatives, drawn so
// that rows repeat within and across windows (a negative may equal the target, or repeat).
WindowBatch overlapping_batch(std::uint32_t windows, std::uint32_t inputs, std::uint32_t rows) {
  WindowBatch b;
  b.learning_rate = 0.05f;
  b.negatives_per_window = 5;
  std::uint32_t next = 7;
  auto draw = [&] { return next = (next * 1103515245u + 12345u) % 2147483648u, next % rows; };
  for (std::uint32_t w = 0; w < windows; ++w) {
    for (std::uint32_t c = 0; c < inputs; ++c) b.inputs.push_back(draw());
    b.input_offsets.push_back(static_cast<std::uint32_t>(b.inputs.size()));
    b.targets.push_back(draw());
    for (int k = 0; k < 5; ++k) b.negatives.push_back(k == 2 ? b.targets.back() : draw());
  }
  return b;
}

// SGD in summed steps of `per_step` windows, from the definition, in double.
void reference(Model model, const WindowBatch& b, std::size_t per_step, RowMatrix& in, RowMatrix& out) {
  const LogisticTable& table = logistic_table();
  const std::size_t dim = in.dim();
  for (std::size_t first = 0; first < b.windows(); first += per_step) {
    std::vector<double> in_sum(in.rows() * dim), out_sum(out.rows() * dim);
    for (std::size_t w = first; w < std::min(b.windows(), first + per_step); ++w) {
      std::vector<std::uint32_t> outputs{b.targets[w]};
      for (std::uint32_t n : b.window_negatives(w)) {
        if (n != b.targets[w]) outputs.push_back(n);
      }
      const auto inputs = b.window_inputs(w);
      auto score = [&](const float* x, std::uint32_t o) {
        double s = 0;
        for (std::size_t k = 0; k < dim; ++k) s += x[k] * out.row(o)[k];
        return static_cast<float>(s);
      };
      if (model == Model::skipgram) {
        for (std::uint32_t c : inputs) {
          for (std::size_t o = 0; o < outputs.size(); ++o) {
            const double g = b.learning_rate * ((o == 0 ? 1.0 : 0.0) - table.sigmoid(score(in.row(c), outputs[o])));
            for (std::size_t k = 0; k < dim; ++k) {
              in_sum[c * dim + k] += g * out.row(outputs[o])[k];
              out_sum[outputs[o] * dim + k] += g * in.row(c)[k];
            }
          }
        }
        continue;
      }
      std::vector<float> mean(dim);
      for (std::uint32_t c : inputs) {
        for (std::size_t k = 0; k < dim; ++k) mean[k] += in.row(c)[k] / static_cast<float>(inputs.size());
      }
      std::vector<double> mean_gradient(dim);
      for (std::size_t o = 0; o < outputs.size(); ++o) {
        const double g = b.learning_rate * ((o == 0 ? 1.0 : 0.0) - table.sigmoid(score(mean.data(), outputs[o])));
        for (std::size_t k = 0; k < dim; ++k) {
          mean_gradient[k] += g * out.row(outputs[o])[k];
          out_sum[outputs[o] * dim + k] += g * mean[k];
        }
      }
      for (std::uint32_t c : inputs) {
        for (std::size_t k = 0; k < dim; ++k) in_sum[c * dim + k] += mean_gradient[k];
      }
    }
    for (std::size_t r = 0; r < in.rows(); ++r) {
      for (std::size_t k = 0; k < dim; ++k) {
        in.row(r)[k] += static_cast<float>(in_sum[r * dim + k]);
        out.row(r)[k] += static_cast<float>(out_sum[r * dim + k]);
      }
    }
  }
}

}  // namespace

TEST_CASE("summed steps take every gradient from the rows as the run of windows found them", "[train]") {
  for (Model model : {Model::skipgram, Model::cbow}) {
    for (std::size_t per_step : {1u, 7u, 64u}) {
      RowMatrix in(50, 37), out(50, 37);
      fill_uniform(in, 1, 0.5f);
      fill_uniform(out, 2, 0.5f);
      RowMatrix ref_in = copy_of(in), ref_out = copy_of(out);
      const WindowBatch batch = overlapping_batch(40, 4, 50);
      BatchLoss loss;
      make_word2vec_cpu_backend(model, in, out, Word2vecLayout(37, Optimizer::sgd), 1, {}, per_step)->train(batch, 0, loss);
      reference(model, batch, per_step, ref_in, ref_out);
      INFO(model_name(model) << ", " << per_step << " windows per step");
      CHECK(max_relative_error(in, ref_in) < 1e-4);
      CHECK(max_relative_error(out, ref_out) < 1e-4);
      CHECK(loss.examples == (model == Model::skipgram ? 160u : 40u));
      CHECK(loss.sum > 0);
    }
  }
}

TEST_CASE("summed steps differ from per-window steps only where rows repeat", "[train]") {
  // Windows of one input over rows of their own: every row is touched once per window, so
  // one summed step is the per-window step, for every optimizer.
  const std::size_t windows = 20, per_window = 7, dim = 37;
  WindowBatch b;
  b.learning_rate = 0.05f;
  b.negatives_per_window = 5;
  for (std::uint32_t w = 0; w < windows; ++w) {
    const auto base = static_cast<std::uint32_t>(w * per_window);
    b.inputs.push_back(base);
    b.input_offsets.push_back(static_cast<std::uint32_t>(b.inputs.size()));
    b.targets.push_back(base + 1);
    for (std::uint32_t k = 0; k < 5; ++k) b.negatives.push_back(base + 2 + k);
  }
  for (const OptimizerSpec& spec : optimizers()) {
    for (Model model : {Model::skipgram, Model::cbow}) {
      const Word2vecLayout layout(dim, spec.optimizer);
      RowMatrix in = make_word2vec_table(windows * per_window, layout, true, 1, 1);
      RowMatrix out = make_word2vec_table(windows * per_window, layout, true, 2, 1);
      RowMatrix summed_in = copy_of(in), summed_out = copy_of(out);
      BatchLoss loss, summed_loss;
      auto per_window_backend = make_word2vec_cpu_backend(model, in, out, layout, 1);
      auto summed_backend = make_word2vec_cpu_backend(model, summed_in, summed_out, layout, 1, {}, 8);
      for (int round = 0; round < 2; ++round) {  // the second steps rows whose state moved
        per_window_backend->train(b, 0, loss);
        summed_backend->train(b, 0, summed_loss);
      }
      INFO(spec.name << ", " << model_name(model));
      // Whole rows: vectors and state. Within 1e-4, not exactly: the per-window loops are
      // cloned for AVX2's fused multiply-adds, and a first RMSprop step divides by the root
      // of a square that one rounding more or less moves (5.5e-5 measured here).
      CHECK(max_relative_error(summed_in, in) < 1e-4);
      CHECK(max_relative_error(summed_out, out) < 1e-4);
      CHECK(summed_loss.sum == Approx(loss.sum).epsilon(1e-6));
    }
  }
  // Rows that repeat: a window of two inputs steps its output rows once, where the
  // per-window backend steps them after each input.
  WindowBatch two = b;
  two.inputs = {0, 7};
  two.input_offsets = {0, 2};
  two.targets = {1};
  two.negatives = {2, 3, 4, 5, 6};
  const Word2vecLayout layout(dim, Optimizer::adam);
  RowMatrix in = make_word2vec_table(14, layout, true, 1, 1), out = make_word2vec_table(14, layout, true, 2, 1);
  RowMatrix summed_in = copy_of(in), summed_out = copy_of(out);
  BatchLoss loss;
  make_word2vec_cpu_backend(Model::skipgram, in, out, layout, 1)->train(two, 0, loss);
  make_word2vec_cpu_backend(Model::skipgram, summed_in, summed_out, layout, 1, {}, 8)->train(two, 0, loss);
  CHECK(max_relative_error(summed_out, out) > 1e-3);
  // Adam's beta1 power: one step of the target's row, where the per-window backend took two.
  const std::size_t powers = 2 * layout.padded();
  CHECK(summed_out.row(1)[layout.padded() + powers] == Approx(0.9f));
  CHECK(out.row(1)[layout.padded() + powers] == Approx(0.81f));
}

TEST_CASE("GloVe's summed steps take every gradient from the rows as the run of records found them", "[train]") {
  const std::size_t dim = 37, rows = 40;
  const GloveLayout layout(dim, Optimizer::sgd);
  std::vector<GloveRecord> records;
  std::uint32_t next = 3;
  auto draw = [&] { return next = (next * 1103515245u + 12345u) % 2147483648u, next % static_cast<std::uint32_t>(rows); };
  for (int i = 0; i < 100; ++i) {
    const float x = 1.0f + static_cast<float>(i % 30);
    records.push_back({draw(), draw(), std::log(x), glove_weight(x, 100, 0.75)});
  }
  const float lr = 0.05f;
  for (std::size_t per_step : {1u, 9u, 100u}) {
    RowMatrix words = make_glove_table(rows, layout, 1, 0, 1), contexts = make_glove_table(rows, layout, 1, 1, 1);
    RowMatrix ref_words = copy_of(words), ref_contexts = copy_of(contexts);
    BatchLoss loss;
    make_cpu_glove_backend(words, contexts, layout, {}, per_step)->train(records, 0, lr, loss);
    // SGD in summed steps from the definition: Stanford's clipped vector gradients and
    // unclipped bias gradients, each from the rows as the run found them, in double.
    for (std::size_t first = 0; first < records.size(); first += per_step) {
      std::vector<double> w_sum(rows * (dim + 1)), c_sum(rows * (dim + 1));
      for (std::size_t i = first; i < std::min(records.size(), first + per_step); ++i) {
        const GloveRecord& r = records[i];
        const float* w = ref_words.row(r.row);
        const float* c = ref_contexts.row(r.column);
        double dot = 0;
        for (std::size_t k = 0; k < dim; ++k) dot += w[k] * c[k];
        const double scaled = lr * r.weight * (dot + w[dim] + c[dim] - r.log_count);
        for (std::size_t k = 0; k < dim; ++k) {
          w_sum[r.row * (dim + 1) + k] += std::clamp(scaled * c[k], -100.0, 100.0);
          c_sum[r.column * (dim + 1) + k] += std::clamp(scaled * w[k], -100.0, 100.0);
        }
        w_sum[r.row * (dim + 1) + dim] += scaled;
        c_sum[r.column * (dim + 1) + dim] += scaled;
      }
      for (std::size_t row = 0; row < rows; ++row) {
        for (std::size_t k = 0; k <= dim; ++k) {
          ref_words.row(row)[k] -= static_cast<float>(w_sum[row * (dim + 1) + k]);
          ref_contexts.row(row)[k] -= static_cast<float>(c_sum[row * (dim + 1) + k]);
        }
      }
    }
    INFO(per_step << " records per step");
    CHECK(max_relative_error(words, ref_words) < 1e-4);
    CHECK(max_relative_error(contexts, ref_contexts) < 1e-4);
    CHECK(loss.examples == records.size());
  }
}

TEST_CASE("GloVe's summed steps are its per-record steps where no row repeats", "[train]") {
  const std::size_t n = 60, dim = 37;
  std::vector<GloveRecord> records;
  for (std::uint32_t i = 0; i < n; ++i) {
    const float x = 1.0f + static_cast<float>(i % 20);
    records.push_back({i, static_cast<std::uint32_t>(n - 1 - i), std::log(x), glove_weight(x, 100, 0.75)});
  }
  for (const OptimizerSpec& spec : optimizers()) {
    const GloveLayout layout(dim, spec.optimizer);
    RowMatrix words = make_glove_table(n, layout, 2, 0, 1), contexts = make_glove_table(n, layout, 2, 1, 1);
    RowMatrix summed_words = copy_of(words), summed_contexts = copy_of(contexts);
    BatchLoss loss, summed_loss;
    auto summed = make_cpu_glove_backend(summed_words, summed_contexts, layout, {}, 16);
    for (int round = 0; round < 2; ++round) {  // the second steps rows whose state moved
      train_glove_records(records, words, contexts, layout, 0.05f, loss);
      summed->train(records, 0, 0.05f, summed_loss);
    }
    INFO(spec.name);
    // Whole rows: vectors, biases, state. The per-record loop is cloned for AVX2, whose
    // dot product sums in another order, and RMSprop's first step divides by the root of
    // a square that the last bits move (1.5e-4 measured here).
    const double tolerance = spec.optimizer == Optimizer::rmsprop ? 1e-3 : 1e-4;
    CHECK(max_relative_error(summed_words, words) < tolerance);
    CHECK(max_relative_error(summed_contexts, contexts) < tolerance);
    CHECK(summed_loss.sum == Approx(loss.sum).epsilon(1e-6));
  }
}
