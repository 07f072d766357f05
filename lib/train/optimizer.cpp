#include "train/optimizer.h"

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
  for (Optimizer optimizer : {Optimizer::sgd, Optimizer::adagrad, Optimizer::adam}) {
    if (name == optimizer_name(optimizer)) return optimizer;
  }
  return std::nullopt;
}

std::string_view adagrad_mode_name(AdagradMode mode) { return mode == AdagradMode::element ? "element" : "row"; }

std::optional<AdagradMode> parse_adagrad_mode(std::string_view name) {
  if (name == "element") return AdagradMode::element;
  if (name == "row") return AdagradMode::row;
  return std::nullopt;
}

}  // namespace embed
