// The update rules the training kernels take: the optimizers whose state atomic adds
// can keep (their rule's `concurrent`, train/engine/update_rules.h). Plain C++17, so that
// the kernels' launch headers name a rule without lib/'s C++20 headers.
#pragma once

namespace embed {
enum class Optimizer;
}

namespace embed::cuda {

enum class KernelRule { sgd, adagrad, rowadagrad };

// `optimizer`'s rule, for one that trains on the GPU (train/gpu/gpu_backend.h's
// supports_on_gpu).
KernelRule kernel_rule_of(Optimizer optimizer);

}  // namespace embed::cuda
