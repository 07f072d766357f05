// The optimizers' update rules (train/engine/update_rules.h) as the training kernels take
// them (kernel_rules.h), built from a run's settings and handed to a callable as their
// own type, so that each kernel is instantiated once per rule. Included by .cu files only.
#pragma once

#include "kernels/train/kernel_rules.h"
#include "train/engine/update_rules.h"

namespace embed::cuda {

// The rules' adds to their state (update_rules.h's PlainAdd), made atomic: each returns
// the value it replaced, which is what a step divides by, so concurrent updates each see
// their own predecessor's value, as in a sequential order. Works on global and shared
// memory alike. A rule whose `concurrent` is false (Adam's moments, its beta powers)
// writes its state in place instead: windows or records that step one row at once may
// then overwrite each other's change to its state, as the CPU's Hogwild threads may.
struct AtomicAdd {
  __device__ static float fetch_add(float& x, float v) { return atomicAdd(&x, v); }
};

// Whether a rule keeps state beside its rows (SGD does not: its kernels need no room for
// it, and its rows may be f16 or bf16).
template <typename Rule>
inline constexpr bool kKeepsState = Rule::state_floats(16) != 0;

// Calls f(rule) with `spec`'s rule struct at learning rate `lr`: the same structs as the
// CPU's with_update_rule (train/engine/update_rule_for.h) builds, from the same values.
template <typename F>
void with_kernel_rule(const KernelRuleSpec& spec, float lr, F&& f) {
  const KernelRuleSpec& h = spec;
  switch (spec.rule) {
    case KernelRule::sgd: return f(SgdRule{lr});
    case KernelRule::adagrad: return f(AdagradRule{lr});
    case KernelRule::rowadagrad: return f(RowAdagradRule{lr});
    case KernelRule::adam: return f(AdamRule{lr, h.params, h.beta1, h.beta2, h.eps});
    case KernelRule::adamw: return f(AdamWRule{lr, h.params, h.beta1, h.beta2, h.eps, h.weight_decay});
    case KernelRule::adamax: return f(AdamaxRule{lr, h.params, h.beta1, h.beta2, h.eps});
    case KernelRule::rmsprop: return f(RmspropRule{lr, h.rho, h.eps});
    case KernelRule::adadelta: return f(AdadeltaRule{lr, h.params, h.rho, h.eps});
    case KernelRule::rprop: return f(RpropRule{lr, h.params, 0.5f, 1.2f, 1e-6f, kRpropLargestSteps * lr});
    case KernelRule::asgd: return f(AsgdRule{lr, h.params, h.lambda, h.power, h.t0});
  }
}

// Every rule, for what must be done once per instantiated kernel (raising its shared
// memory limit): f(KernelRule) for each.
template <typename F>
void for_each_kernel_rule(F&& f) {
  for (KernelRule rule : {KernelRule::sgd, KernelRule::adagrad, KernelRule::rowadagrad, KernelRule::adam, KernelRule::adamw,
                          KernelRule::adamax, KernelRule::rmsprop, KernelRule::adadelta, KernelRule::rprop, KernelRule::asgd}) {
    f(rule);
  }
}

}  // namespace embed::cuda
