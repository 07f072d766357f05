// GloVe's CPU backend: the update rules of Stanford GloVe's `glove` (AdaGrad per
// element, and our AdaGrad per row, Adam and SGD), one record at a time on rows updated
// in place, Hogwild across workers.
#include "train/glove/glove_cpu_backend.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "core/error.h"

namespace embed {
namespace {

constexpr std::size_t kCpuBlockRecords = 16384;  // between stop checks and progress updates
constexpr std::size_t kPrefetchDistance = 2;        // records

inline float clip(float x) { return std::min(std::max(x, -kGloveGradientClip), kGloveGradientClip); }

// What every update rule needs of one record.
struct RecordStep {
  float* __restrict w;  // the word's row in W
  float* __restrict c;  // the context's row in W̃
  std::size_t dim;
  std::size_t state;     // offset of the optimizer's state in a row
  std::size_t params;    // P (adam's second moments follow its first at state + P)
  float fdiff;           // f(X) × (prediction − log X): the loss's derivative in the prediction
};

// The update rules. Each reads a row's old values for the other row's gradient before
// writing (the reference computes both gradients first, then applies them).
//
// AdaGrad per element is Stanford GloVe's glove.c as it has been since its gradient
// clip (2020): a vector's gradient is clipped, then scaled by the learning rate; a
// bias's is not scaled at all, so the biases step at AdaGrad's rate 1 (upstream pull
// request #209 proposes scaling them and its maintainers found the vectors worse). On
// text8-head the unscaled bias step is what brings WS-353 up to Stanford's figure
// (bench/RESULTS.md, issue 23).
struct AdagradElement {
  static inline __attribute__((always_inline)) void apply(const RecordStep& s, float lr) {
    const float g = s.fdiff;
    float* __restrict gw = s.w + s.state;
    float* __restrict gc = s.c + s.state;
#pragma omp simd
    for (std::size_t k = 0; k < s.dim; ++k) {
      const float tw = clip(g * s.c[k]) * lr;
      const float tc = clip(g * s.w[k]) * lr;
      s.w[k] -= adagrad_step(gw[k], tw);
      s.c[k] -= adagrad_step(gc[k], tc);
    }
    s.w[s.dim] -= adagrad_step(gw[s.dim], g);
    s.c[s.dim] -= adagrad_step(gc[s.dim], g);
  }
};

struct AdagradRow {
  static inline __attribute__((always_inline)) void apply(const RecordStep& s, float lr) {
    const float g = s.fdiff * lr;
    float* __restrict acc_w = s.w + s.state;  // [mean g²(w), g²(b)]
    float* __restrict acc_c = s.c + s.state;
    const float scale_w = 1.0f / std::sqrt(kAdagradStart + acc_w[0]);
    const float scale_c = 1.0f / std::sqrt(kAdagradStart + acc_c[0]);
    float squares_w = 0, squares_c = 0;
#pragma omp simd reduction(+ : squares_w, squares_c)
    for (std::size_t k = 0; k < s.dim; ++k) {
      const float tw = clip(g * s.c[k]);
      const float tc = clip(g * s.w[k]);
      squares_w += tw * tw;
      squares_c += tc * tc;
      s.w[k] -= tw * scale_w;
      s.c[k] -= tc * scale_c;
    }
    acc_w[0] += squares_w / static_cast<float>(s.dim);
    acc_c[0] += squares_c / static_cast<float>(s.dim);
    s.w[s.dim] -= adagrad_step(acc_w[1], g);
    s.c[s.dim] -= adagrad_step(acc_c[1], g);
  }
};

struct Adam {
  // Advances the row's beta powers and returns its step size.
  static inline float row_step_size(float* powers, float lr) {
    powers[0] *= kAdamBeta1;
    powers[1] *= kAdamBeta2;
    return adam_step_size(lr, powers[0], powers[1]);
  }
  static inline __attribute__((always_inline)) void apply(const RecordStep& s, float lr) {
    const float g = s.fdiff;
    float* __restrict mw = s.w + s.state;
    float* __restrict vw = mw + s.params;
    float* __restrict mc = s.c + s.state;
    float* __restrict vc = mc + s.params;
    const float step_w = row_step_size(vw + s.params, lr);
    const float step_c = row_step_size(vc + s.params, lr);
#pragma omp simd
    for (std::size_t k = 0; k < s.dim; ++k) {
      const float gw = clip(g * s.c[k]);
      const float gc = clip(g * s.w[k]);
      s.w[k] -= adam_step(mw[k], vw[k], gw, step_w);
      s.c[k] -= adam_step(mc[k], vc[k], gc, step_c);
    }
    s.w[s.dim] -= adam_step(mw[s.dim], vw[s.dim], g, step_w);
    s.c[s.dim] -= adam_step(mc[s.dim], vc[s.dim], g, step_c);
  }
};

struct Sgd {
  static inline __attribute__((always_inline)) void apply(const RecordStep& s, float lr) {
    const float g = s.fdiff * lr;
#pragma omp simd
    for (std::size_t k = 0; k < s.dim; ++k) {
      const float tw = clip(g * s.c[k]);
      const float tc = clip(g * s.w[k]);
      s.w[k] -= tw;
      s.c[k] -= tc;
    }
    s.w[s.dim] -= g;
    s.c[s.dim] -= g;
  }
};

template <typename Rule>
inline __attribute__((always_inline)) void train_span(std::span<const GloveRecord> records, RowMatrix& words,
                                                      RowMatrix& contexts, const GloveLayout& layout,
                                                      const std::uint8_t* locked, float lr, BatchLoss& loss) {
  const std::size_t dim = layout.dim;
  // A locked word row (--lock-init) is updated in a copy that is thrown away, so that
  // its context row still learns from it through the same update rule.
  std::vector<float> scratch(locked ? layout.width : 0);
  double loss_sum = 0;
  std::uint64_t examples = 0;
  const std::size_t row_bytes = layout.width * sizeof(float);
  for (std::size_t i = 0; i < records.size(); ++i) {
    // The rows of a record a few ahead are fetched while this one trains: records come
    // in random order, so without this every row is a cache miss waited for.
    if (i + kPrefetchDistance < records.size()) {
      const GloveRecord& ahead = records[i + kPrefetchDistance];
      const char* wa = reinterpret_cast<const char*>(words.row(ahead.row));
      const char* ca = reinterpret_cast<const char*>(contexts.row(ahead.column));
      for (std::size_t b = 0; b < row_bytes; b += 64) {
        __builtin_prefetch(wa + b, 1);
        __builtin_prefetch(ca + b, 1);
      }
    }
    const GloveRecord& r = records[i];
    float* __restrict w = words.row(r.row);
    if (locked && locked[r.row]) w = static_cast<float*>(std::memcpy(scratch.data(), w, layout.width * sizeof(float)));
    float* __restrict c = contexts.row(r.column);
    float dot = 0;
#pragma omp simd reduction(+ : dot)
    for (std::size_t k = 0; k < dim; ++k) dot += w[k] * c[k];
    const float diff = dot + w[dim] + c[dim] - r.log_count;
    if (!std::isfinite(diff)) continue;
    const float fdiff = r.weight * diff;
    loss_sum += 0.5 * static_cast<double>(fdiff) * diff;
    ++examples;
    Rule::apply(RecordStep{w, c, dim, layout.state(), layout.params, fdiff}, lr);
  }
  loss.sum += loss_sum;
  loss.examples += examples;
}

#define EMBED_GLOVE_KERNEL(name, Rule)                                                                   \
  __attribute__((target_clones("avx512f", "avx2", "default"))) void name(                               \
      std::span<const GloveRecord> records, RowMatrix& words, RowMatrix& contexts, const GloveLayout& layout, \
      const std::uint8_t* locked, float lr, BatchLoss& loss) {                                           \
    train_span<Rule>(records, words, contexts, layout, locked, lr, loss);                                \
  }
EMBED_GLOVE_KERNEL(train_adagrad_element, AdagradElement)
EMBED_GLOVE_KERNEL(train_adagrad_row, AdagradRow)
EMBED_GLOVE_KERNEL(train_adam, Adam)
EMBED_GLOVE_KERNEL(train_sgd, Sgd)
#undef EMBED_GLOVE_KERNEL

}  // namespace

void train_glove_records(std::span<const GloveRecord> records, RowMatrix& words, RowMatrix& contexts,
                         const GloveLayout& layout, Optimizer optimizer, AdagradMode adagrad, float learning_rate,
                         BatchLoss& loss, std::span<const std::uint8_t> locked) {
  EMBED_ASSERT(words.dim() == layout.width && contexts.dim() == layout.width);
  EMBED_ASSERT(locked.empty() || locked.size() == words.rows());
  const std::uint8_t* lock = locked.empty() ? nullptr : locked.data();
  switch (optimizer) {
    case Optimizer::adagrad:
      if (adagrad == AdagradMode::element) {
        train_adagrad_element(records, words, contexts, layout, lock, learning_rate, loss);
      } else {
        train_adagrad_row(records, words, contexts, layout, lock, learning_rate, loss);
      }
      return;
    case Optimizer::adam: train_adam(records, words, contexts, layout, lock, learning_rate, loss); return;
    case Optimizer::sgd: train_sgd(records, words, contexts, layout, lock, learning_rate, loss); return;
  }
}

namespace {

class CpuGloveBackend final : public GloveBackend {
 public:
  CpuGloveBackend(RowMatrix& words, RowMatrix& contexts, const GloveLayout& layout, Optimizer optimizer,
                  AdagradMode adagrad, std::span<const std::uint8_t> locked)
      : words_(words), contexts_(contexts), layout_(layout), optimizer_(optimizer), adagrad_(adagrad), locked_(locked) {}
  std::string name() const override { return "the CPU"; }
  void train(std::span<const GloveRecord> records, unsigned, float learning_rate, BatchLoss& loss) override {
    train_glove_records(records, words_, contexts_, layout_, optimizer_, adagrad_, learning_rate, loss, locked_);
  }
  std::size_t max_block_records() const override { return kCpuBlockRecords; }

 private:
  RowMatrix& words_;
  RowMatrix& contexts_;
  GloveLayout layout_;
  Optimizer optimizer_;
  AdagradMode adagrad_;
  std::span<const std::uint8_t> locked_;
};

}  // namespace

std::unique_ptr<GloveBackend> make_cpu_glove_backend(RowMatrix& words, RowMatrix& contexts, const GloveLayout& layout,
                                                     Optimizer optimizer, AdagradMode adagrad,
                                                     std::span<const std::uint8_t> locked) {
  return std::make_unique<CpuGloveBackend>(words, contexts, layout, optimizer, adagrad, locked);
}

}  // namespace embed
