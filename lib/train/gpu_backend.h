// What a build offers for training on a GPU, as plain C++: lib/ never includes CUDA
// headers. The backend registry (lib/backend) fills this in when the CUDA backend was
// built; the train command only sees these functions.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "train/glove_backend.h"
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

struct GloveGpuRequest {
  RowMatrix* words = nullptr;     // W and W̃ on the host (GloveLayout rows), trained in place
  RowMatrix* contexts = nullptr;  // or copied to the device and back, as for word2vec
  GloveLayout layout{0, Optimizer::adagrad, AdagradMode::element};
  Optimizer optimizer = Optimizer::adagrad;  // adagrad or sgd (supports_glove_on_gpu)
  AdagradMode adagrad = AdagradMode::element;
  GpuMemoryPlan plan;
  GpuDevice device;
};

// Adam's per-row step counts are a product that concurrent GPU updates of a row
// cannot share without losing steps, so GloVe trains with Adam on the CPU only.
inline bool supports_glove_on_gpu(Optimizer optimizer) { return optimizer != Optimizer::adam; }

struct GpuTrainer {
  // The first usable device, or nullopt with the reason (no device, no driver).
  std::function<std::optional<GpuDevice>(std::string& why_not)> find_device;
  // Throws embed::Error when the device cannot hold what the plan promised.
  std::function<std::unique_ptr<TrainBackend>(const GpuBackendRequest&)> make_backend;
  std::function<std::unique_ptr<GloveBackend>(const GloveGpuRequest&)> make_glove_backend;

  bool built() const { return static_cast<bool>(find_device); }
};

}  // namespace embed
