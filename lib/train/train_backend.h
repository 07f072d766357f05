// The training step behind one interface, so that the trainer (corpus walking,
// sampling, learning-rate schedule, checkpoints) is the same for every backend:
// a batch of windows → gather the rows it touches → update → scatter them back.
#pragma once

#include <memory>
#include <string>

#include "train/row_matrix.h"
#include "train/train_settings.h"
#include "train/window_batch.h"

namespace embed {

class TrainBackend {
 public:
  virtual ~TrainBackend() = default;
  virtual std::string name() const = 0;
  // Trains on every window of `batch`. Called concurrently by the trainer's workers,
  // each with its own `worker` index below the count the backend was made for; rows
  // shared between concurrent batches are updated without locks (Hogwild).
  virtual void train(const WindowBatch& batch, unsigned worker, BatchLoss& loss) = 0;
};

// The CPU backend: updates the rows of `input` and `output` in place.
std::unique_ptr<TrainBackend> make_cpu_backend(Model model, RowMatrix& input, RowMatrix& output, unsigned workers,
                                               std::size_t max_inputs_per_window);

}  // namespace embed
