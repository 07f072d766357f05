// The optimizer registry: a new optimizer is one entry here (optimizer.h).
#include "train/engine/optimizer.h"

#include <algorithm>

#include "core/enum_names.h"
#include "core/error.h"
#include "train/engine/update_rules.h"

namespace embed {

namespace {

constexpr std::string_view kAdagradOptions[] = {"--adagrad"};

constexpr OptimizerSpec kOptimizers[] = {
    {.optimizer = Optimizer::sgd,
     .name = "sgd",
     .help = "the learning rate falls linearly, as word2vec's",
     .state_floats = [](std::size_t params, AdagradMode) { return SgdRule::state_floats(params); },
     .init_state = [](float* state, std::size_t params, AdagradMode) { SgdRule::init_state(state, params); },
     .concurrent = SgdRule::concurrent},
    {.optimizer = Optimizer::adagrad,
     .name = "adagrad",
     .help = "state per element, as Stanford GloVe, or per row with --adagrad row",
     .options = kAdagradOptions,
     .state_floats =
         [](std::size_t params, AdagradMode adagrad) {
           return adagrad == AdagradMode::element ? AdagradRule::state_floats(params) : RowAdagradRule::state_floats(params);
         },
     .init_state =
         [](float* state, std::size_t params, AdagradMode adagrad) {
           if (adagrad == AdagradMode::element) {
             AdagradRule::init_state(state, params);
           } else {
             RowAdagradRule::init_state(state, params);
           }
         },
     .concurrent = AdagradRule::concurrent && RowAdagradRule::concurrent},
    {.optimizer = Optimizer::adam,
     .name = "adam",
     .help = "lazy, bias-corrected per row; on the CPU only",
     .state_floats = [](std::size_t params, AdagradMode) { return AdamRule::state_floats(params); },
     .init_state = [](float* state, std::size_t params, AdagradMode) { AdamRule::init_state(state, params); },
     .concurrent = AdamRule::concurrent},
};

constexpr EnumName<AdagradMode> kAdagradModeNames[] = {{AdagradMode::element, "element"}, {AdagradMode::row, "row"}};

}  // namespace

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

}  // namespace embed
