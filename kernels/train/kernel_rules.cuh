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
// memory alike.
struct AtomicAdd {
  __device__ static float fetch_add(float& x, float v) { return atomicAdd(&x, v); }
};

// Whether a rule keeps state beside its rows (SGD does not: its kernels need no room for
// it, and its rows may be f16 or bf16).
template <typename Rule>
inline constexpr bool kKeepsState = Rule::state_floats(16) != 0;

// Calls f(rule) with `rule`'s struct at learning rate `lr`.
template <typename F>
void with_kernel_rule(KernelRule rule, float lr, F&& f) {
  switch (rule) {
    case KernelRule::sgd: return f(SgdRule{lr});
    case KernelRule::adagrad: return f(AdagradRule{lr});
    case KernelRule::rowadagrad: return f(RowAdagradRule{lr});
  }
}

}  // namespace embed::cuda
