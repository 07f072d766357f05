// What a build offers for training on a GPU, as plain C++: lib/ never includes CUDA
// headers. The backend registry (lib/backend) fills this in when the CUDA backend was
// built; the train command only sees these functions.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "device/gpu_device.h"
#include "train/engine/optimizer.h"
#include "train/engine/row_matrix.h"
#include "train/glove/glove_backend.h"
#include "train/gpu/gpu_plan.h"
#include "train/gpu/hot_rows.h"
#include "train/gpu/table_traffic.h"
#include "train/word2vec/subword_rows.h"
#include "train/word2vec/word2vec_backend.h"

namespace embed {

struct GpuBackendRequest {
  Model model = Model::skipgram;
  RowMatrix* input = nullptr;   // the host tables: trained in place (host placement) or
  RowMatrix* output = nullptr;  // copied to the device and back (device placement)
  GpuTrainShape shape;          // with an optimizer that keeps state: f32 storage, rows of vector then state
  GpuMemoryPlan plan;
  GpuDevice device;
  TableTraffic* traffic = nullptr;  // the run's counters, or none
  Optimizer optimizer = Optimizer::sgd;
  OptimizerParams hyper = {};  // its hyper-parameters, resolved (Word2vecLayout::hyper)
  // --subwords: each word's input rows (device placement and SGD only), which must outlive
  // the backend; none otherwise.
  const SubwordRows* subwords = nullptr;
  // Host placement: each table's hot rows (most_touched_rows, for 2 x plan.hot_rows rows);
  // when none are given, both tables' first plan.hot_rows.
  std::optional<HotRows> hot_rows = std::nullopt;
};

struct GloveGpuRequest {
  RowMatrix* words = nullptr;                 // W and W̃ on the host (GloveLayout rows), trained in place
  RowMatrix* contexts = nullptr;              // or copied to the device and back, as for word2vec
  GloveLayout layout{0, Optimizer::adagrad};  // its optimizer and hyper-parameters too
  GpuMemoryPlan plan;
  std::size_t summed_records = 0;  // summed steps of so many records (glove_summed_steps.h), or 0
  GpuDevice device;
  TableTraffic* traffic = nullptr;  // the run's counters, or none
};

struct GpuTrainer {
  // Device `ordinal` (--gpu) made current, when it is usable; nullopt with the reason
  // otherwise (no such device, no driver, no code for it).
  std::function<std::optional<GpuDevice>(int ordinal, std::string& why_not)> find_device;
  // The ordinals of the usable devices (those find_device may open).
  std::function<std::vector<int>()> usable_ordinals;
  // Throws embed::Error when the device cannot hold what the plan promised.
  std::function<std::unique_ptr<Word2vecBackend>(const GpuBackendRequest&)> make_backend;
  std::function<std::unique_ptr<GloveBackend>(const GloveGpuRequest&)> make_glove_backend;

  bool built() const { return static_cast<bool>(find_device); }
};

// One log line when --table auto left the tables (`table_bytes`) in host memory because
// they do not fit in `budget`: training is then much slower.
void explain_placement(const GpuOptions& options, const GpuMemoryPlan& plan, std::uint64_t table_bytes, std::uint64_t budget);

}  // namespace embed
