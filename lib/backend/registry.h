// What compute backends this build has. The only file in lib/ that knows whether
// CUDA was built (EMBED_HAVE_CUDA); everything else asks here.
#pragma once

#include <string>

#include "search/gpu_index.h"
#include "train/gpu/gpu_backend.h"

namespace embed {

// True when this build includes the CUDA backend (nvcc was found at configure time).
bool cuda_built();

// One line for --version: "CPU; CUDA backend built, 1 device: NVIDIA H100 80GB HBM3 (79.1 GiB,
// sm_90); GPU code for sm_80, ...", "CPU; CUDA backend built, no usable device (why); GPU code
// for ..." or "CPU only (built without CUDA)".
std::string backend_summary();

// Every usable GPU with its --gpu number, for --version's "gpus:" line:
// "0 NVIDIA H100 80GB HBM3 (79.1 GiB, sm_90); 1 ...", or "none (why)".
std::string gpu_summary();

// The GPU trainer of this build: empty functions when it was built without CUDA.
GpuTrainer gpu_trainer();

// The GPU searcher of this build (embed-query): empty functions when it was built without CUDA.
GpuSearcher gpu_searcher();

}  // namespace embed
