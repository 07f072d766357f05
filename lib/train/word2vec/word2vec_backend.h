// The training step behind one interface, so that the trainer (corpus walking,
// sampling, learning-rate schedule, checkpoints) is the same for every backend:
// a batch of windows → gather the rows it touches → update → scatter them back.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "train/engine/batch_loss.h"
#include "train/engine/row_matrix.h"
#include "train/run/train_settings.h"
#include "train/word2vec/window_batch.h"
#include "train/word2vec/word2vec_layout.h"

namespace embed {

class RowHome;

class Word2vecBackend {
 public:
  virtual ~Word2vecBackend() = default;
  virtual std::string name() const = 0;
  // Trains on every window of `batch`. Called concurrently by the trainer's workers,
  // each with its own `worker` index below the count the backend was made for; rows
  // shared between concurrent batches are updated without locks (Hogwild).
  // A backend may return before the batch is done (a GPU queues it); the loss of
  // such a batch is added to the `loss` of a later call, or of finish().
  virtual void train(const WindowBatch& batch, unsigned worker, BatchLoss& loss) = 0;
  // Waits for `worker`'s batches still in flight and adds their loss. After every
  // worker has finished, the host tables hold (or copy_tables_to_host gives) the result.
  virtual void finish(unsigned /*worker*/, BatchLoss& /*loss*/) {}
  // Brings the host tables up to date when the backend keeps its own copy (a GPU's
  // device-resident tables); called after finish(), before checkpoints and output.
  virtual void copy_tables_to_host() {}
  // Where that copy's rows are for a data-parallel run's rounds (rank_averaging.h), or
  // null when the host tables are the tables (the CPU's).
  virtual RowHome* row_home() { return nullptr; }
  // The most corpus words the trainer puts in one batch (a GPU backend with little
  // device memory asks for smaller batches).
  virtual std::size_t max_batch_words() const { return kDefaultBatchWords; }

  static constexpr std::size_t kDefaultBatchWords = 10000;  // gensim's sentence limit
};

// The CPU backend: updates the rows of `input` and `output` (laid out as `layout` says:
// word2vec_layout.h) in place by its optimizer's rule (train/engine/update_rules.h),
// except the input rows that `locked` (empty, or one flag per row) marks 1 (--lock-init).
// With `summed_windows`, each worker's rows step once per run of that many windows, by
// their summed gradients (summed_steps.h); 0: after every window, as word2vec's.
std::unique_ptr<Word2vecBackend> make_word2vec_cpu_backend(Model model, RowMatrix& input, RowMatrix& output,
                                                           const Word2vecLayout& layout, unsigned workers,
                                                           std::span<const std::uint8_t> locked = {},
                                                           std::size_t summed_windows = 0);
// SGD on plain tables (RowMatrix(rows, dim)), as the tests make them.
inline std::unique_ptr<Word2vecBackend> make_word2vec_cpu_backend(Model model, RowMatrix& input, RowMatrix& output,
                                                                  unsigned workers, std::span<const std::uint8_t> locked = {}) {
  return make_word2vec_cpu_backend(model, input, output, Word2vecLayout(input.dim(), Optimizer::sgd), workers, locked);
}

}  // namespace embed
