#include "kernels/train/kernel_rules.h"

#include "core/error.h"
#include "train/engine/optimizer.h"

namespace embed::cuda {

KernelRuleSpec kernel_rule_of(Optimizer optimizer, std::size_t params, const OptimizerParams& hyper) {
  // The rule's enum is set below; its hyper-parameters in KernelRuleSpec's order.
  KernelRuleSpec spec{KernelRule::sgd, !optimizer_spec(optimizer).concurrent,
                      params,          hyper.beta1,
                      hyper.beta2,     hyper.eps,
                      hyper.rho,       hyper.weight_decay,
                      hyper.lambda,    hyper.power,
                      hyper.t0};
  switch (optimizer) {
    case Optimizer::sgd: spec.rule = KernelRule::sgd; break;
    case Optimizer::adagrad: spec.rule = KernelRule::adagrad; break;
    case Optimizer::rowadagrad: spec.rule = KernelRule::rowadagrad; break;
    case Optimizer::adam: spec.rule = KernelRule::adam; break;
    case Optimizer::adamw: spec.rule = KernelRule::adamw; break;
    case Optimizer::adamax: spec.rule = KernelRule::adamax; break;
    case Optimizer::rmsprop: spec.rule = KernelRule::rmsprop; break;
    case Optimizer::adadelta: spec.rule = KernelRule::adadelta; break;
    case Optimizer::rprop: spec.rule = KernelRule::rprop; break;
    case Optimizer::asgd: spec.rule = KernelRule::asgd; break;
  }
  return spec;
}

}  // namespace embed::cuda
