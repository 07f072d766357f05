#include "train/engine/optimizer.h"

#include "core/enum_names.h"

namespace embed {

namespace {
constexpr EnumName<Optimizer> kOptimizerNames[] = {
    {Optimizer::sgd, "sgd"}, {Optimizer::adagrad, "adagrad"}, {Optimizer::adam, "adam"}};
constexpr EnumName<AdagradMode> kAdagradModeNames[] = {{AdagradMode::element, "element"}, {AdagradMode::row, "row"}};
}  // namespace

std::string_view optimizer_name(Optimizer optimizer) { return name_in(kOptimizerNames, optimizer); }
std::optional<Optimizer> parse_optimizer(std::string_view name) { return parse_in(kOptimizerNames, name); }

std::string_view adagrad_mode_name(AdagradMode mode) { return name_in(kAdagradModeNames, mode); }
std::optional<AdagradMode> parse_adagrad_mode(std::string_view name) { return parse_in(kAdagradModeNames, name); }
std::vector<std::string> optimizer_names() { return names_in(kOptimizerNames); }
std::vector<std::string> adagrad_mode_names() { return names_in(kAdagradModeNames); }

}  // namespace embed
