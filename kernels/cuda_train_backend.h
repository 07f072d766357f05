// The CUDA word2vec backend behind lib's TrainBackend interface, and the device probe
// the registry hands to the train command (lib/train/gpu_backend.h).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "train/gpu_backend.h"

namespace embed::cuda {

// The first usable device and its free memory; nullopt with the reason otherwise.
std::optional<GpuDevice> find_training_device(std::string& why_not);

std::unique_ptr<TrainBackend> make_cuda_train_backend(const GpuBackendRequest& request);

}  // namespace embed::cuda
