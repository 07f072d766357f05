// GloVe's summed steps (the scheme is word2vec's: train/word2vec/summed_steps.h): the
// gradients of a run of records, each from the rows as the run found them (a vector's
// clipped per record, as Stanford's), summed per row of W and of W̃ with the biases'; then
// each row the run touched takes one step of its rule with its sum. The GPU trains GloVe
// so with Adam's family, which diverged with its state written in place by thousands of
// records at once (bench/RESULTS.md, 2026-11-26); the CPU does when asked
// (make_cpu_glove_backend's summed_records): the GPU tests' reference, and
// EMBED_SUMMED_RECORDS=N for measuring what summing costs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "train/engine/batch_loss.h"
#include "train/engine/optimizer.h"
#include "train/engine/row_matrix.h"
#include "train/engine/row_sums.h"
#include "train/glove/glove_layout.h"

namespace embed {

// Records per summed step on the GPU (bench/RESULTS.md, issue 40, has the quality at other
// sizes, measured on the CPU).
inline constexpr std::size_t kSummedRecords = 32768;

// The records per summed step GloVe takes with `optimizer` on a GPU: kSummedRecords (or
// EMBED_SUMMED_RECORDS where it is set, > 0) for Adam's family, else 0 (the kernel steps
// every record; the other rules' state in place, which trains them: docs/embed-train.md).
std::size_t summed_records_on_gpu(Optimizer optimizer);
// EMBED_SUMMED_RECORDS where it is set (> 0): the CPU then trains GloVe in summed steps
// too; else 0.
std::size_t summed_records_override();

// The CPU's summed steps for one worker over tables of `layout`'s rows; word rows that
// `locked` marks 1 (--lock-init) sum nothing and never step.
class GloveSummedSteps {
 public:
  GloveSummedSteps(std::size_t rows, const GloveLayout& layout, std::size_t records_per_step);

  // Trains `records` in runs of records_per_step: 0.5 f(X) (prediction - log X)² per record
  // (from the rows as its run found them) into `loss`.
  void train(std::span<const GloveRecord> records, RowMatrix& words, RowMatrix& contexts, float learning_rate,
             const std::uint8_t* locked, BatchLoss& loss);

 private:
  GloveLayout layout_;
  std::size_t records_per_step_;
  RowSums word_sums_, context_sums_;
};

}  // namespace embed
