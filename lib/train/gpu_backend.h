// What a build offers for training on a GPU, as plain C++: lib/ never includes CUDA
// headers. The backend registry (lib/backend) fills this in when the CUDA backend was
// built; the train command only sees these functions.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "train/gpu_plan.h"
#include "train/row_matrix.h"
#include "train/train_backend.h"

namespace embed {

struct GpuDevice {
  int ordinal = 0;
  std::string description;  // "NVIDIA H100 80GB HBM3 (79.1 GiB, sm_90)"
  std::uint64_t free_memory = 0;
};

struct GpuBackendRequest {
  Model model = Model::skipgram;
  RowMatrix* input = nullptr;   // the host tables: trained in place (host placement) or
  RowMatrix* output = nullptr;  // copied to the device and back (device placement)
  GpuTrainShape shape;
  GpuMemoryPlan plan;
  GpuDevice device;
};

struct GpuTrainer {
  // The first usable device, or nullopt with the reason (no device, no driver).
  std::function<std::optional<GpuDevice>(std::string& why_not)> find_device;
  // Throws embed::Error when the device cannot hold what the plan promised.
  std::function<std::unique_ptr<TrainBackend>(const GpuBackendRequest&)> make_backend;

  bool built() const { return static_cast<bool>(find_device); }
};

}  // namespace embed
