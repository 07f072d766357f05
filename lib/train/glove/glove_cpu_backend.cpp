// GloVe's CPU backend: one record at a time on rows updated in place, Hogwild across
// workers, each step by the optimizer's update rule (train/engine/update_rules.h:
// Stanford GloVe's AdaGrad per element, RowAdagrad, Adam, SGD).
#include "train/glove/glove_cpu_backend.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "core/cpu_isa.h"
#include "core/error.h"
#include "train/engine/update_rule_for.h"
#include "train/glove/glove_error.h"
#include "train/glove/glove_summed_steps.h"

namespace embed {
namespace {

constexpr std::size_t kCpuBlockRecords = 16384;  // between stop checks and progress updates
constexpr std::size_t kPrefetchDistance = 2;     // records

inline float clip(float x) { return std::min(std::max(x, -kGloveGradientClip), kGloveGradientClip); }

// One record's update of the word row w and the context row c (each [vector | bias |
// pad | state]) by `rule` (update_rules.h's element form). Both gradients come from the
// rows' old values (the reference computes both, then applies them); a vector's
// gradient is clipped, a bias's is not, as Stanford GloVe's.
template <typename Rule>
inline __attribute__((always_inline)) void apply_rule(const Rule& rule, float* __restrict w, float* __restrict c, std::size_t dim,
                                                      std::size_t state, float fdiff) {
  float* __restrict state_w = w + state;
  float* __restrict state_c = c + state;
  const auto row_w = rule.begin(state_w);
  const auto row_c = rule.begin(state_c);
  const float scale = rule.gradient_scale(fdiff);
  float sum_w = 0, sum_c = 0;
#pragma omp simd reduction(+ : sum_w, sum_c)
  for (std::size_t k = 0; k < dim; ++k) {
    const float wk = w[k], ck = c[k];
    const float gw = clip(scale * ck);
    const float gc = clip(scale * wk);
    w[k] -= rule.change(row_w, state_w, k, wk, gw, sum_w);
    c[k] -= rule.change(row_c, state_c, k, ck, gc, sum_c);
  }
  rule_end<PlainAdd>(rule, state_w, sum_w, dim);
  rule_end<PlainAdd>(rule, state_c, sum_c, dim);
  w[dim] -= rule_bias_change<PlainAdd>(rule, row_w, state_w, dim, w[dim], scale, fdiff);
  c[dim] -= rule_bias_change<PlainAdd>(rule, row_c, state_c, dim, c[dim], scale, fdiff);
}

template <typename Rule>
inline __attribute__((always_inline)) void train_span(std::span<const GloveRecord> records, RowMatrix& words, RowMatrix& contexts,
                                                      const GloveLayout& layout, const std::uint8_t* locked, const Rule& rule,
                                                      BatchLoss& loss) {
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
    const float diff = glove_error(w, c, dim, r.log_count);
    if (!std::isfinite(diff)) continue;
    const float fdiff = r.weight * diff;
    loss_sum += 0.5 * static_cast<double>(fdiff) * diff;
    ++examples;
    apply_rule(rule, w, c, dim, layout.state(), fdiff);
  }
  loss.sum += loss_sum;
  loss.examples += examples;
}

// Each rule's entry points, one per instruction-set level (core/cpu_isa.h), overloaded
// on the rule's type (Clang multiversions no templates).
#define EMBED_GLOVE_KERNEL(target, isa, Rule)                                                                            \
  target void train_records_##isa(const Rule& rule, std::span<const GloveRecord> records, RowMatrix& words,             \
                                  RowMatrix& contexts, const GloveLayout& layout, const std::uint8_t* locked,           \
                                  BatchLoss& loss) {                                                                    \
    train_span(records, words, contexts, layout, locked, rule, loss);                                                   \
  }
#define EMBED_GLOVE_KERNELS(Rule) EMBED_AT_EACH_ISA(EMBED_GLOVE_KERNEL, Rule)
EMBED_UPDATE_RULES(EMBED_GLOVE_KERNELS)
#undef EMBED_GLOVE_KERNELS
#undef EMBED_GLOVE_KERNEL

template <typename Rule>
void train_records_by(const Rule& rule, std::span<const GloveRecord> records, RowMatrix& words, RowMatrix& contexts,
                      const GloveLayout& layout, const std::uint8_t* locked, BatchLoss& loss) {
  using Loop = void(const Rule&, std::span<const GloveRecord>, RowMatrix&, RowMatrix&, const GloveLayout&, const std::uint8_t*,
                    BatchLoss&);
  version_for<Loop>(cpu_isa(), &train_records_avx512, &train_records_avx2, &train_records_baseline)(rule, records, words, contexts,
                                                                                                    layout, locked, loss);
}

}  // namespace

void train_glove_records(std::span<const GloveRecord> records, RowMatrix& words, RowMatrix& contexts, const GloveLayout& layout,
                         float learning_rate, BatchLoss& loss, std::span<const std::uint8_t> locked) {
  EMBED_ASSERT(words.dim() == layout.width && contexts.dim() == layout.width);
  EMBED_ASSERT(locked.empty() || locked.size() == words.rows());
  const std::uint8_t* lock = locked.empty() ? nullptr : locked.data();
  with_update_rule(layout.optimizer, learning_rate, layout.params, layout.hyper,
                   [&](const auto& rule) { train_records_by(rule, records, words, contexts, layout, lock, loss); });
}

namespace {

class CpuGloveBackend final : public GloveBackend {
 public:
  CpuGloveBackend(RowMatrix& words, RowMatrix& contexts, const GloveLayout& layout, std::span<const std::uint8_t> locked,
                  std::size_t summed_records)
      : words_(words), contexts_(contexts), layout_(layout), locked_(locked), summed_records_(summed_records) {}
  std::string name() const override {
    const std::string cpu = "the CPU (" + std::string(cpu_isa_name(cpu_isa())) + ")";
    return summed_records_ == 0 ? cpu : cpu + ", steps summed over " + std::to_string(summed_records_) + " records";
  }
  void train(std::span<const GloveRecord> records, unsigned worker, float learning_rate, BatchLoss& loss) override {
    if (summed_records_ > 0) {
      summed_steps(worker).train(records, words_, contexts_, learning_rate, locked_.empty() ? nullptr : locked_.data(), loss);
      return;
    }
    train_glove_records(records, words_, contexts_, layout_, learning_rate, loss, locked_);
  }
  // Summed steps take their runs whole: a block holds one at least.
  std::size_t max_block_records() const override { return std::max(kCpuBlockRecords, summed_records_); }

 private:
  RowMatrix& words_;
  RowMatrix& contexts_;
  GloveLayout layout_;
  std::span<const std::uint8_t> locked_;
  std::size_t summed_records_;  // 0: every record steps its rows
  // Per worker, with summed_records_ (made on its first block: the backend is not told
  // how many workers there are).
  std::mutex summed_mutex_;
  std::map<unsigned, GloveSummedSteps> summed_;

  GloveSummedSteps& summed_steps(unsigned worker) {
    std::lock_guard lock(summed_mutex_);
    auto it = summed_.find(worker);
    if (it == summed_.end()) it = summed_.try_emplace(worker, words_.rows(), layout_, summed_records_).first;
    return it->second;
  }
};

}  // namespace

std::unique_ptr<GloveBackend> make_cpu_glove_backend(RowMatrix& words, RowMatrix& contexts, const GloveLayout& layout,
                                                     std::span<const std::uint8_t> locked, std::size_t summed_records) {
  return std::make_unique<CpuGloveBackend>(words, contexts, layout, locked, summed_records);
}

}  // namespace embed
