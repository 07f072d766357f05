// The CUDA GloVe backend behind lib's GloveBackend interface.
#pragma once

#include <memory>

#include "train/gpu/gpu_backend.h"

namespace embed::cuda {

std::unique_ptr<GloveBackend> make_cuda_glove_backend(const GloveGpuRequest& request);

}  // namespace embed::cuda
