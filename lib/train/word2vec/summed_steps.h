// Summed steps: skip-gram's and CBOW's gradients over a run of windows, computed from
// the rows as they stand at the run's start, summed per row; then each row the run
// touched takes one step of its optimizer's rule with that sum. This is PyTorch's
// SparseAdam over a minibatch of windows, where the CPU backend otherwise steps the rows
// after every window (and skip-gram's output rows after every input), as word2vec does.
//
// Why: a GPU trains hundreds of windows at once, and a rule whose state is not a sum
// (Adam's decaying moments and bias-correction counts, RMSprop's and Adadelta's means,
// Rprop's step sizes, ASGD's averages) cannot take their steps concurrently: each window
// touching a frequent row took a whole normalised step of it with the state as it was,
// and Adam diverged in every model (bench/RESULTS.md, 2026-11-26). Summed, a row takes
// one step per run of windows, and its state moves once, by one thread. So the GPU
// trains skip-gram and CBOW with those rules this way (summed_windows_on_gpu); the CPU
// backend does when asked (make_word2vec_cpu_backend's summed_windows): the GPU tests'
// reference, and EMBED_SUMMED_WINDOWS=N for measuring what summing costs in quality on
// the CPU.
#pragma once

#include <cstddef>
#include <cstdint>

#include "train/engine/batch_loss.h"
#include "train/engine/optimizer.h"
#include "train/engine/row_sums.h"
#include "train/run/train_settings.h"
#include "train/word2vec/window_batch.h"
#include "train/word2vec/word2vec_layout.h"

namespace embed {

// Windows per summed step on the GPU (bench/RESULTS.md, issue 40, has the quality at
// other sizes, measured on the CPU).
inline constexpr std::size_t kSummedWindows = 1024;

// The windows per summed step skip-gram and CBOW take with `optimizer` on a GPU: 0 (every
// window steps its rows, atomically) for a rule whose state is a sum (sgd, adagrad,
// rowadagrad), else kSummedWindows, or EMBED_SUMMED_WINDOWS where it is set (> 0).
std::size_t summed_windows_on_gpu(Optimizer optimizer);
// EMBED_SUMMED_WINDOWS where it is set (> 0): the CPU then trains summed steps too, for
// measuring them against the GPU; else 0.
std::size_t summed_windows_override();

// The CPU's summed steps for one worker, over tables of `layout`'s rows (input rows
// `locked` 1 never step: --lock-init).
class SummedSteps {
 public:
  SummedSteps(std::size_t input_rows, std::size_t output_rows, const Word2vecLayout& layout, std::size_t windows_per_step);

  // Trains `batch`'s windows in runs of windows_per_step.
  void train(Model model, const WindowBatch& batch, float* input, float* output, const std::uint8_t* locked, BatchLoss& loss);

 private:
  Word2vecLayout layout_;
  std::size_t windows_per_step_;
  RowSums input_sums_, output_sums_;
  std::vector<float> mean_, mean_gradient_;  // CBOW's
};

}  // namespace embed
