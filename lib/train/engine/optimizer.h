// The optimizers embed-train offers, and their update rules, in one place.
//
// Every optimizer here is sparse: its state lives beside the parameters of each row,
// and only the rows a step touches pay for state updates (lazy AdaGrad and Adam).
// Which models take which optimizer (each model's supports(), training_model.h):
//   skipgram, cbow  sgd (word2vec's: the learning rate falls linearly to lr × 1e-4)
//   glove           adagrad (default; per element, or per row with --adagrad row),
//                   adam (lazy, bias-corrected per row), sgd (linear decay, as above)
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "train/engine/update_constants.h"

namespace embed {

enum class Optimizer { sgd, adagrad, adam };
// AdaGrad keeps an accumulator per parameter (as Stanford GloVe), or one per row: the
// mean of the row's squared gradients, as PBG's RowAdagrad (about dim times less state).
enum class AdagradMode { element, row };

std::string_view optimizer_name(Optimizer optimizer);  // "sgd" | "adagrad" | "adam"
std::optional<Optimizer> parse_optimizer(std::string_view name);
std::string_view adagrad_mode_name(AdagradMode mode);  // "element" | "row"
std::optional<AdagradMode> parse_adagrad_mode(std::string_view name);
std::vector<std::string> optimizer_names();
std::vector<std::string> adagrad_mode_names();

// SGD's schedule, word2vec's: the rate falls linearly with the items done (words,
// records) to lr × 1e-4 at the end of the last epoch.
inline float linear_decay_learning_rate(float lr, double done, double total) {
  constexpr double kEndFraction = 1e-4;
  const double left = 1.0 - done / (total + 1);
  return lr * static_cast<float>(left > kEndFraction ? left : kEndFraction);
}

// AdaGrad as Stanford GloVe applies it: `scaled` is the gradient already multiplied by
// the learning rate (and clipped); the step divides it by the root of 1 plus the
// accumulated squares of earlier such values (the reference starts its accumulators
// at 1). The accumulator holds the sum without that 1: in float, squares of order
// 1e-9 added to 1.0 would round away, and Stanford's doubles keep them.
inline float adagrad_step(float& accumulator, float scaled) {
  const float step = scaled / std::sqrt(kAdagradStart + accumulator);
  accumulator += scaled * scaled;
  return step;
}

// Adam (Kingma & Ba) with the usual constants, applied lazily: a row's moments move
// only when the row is touched, and bias correction uses the row's own step count, as
// DGL's sparse Adam does (a global count would over-correct rare rows).
inline constexpr float kAdamBeta1 = 0.9f;
inline constexpr float kAdamBeta2 = 0.999f;
inline constexpr float kAdamEpsilon = 1e-8f;

// The bias-corrected step size, from beta1^t and beta2^t after the row's t-th update
// (kept per row as two numbers, so the inner loop needs no pow).
inline float adam_step_size(float lr, float beta1_power, float beta2_power) {
  return lr * std::sqrt(1 - beta2_power) / (1 - beta1_power);
}

// Updates the moments with `gradient` and returns the step to subtract.
inline float adam_step(float& mean, float& variance, float gradient, float step_size) {
  mean = kAdamBeta1 * mean + (1 - kAdamBeta1) * gradient;
  variance = kAdamBeta2 * variance + (1 - kAdamBeta2) * gradient * gradient;
  return step_size * mean / (std::sqrt(variance) + kAdamEpsilon);
}

}  // namespace embed
