// The optimizer registry: a new optimizer is one entry here (optimizer.h).
#include "train/engine/optimizer.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "core/enum_names.h"
#include "core/error.h"
#include "core/word_list.h"
#include "train/engine/update_rules.h"

namespace embed {

namespace {

constexpr OptimizerParamSpec kParams[] = {
    {"--beta1", "beta1", "decay of the mean gradient", &OptimizerParams::beta1, 0.0, 0.999999},
    {"--beta2", "beta2", "decay of the mean square (adamax: of the largest gradient)", &OptimizerParams::beta2, 0.0, 0.999999},
    {"--eps", "eps", "added to the denominator", &OptimizerParams::eps, 1e-12, 1.0},
    {"--rho", "rho", "decay of the mean square (rmsprop's alpha)", &OptimizerParams::rho, 0.0, 0.999999},
    {"--weight-decay", "weight_decay", "decoupled weight decay, per unit of the learning rate", &OptimizerParams::weight_decay,
     0.0, 1.0},
    {"--lambda", "lambda", "decay term (PyTorch's lambd)", &OptimizerParams::lambda, 0.0, 1.0},
    {"--power", "power", "power of the step size's decay with a row's steps (PyTorch's alpha)", &OptimizerParams::power, 0.0,
     1.0},
    {"--t0", "t0", "a row's steps before averaging starts", &OptimizerParams::t0, 0.0, 1e12},
};

template <typename Rule>
constexpr std::size_t state_of(std::size_t params) {
  return Rule::state_floats(params);
}
template <typename Rule>
void init_of(float* state, std::size_t params) {
  Rule::init_state(state, params);
}

// Each entry's defaults are PyTorch's for the same optimizer, and its learning rate the
// one that trained GloVe best on text8-head in a small sweep (docs/embed-train.md).
constexpr OptimizerSpec kOptimizers[] = {
    {.optimizer = Optimizer::sgd,
     .name = "sgd",
     .help = "the learning rate falls linearly, as word2vec's",
     .state_floats = state_of<SgdRule>,
     .init_state = init_of<SgdRule>,
     .concurrent = SgdRule::concurrent},
    {.optimizer = Optimizer::adagrad,
     .name = "adagrad",
     .help = "an accumulator per element, as Stanford GloVe's",
     .state_floats = state_of<AdagradRule>,
     .init_state = init_of<AdagradRule>,
     .concurrent = AdagradRule::concurrent},
    {.optimizer = Optimizer::rowadagrad,
     .name = "rowadagrad",
     .help = "one accumulator per row, as PyTorch-BigGraph's: a row's state is 16 floats, not dim",
     .state_floats = state_of<RowAdagradRule>,
     .init_state = init_of<RowAdagradRule>,
     .concurrent = RowAdagradRule::concurrent},
    {.optimizer = Optimizer::adam,
     .name = "adam",
     .help = "lazy, bias-corrected per row",
     .lr = 0.003f,
     .defaults = {.beta1 = kAdamBeta1, .beta2 = kAdamBeta2, .eps = kAdamEpsilon},
     .state_floats = state_of<AdamRule>,
     .init_state = init_of<AdamRule>,
     .concurrent = AdamRule::concurrent},
    {.optimizer = Optimizer::adamw,
     .name = "adamw",
     .help = "adam with decoupled weight decay",
     .lr = 0.003f,
     .defaults = {.beta1 = kAdamBeta1, .beta2 = kAdamBeta2, .eps = kAdamEpsilon, .weight_decay = 0.01f},
     .state_floats = state_of<AdamWRule>,
     .init_state = init_of<AdamWRule>,
     .concurrent = AdamWRule::concurrent},
    {.optimizer = Optimizer::adamax,
     .name = "adamax",
     .help = "adam with the infinity norm",
     .lr = 0.03f,
     .defaults = {.beta1 = kAdamBeta1, .beta2 = kAdamBeta2, .eps = kAdamEpsilon},
     .state_floats = state_of<AdamaxRule>,
     .init_state = init_of<AdamaxRule>,
     .concurrent = AdamaxRule::concurrent},
    {.optimizer = Optimizer::rmsprop,
     .name = "rmsprop",
     .help = "a decaying mean square per element",
     .lr = 0.003f,
     .defaults = {.eps = 1e-8f, .rho = 0.99f},
     .state_floats = state_of<RmspropRule>,
     .init_state = init_of<RmspropRule>,
     .concurrent = RmspropRule::concurrent},
    {.optimizer = Optimizer::adadelta,
     .name = "adadelta",
     .help = "steps scaled by the mean square of earlier steps",
     .lr = 3.0f,
     .defaults = {.eps = 1e-6f, .rho = 0.9f},
     .state_floats = state_of<AdadeltaRule>,
     .init_state = init_of<AdadeltaRule>,
     .concurrent = AdadeltaRule::concurrent},
    {.optimizer = Optimizer::rprop,
     .name = "rprop",
     .help = "sign steps of a size per element, compared between a row's touches",
     .lr = 0.001f,
     .state_floats = state_of<RpropRule>,
     .init_state = init_of<RpropRule>,
     .concurrent = RpropRule::concurrent},
    {.optimizer = Optimizer::asgd,
     .name = "asgd",
     .help = "averaged sgd: writes the average of a row's values over its steps after --t0",
     .lr = 0.1f,
     .defaults = {.lambda = 1e-4f, .power = 0.75f, .t0 = 1e6f},
     .state_floats = state_of<AsgdRule>,
     .init_state = init_of<AsgdRule>,
     .concurrent = AsgdRule::concurrent,
     .averages = true},
};

constexpr EnumName<AdagradMode> kAdagradModeNames[] = {{AdagradMode::element, "element"}, {AdagradMode::row, "row"}};

}  // namespace

bool OptimizerSpec::takes(const OptimizerParamSpec& param) const { return !std::isnan(defaults.*param.field); }

std::span<const OptimizerParamSpec> optimizer_param_specs() { return kParams; }
std::span<const OptimizerSpec> optimizers() { return kOptimizers; }

const OptimizerSpec& optimizer_spec(Optimizer optimizer) {
  const auto* found = std::find_if(std::begin(kOptimizers), std::end(kOptimizers),
                                   [&](const OptimizerSpec& spec) { return spec.optimizer == optimizer; });
  EMBED_ASSERT(found != std::end(kOptimizers));
  return *found;
}

std::string_view optimizer_name(Optimizer optimizer) { return optimizer_spec(optimizer).name; }

std::optional<Optimizer> parse_optimizer(std::string_view name) {
  for (const OptimizerSpec& spec : kOptimizers) {
    if (spec.name == name) return spec.optimizer;
  }
  return std::nullopt;
}

std::vector<std::string> optimizer_names() {
  std::vector<std::string> names;
  for (const OptimizerSpec& spec : kOptimizers) names.emplace_back(spec.name);
  return names;
}

std::string_view adagrad_mode_name(AdagradMode mode) { return name_in(kAdagradModeNames, mode); }
std::optional<AdagradMode> parse_adagrad_mode(std::string_view name) { return parse_in(kAdagradModeNames, name); }
std::vector<std::string> adagrad_mode_names() { return names_in(kAdagradModeNames); }

OptimizerParams resolve_params(Optimizer optimizer, const OptimizerParams& given) {
  const OptimizerSpec& spec = optimizer_spec(optimizer);
  OptimizerParams resolved;
  for (const OptimizerParamSpec& param : kParams) {
    if (!spec.takes(param)) continue;
    const float value = given.*param.field;
    resolved.*param.field = std::isnan(value) ? spec.defaults.*param.field : value;
  }
  return resolved;
}

std::string optimizer_param_help(const OptimizerParamSpec& param) {
  // "0.9" when the takers agree, else "1e-08 for adam, ...; 1e-06 for adadelta".
  std::vector<std::pair<float, std::string>> defaults;
  std::string takers;
  for (const OptimizerSpec& spec : kOptimizers) {
    if (!spec.takes(param)) continue;
    const float value = spec.defaults.*param.field;
    takers += (takers.empty() ? "" : ", ") + std::string(spec.name);
    auto same = std::find_if(defaults.begin(), defaults.end(), [&](const auto& d) { return d.first == value; });
    if (same == defaults.end()) {
      defaults.emplace_back(value, std::string(spec.name));
    } else {
      same->second += ", " + std::string(spec.name);
    }
  }
  std::string text;
  for (const auto& [value, names] : defaults) {
    text += fmt::format("{}{}{}", text.empty() ? "" : "; ", value, defaults.size() > 1 ? " for " + names : "");
  }
  return fmt::format("{} ({}; default {})", param.help, takers, text);
}

std::string optimizers_taking(const OptimizerParamSpec& param) {
  std::vector<std::string_view> names;
  for (const OptimizerSpec& spec : kOptimizers) {
    if (spec.takes(param)) names.push_back(spec.name);
  }
  return word_list(names, "or");
}

}  // namespace embed
