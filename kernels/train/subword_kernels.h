// fastText's model on the GPU (--subwords): skip-gram and CBOW whose input vector is the
// average of a word's rows, its own and its n-grams' (lib/train/word2vec/subword_rows.h),
// the rows listed per word in device memory. The arithmetic of the CPU backend
// (subword_cpu_backend.cpp) with SGD, window by window:
//
// - skip-gram in fastText's orientation: the centre word's rows averaged into h; each
//   context word an output against h with that pair's own negatives, the outputs trained
//   one after another (score, h's gradient from the row before its step, the row's
//   step), h moved by the pair's gradient times the word's gain; the centre's rows take
//   the window's summed gradient at its end;
// - CBOW: the context words' rows together (fastText's bag) averaged into h, trained
//   against the centre word and the window's negatives, each row of the bag stepped by
//   the whole gradient. (The CPU backend's SGD keeps a sliding window's word sums instead,
//   the same arithmetic but where two words of a window share a row.)
//
// A block trains a run of consecutive windows, as the word2vec kernels do (the same cap
// on windows in flight), a thread per element pair; skip-gram's block can instead be one
// warp, whose lanes own element pairs lane, lane + 32, ... (SkipgramKernel::warp, under
// EMBED_GPU_SKIPGRAM_KERNEL=warp, for experiments: word2vec_kernels.h says why the
// block kernel is the default), or a warp per output row of each pair, the pair's outputs
// trained at once since they all score against the same h (SkipgramKernel::rows, under
// EMBED_GPU_SKIPGRAM_KERNEL=rows, for experiments, written 2026-11-28 without a GPU; h's
// gradient replayed by the block in the CPU's order). Every add to a table is atomic, so
// that windows training one row at once lose no step. Tables are f32, f16 or bf16 and
// every product is f32. The input table holds the vocabulary's rows, then the buckets';
// with host placement the ids are the batch's local ones (a word: its number in the
// batch's lists; a row: hot or copied, storage.h's SplitTable). Plain structs in, so that
// this header needs nothing from lib/.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

#include "kernels/train/word2vec_kernels.h"

namespace embed::cuda {

// Each vocabulary word's input rows, in device memory: word w's are
// rows[offsets[w], offsets[w + 1]); gains[w] is how far its average moves when each of
// them takes the same step (SubwordRows::gain).
struct KernelSubwords {
  const std::uint32_t* offsets;
  const std::uint32_t* rows;
  const float* gains;
};

// Shared memory the kernels need per block (skip-gram's `kernel`, whose rows kernel needs
// the most): three vectors of `stride` floats, and for skip-gram's warp and rows kernels a
// pair's 1 + `negatives` output rows with their ids.
std::size_t subword_shared_bytes(std::uint32_t stride, std::uint32_t negatives, SkipgramKernel kernel = SkipgramKernel::block);
// Lets the kernels use up to `bytes` of shared memory per block (above the 48 KB default).
cudaError_t allow_subword_shared_memory(std::size_t bytes);

// Skip-gram's batch has each input's (context word's) negatives, negatives_per_window of
// them per input, in the inputs' order; CBOW's the window's. tables.width must equal
// tables.stride (SGD: no state). Adds the batch's loss to *loss (device memory).
cudaError_t launch_subword_skipgram(const KernelBatch& batch, const KernelSubwords& subwords, const KernelTables& tables,
                                    const KernelLogistic& logistic, float learning_rate, double* loss, unsigned max_blocks,
                                    cudaStream_t stream, SkipgramKernel kernel = SkipgramKernel::block);
cudaError_t launch_subword_cbow(const KernelBatch& batch, const KernelSubwords& subwords, const KernelTables& tables,
                                const KernelLogistic& logistic, float learning_rate, double* loss, unsigned max_blocks,
                                cudaStream_t stream);

}  // namespace embed::cuda
