// The optimizer registry: every optimizer embed-train offers, its name, what --help
// says of it, its hyper-parameters and their defaults, and the state it keeps beside
// each row. Its update rule (the arithmetic, once for the CPU and the GPU) is a struct in
// update_rules.h; which models take it, each model's supports() (training_model.h), and
// each model's starting_lr may start it at another rate than the one here (GloVe's):
//   skipgram, cbow  every one on the CPU and the GPU, the GPU's in summed steps where
//                   the rule is not concurrent (sgd by default: word2vec's, the learning
//                   rate falling linearly to lr × 1e-4, as it does for all)
//   glove           every one on the CPU, all but Adam's family on the GPU (adagrad,
//                   Stanford GloVe's, by default)
// A new optimizer is its rule struct, its enumerator and one entry in kOptimizers
// (optimizer.cpp), and its case in the backends that run it (docs/ARCHITECTURE.md).
#pragma once

#include <cstddef>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace embed {

enum class Optimizer { sgd, adagrad, rowadagrad, adam, adamw, adamax, rmsprop, adadelta, rprop, asgd };

// GloVe's old spelling of adagrad and rowadagrad: --adagrad element|row.
enum class AdagradMode { element, row };

// The hyper-parameters an optimizer may take beyond the learning rate. A value not
// given is NaN until resolve_params fills in the optimizer's default.
struct OptimizerParams {
  static constexpr float kUnset = std::numeric_limits<float>::quiet_NaN();
  float beta1 = kUnset;         // --beta1: decay of the first moment (adam, adamw, adamax)
  float beta2 = kUnset;         // --beta2: decay of the second moment (adam, adamw), of the norm (adamax)
  float eps = kUnset;           // --eps: added to the denominator
  float rho = kUnset;           // --rho: decay of the mean square (rmsprop's alpha, adadelta's rho)
  float weight_decay = kUnset;  // --weight-decay: adamw's decoupled decay per unit of lr
  float lambda = kUnset;        // --lambda: asgd's decay term (PyTorch's lambd)
  float power = kUnset;         // --power: the power of asgd's step-size decay (PyTorch's alpha)
  float t0 = kUnset;            // --t0: a row's steps before asgd starts averaging
};

// One hyper-parameter: its option, its metadata key, where it lives, and its range.
struct OptimizerParamSpec {
  std::string_view option;  // "--beta1"
  std::string_view key;     // "beta1", in .emb and checkpoint metadata
  std::string_view help;    // what it is, for --help
  float OptimizerParams::*field;
  double low, high;  // the values the option accepts
};
std::span<const OptimizerParamSpec> optimizer_param_specs();

struct OptimizerSpec {
  Optimizer optimizer;
  std::string_view name;  // --optimizer's spelling, and checkpoints' "optimizer"
  std::string_view help;  // what --optimizer's help says of it, after its name and models
  // Its learning rate when it is not the model's own default optimizer (0: the model's).
  float lr = 0;
  // Its hyper-parameters' defaults; those it takes are the ones that are not NaN.
  OptimizerParams defaults = {};
  // The floats of state beside a row of `params` parameters (a multiple of 16: vector,
  // bias, padding), as its rule in update_rules.h lays them out after them; and a fresh
  // row's state (zeros already there).
  std::size_t (*state_floats)(std::size_t params) = nullptr;
  void (*init_state)(float* state, std::size_t params) = nullptr;
  // Whether its rule keeps its state with atomic adds alone, as the GPU kernels need
  // (its rule's `concurrent`).
  bool concurrent = true;
  // Whether the vectors to write are an average its state keeps, at the state's start, in
  // the parameters' layout (asgd's), rather than the parameters themselves.
  bool averages = false;

  bool takes(const OptimizerParamSpec& param) const;
};

// Every optimizer, in --help's order.
std::span<const OptimizerSpec> optimizers();
const OptimizerSpec& optimizer_spec(Optimizer optimizer);

std::string_view optimizer_name(Optimizer optimizer);  // "sgd", "adagrad", ...
std::optional<Optimizer> parse_optimizer(std::string_view name);
std::vector<std::string> optimizer_names();
std::string_view adagrad_mode_name(AdagradMode mode);  // "element" | "row"
std::optional<AdagradMode> parse_adagrad_mode(std::string_view name);
std::vector<std::string> adagrad_mode_names();

// `given` with every hyper-parameter `optimizer` takes and was not given set to its
// default, and those it does not take unset.
OptimizerParams resolve_params(Optimizer optimizer, const OptimizerParams& given);

// "adam, adamw or adamax": the optimizers that take `param`, for "applies to" messages.
std::string optimizers_taking(const OptimizerParamSpec& param);
// Its --help: "decay of the first moment (adam, adamw, adamax; default 0.9)", with each
// default where they differ.
std::string optimizer_param_help(const OptimizerParamSpec& param);

// SGD's schedule, word2vec's: the rate falls linearly with the items done (words,
// records) to lr × 1e-4 at the end of the last epoch.
inline float linear_decay_learning_rate(float lr, double done, double total) {
  constexpr double kEndFraction = 1e-4;
  const double left = 1.0 - done / (total + 1);
  return lr * static_cast<float>(left > kEndFraction ? left : kEndFraction);
}

}  // namespace embed
