// The optimizer registry: every optimizer embed-train offers, its name, what --help
// says of it, the options only it takes, and the state it keeps beside each row. Its
// update rule (the arithmetic, once for the CPU and the GPU) is a struct in
// update_rules.h; which models take it, each model's supports() (training_model.h):
//   skipgram, cbow  sgd (word2vec's: the learning rate falls linearly to lr × 1e-4)
//   glove           adagrad (default; per element, or per row with --adagrad row),
//                   adam (lazy, bias-corrected per row), sgd (linear decay, as above)
// A new optimizer is its rule struct, its enumerator and one entry in kOptimizers
// (optimizer.cpp), and its case in the backends that run it (docs/ARCHITECTURE.md).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace embed {

enum class Optimizer { sgd, adagrad, adam };
// AdaGrad keeps an accumulator per parameter (as Stanford GloVe), or one per row: the
// mean of the row's squared gradients, as PBG's RowAdagrad (about dim times less state).
enum class AdagradMode { element, row };

struct OptimizerSpec {
  Optimizer optimizer;
  std::string_view name;  // --optimizer's spelling, and checkpoints' "optimizer"
  std::string_view help;  // what --optimizer's help says of it, after its name and models
  // The options only it takes: the run refuses them with another optimizer.
  std::span<const std::string_view> options = {};
  // The floats of state beside a row of `params` parameters (a multiple of 16: vector,
  // bias, padding), as its rule in update_rules.h lays them out after them; and a fresh
  // row's state (zeros already there).
  std::size_t (*state_floats)(std::size_t params, AdagradMode adagrad) = nullptr;
  void (*init_state)(float* state, std::size_t params, AdagradMode adagrad) = nullptr;
  // Whether its rule keeps its state with atomic adds alone, as the GPU kernels need
  // (its rule's `concurrent`).
  bool concurrent = true;
};

// Every optimizer, in --help's order.
std::span<const OptimizerSpec> optimizers();
const OptimizerSpec& optimizer_spec(Optimizer optimizer);

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

}  // namespace embed
