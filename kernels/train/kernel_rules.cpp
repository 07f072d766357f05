#include "kernels/train/kernel_rules.h"

#include "core/error.h"
#include "train/engine/optimizer.h"

namespace embed::cuda {

KernelRule kernel_rule_of(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::sgd: return KernelRule::sgd;
    case Optimizer::adagrad: return KernelRule::adagrad;
    case Optimizer::rowadagrad: return KernelRule::rowadagrad;
    default: break;
  }
  EMBED_ASSERT(!"an optimizer the GPU kernels do not take");
  return KernelRule::sgd;
}

}  // namespace embed::cuda
