#include "train/optimizer.h"

#include "core/enum_names.h"

namespace embed {

std::string_view optimizer_name(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::sgd: return "sgd";
    case Optimizer::adagrad: return "adagrad";
    case Optimizer::adam: return "adam";
  }
  return "?";
}

std::optional<Optimizer> parse_optimizer(std::string_view name) {
  return parse_by_name(name, {Optimizer::sgd, Optimizer::adagrad, Optimizer::adam}, optimizer_name);
}

std::string_view adagrad_mode_name(AdagradMode mode) { return mode == AdagradMode::element ? "element" : "row"; }

std::optional<AdagradMode> parse_adagrad_mode(std::string_view name) {
  return parse_by_name(name, {AdagradMode::element, AdagradMode::row}, adagrad_mode_name);
}

}  // namespace embed
