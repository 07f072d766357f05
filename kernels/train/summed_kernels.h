// Skip-gram's, CBOW's and GloVe's summed steps on the GPU (train/word2vec/summed_steps.h
// has the scheme and why; GloVe's: train/glove/glove_summed_steps.h): word2vec's rules
// whose state is not a sum (Adam's family, RMSprop, Adadelta, Rprop, ASGD) and GloVe's
// Adam family train so. For each run of `windows_per_step` windows of a batch, one
// kernel sums the windows' gradients per row (a block per window, from the rows as the
// run found them; atomic adds into each table's KernelRowSums) and lists each row it
// touches once; a second steps every listed row once by its rule with its sum (a warp
// per row: one writer for the row and its state, so no rule needs atomics) and clears
// the sum. Rows are f32, the rule's state after the padded vector, as the other kernels'
// (word2vec_kernels.h); the sums hold the padded vector's floats.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "kernels/train/glove_kernels.h"
#include "kernels/train/kernel_rules.h"
#include "kernels/train/word2vec_kernels.h"

namespace embed::cuda {

// One table's sums, indexed by the row ids the kernels see (storage.h's SplitTable: the
// whole table, or the hot rows then the slot's copied rows).
// Each sum is the ascent (minus the gradient) of its row's vector, and GloVe's bias after it.
struct KernelRowSums {
  float* sums;            // `stride` floats per row id, zero outside a step
  std::uint32_t* listed;  // per row id: 1 while the row is listed, else 0
  std::uint32_t* rows;    // the listed row ids
  std::uint32_t* count;   // how many are listed, zero outside a step
};

// Shared memory a window needs in the summing kernels (the vectors of its rows alone).
std::size_t summed_shared_bytes(bool skipgram, std::uint32_t max_inputs, std::uint32_t negatives, std::uint32_t stride);
// Lets the summing kernels use up to `bytes` of shared memory per block.
cudaError_t allow_summed_shared_memory(std::size_t bytes);

// Trains `batch` in summed steps of `windows_per_step` windows (skip-gram, or CBOW), each
// row stepped by `rule`; adds the batch's loss to *loss. The tables must be f32 (else
// cudaErrorInvalidValue); their sums zero, as every step leaves them.
cudaError_t launch_summed_steps(bool skipgram, const KernelBatch& batch, const KernelTables& tables,
                                const KernelLogistic& logistic, const KernelRuleSpec& rule, float learning_rate,
                                const KernelRowSums& input_sums, const KernelRowSums& output_sums, std::uint32_t windows_per_step,
                                double* loss, cudaStream_t stream);

// Trains GloVe's `count` records in summed steps of `records_per_step`: a warp per record
// sums, then a warp per row steps its vector and bias; adds the loss and the records
// trained (those with a finite prediction) to *loss and *trained. The sums' rows are
// `tables.state` floats (GloveLayout::params).
cudaError_t launch_glove_summed_steps(const KernelGloveRecord* records, std::uint32_t count, const GloveTables& tables,
                                      const KernelRuleSpec& rule, float learning_rate, const KernelRowSums& word_sums,
                                      const KernelRowSums& context_sums, std::uint32_t records_per_step, double* loss,
                                      unsigned long long* trained, cudaStream_t stream);

}  // namespace embed::cuda
