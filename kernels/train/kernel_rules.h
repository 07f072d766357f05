// The update rules the training kernels take: every optimizer of the registry
// (train/engine/optimizer.h), each with its hyper-parameters as the run resolved them.
// Plain C++17, so that the kernels' launch headers name a rule without lib/'s C++20
// headers.
#pragma once

#include <cstddef>

namespace embed {
enum class Optimizer;
struct OptimizerParams;
}  // namespace embed

namespace embed::cuda {

enum class KernelRule { sgd, adagrad, rowadagrad, adam, adamw, adamax, rmsprop, adadelta, rprop, asgd };

// A rule and everything it is built from but the learning rate, which each batch sets
// (with_kernel_rule in kernel_rules.cuh builds it as the CPU's with_update_rule does).
struct KernelRuleSpec {
  KernelRule rule = KernelRule::sgd;
  bool in_place = false;   // its state is written in place, not kept by atomic adds (its `concurrent` is false)
  std::size_t params = 0;  // parameters per row: where the parts of a row's state start
  float beta1 = 0, beta2 = 0, eps = 0, rho = 0, weight_decay = 0, lambda = 0, power = 0, t0 = 0;
};

// `optimizer`'s rule for rows of `params` parameters, with the resolved `hyper`.
KernelRuleSpec kernel_rule_of(Optimizer optimizer, std::size_t params, const OptimizerParams& hyper);

}  // namespace embed::cuda
