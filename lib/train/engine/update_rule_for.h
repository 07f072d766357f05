// The update rule (update_rules.h) of an optimizer in the registry (optimizer.h), built
// from a run's settings and handed to a callable as its own type, so that a backend
// instantiates its loops once per rule from one switch shared by every model.
#pragma once

#include <cstddef>

#include "core/error.h"
#include "train/engine/optimizer.h"
#include "train/engine/update_rules.h"

// Every rule struct, for the CPU backends' target-cloned loops, which are one plain
// function per rule (Clang clones no templates): EMBED_UPDATE_RULES(X) is X(SgdRule) ...
#define EMBED_UPDATE_RULES(X) \
  X(SgdRule)                  \
  X(AdagradRule)              \
  X(RowAdagradRule)           \
  X(AdamRule)                 \
  X(AdamWRule)                \
  X(AdamaxRule)               \
  X(RmspropRule)              \
  X(AdadeltaRule)             \
  X(RpropRule)                \
  X(AsgdRule)

namespace embed {

// Calls f(rule) with `optimizer`'s rule at learning rate `lr`, for rows of `params`
// parameters (where the rule's state starts: update_rules.h) and the hyper-parameters
// `hyper` (resolved: resolve_params).
template <typename F>
void with_update_rule(Optimizer optimizer, float lr, std::size_t params, const OptimizerParams& hyper, F&& f) {
  const OptimizerParams& h = hyper;
  switch (optimizer) {
    case Optimizer::sgd: return f(SgdRule{lr});
    case Optimizer::adagrad: return f(AdagradRule{lr});
    case Optimizer::rowadagrad: return f(RowAdagradRule{lr});
    case Optimizer::adam: return f(AdamRule{lr, params, h.beta1, h.beta2, h.eps});
    case Optimizer::adamw: return f(AdamWRule{lr, params, h.beta1, h.beta2, h.eps, h.weight_decay});
    case Optimizer::adamax: return f(AdamaxRule{lr, params, h.beta1, h.beta2, h.eps});
    case Optimizer::rmsprop: return f(RmspropRule{lr, h.rho, h.eps});
    case Optimizer::adadelta: return f(AdadeltaRule{lr, params, h.rho, h.eps});
    case Optimizer::rprop: return f(RpropRule{lr, params, 0.5f, 1.2f, 1e-6f, kRpropLargestSteps * lr});
    case Optimizer::asgd: return f(AsgdRule{lr, params, h.lambda, h.power, h.t0});
  }
  EMBED_ASSERT(false && "an optimizer without a rule");
}

}  // namespace embed
