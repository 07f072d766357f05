// The CUDA word2vec backend behind lib's Word2vecBackend interface, which the registry
// hands to the train command (lib/train/gpu/gpu_backend.h).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "train/gpu/gpu_backend.h"

namespace embed::cuda {

std::unique_ptr<Word2vecBackend> make_cuda_word2vec_backend(const GpuBackendRequest& request);

}  // namespace embed::cuda
