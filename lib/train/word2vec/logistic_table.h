// The logistic function and its log-loss from tables, as word2vec does (an exp per
// score would cost as much as the dot product at dim 100). 8,192 steps over
// [-8, 8]: past ±8 the gradient is within 3.4e-4 of saturation.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>

namespace embed {

class LogisticTable {
 public:
  static constexpr float kRange = 8.0f;
  static constexpr int kSteps = 8192;

  LogisticTable() {
    for (int i = 0; i <= kSteps; ++i) {
      const double x = (static_cast<double>(i) / kSteps * 2.0 - 1.0) * kRange;
      sigmoid_[i] = static_cast<float>(1.0 / (1.0 + std::exp(-x)));
      softplus_neg_[i] = static_cast<float>(std::log1p(std::exp(-x)));
    }
  }
  // 1 / (1 + e^-x)
  __attribute__((always_inline)) float sigmoid(float x) const { return sigmoid_[index(x)]; }
  // -log sigmoid(x) = log(1 + e^-x): the loss of a score x whose label is 1
  // (label 0: loss(-x)).
  __attribute__((always_inline)) float loss(float x) const {
    if (x < -kRange) return -x;
    return softplus_neg_[index(x)];
  }
  // The tables themselves (kSteps + 1 values each), for a GPU backend to copy so that
  // its kernels round exactly as the CPU does.
  const float* sigmoid_values() const { return sigmoid_.data(); }
  const float* loss_values() const { return softplus_neg_.data(); }

 private:
  __attribute__((always_inline)) static int index(float x) {
    // As std::fmin(std::fmax(x, -kRange), kRange), NaN going to -kRange, but inlined:
    // those two are library calls that cost 6% of skip-gram's time.
    if (!(x >= -kRange)) x = -kRange;
    if (x > kRange) x = kRange;
    return static_cast<int>((x + kRange) * (kSteps / (2 * kRange)) + 0.5f);
  }
  std::array<float, kSteps + 1> sigmoid_;
  std::array<float, kSteps + 1> softplus_neg_;
};

// The one table every backend reads (built on first use; call it before starting
// threads that race to it).
inline const LogisticTable& logistic_table() {
  static const LogisticTable table;
  return table;
}

// The gradient scales of a row's 1 + K scored outputs, the first of label 1 and the rest
// label 0: rule.gradient_scale(label - sigmoid(score)) (SGD's: × lr), and their log-losses
// added to loss_sum in order.
template <typename Rule>
__attribute__((always_inline)) inline void output_gradients(const Rule& rule, const float* scores, std::size_t n_out,
                                                            float* gradient, double& loss_sum) {
  const LogisticTable& table = logistic_table();
  for (std::size_t o = 0; o < n_out; ++o) {
    const float label = o == 0 ? 1.0f : 0.0f;
    gradient[o] = rule.gradient_scale(label - table.sigmoid(scores[o]));
    loss_sum += table.loss(o == 0 ? scores[o] : -scores[o]);
  }
}

}  // namespace embed
