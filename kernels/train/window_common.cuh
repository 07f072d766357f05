// What the window kernels share (word2vec_kernels.cu, subword_kernels.cu): the CPU's
// logistic tables, block-wide sums, and which windows of a batch a block trains. For .cu
// files only.
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/common/storage.cuh"
#include "kernels/common/warp_sum.cuh"
#include "kernels/train/word2vec_kernels.h"

namespace embed::cuda {

// The CPU's LogisticTable lookups, rounding the same way.
__device__ inline int logistic_index(float x, const KernelLogistic& l) {
  x = fminf(fmaxf(x, -l.range), l.range);
  return static_cast<int>(__fadd_rn(__fmul_rn(__fadd_rn(x, l.range), l.steps / (2 * l.range)), 0.5f));
}
__device__ inline float sigmoid(float x, const KernelLogistic& l) { return l.sigmoid[logistic_index(x, l)]; }
__device__ inline float log_loss(float x, const KernelLogistic& l) { return x < -l.range ? -x : l.loss[logistic_index(x, l)]; }

// The sum over the block of every thread's `v`, returned to all threads. `partial`
// holds one float per warp.
__device__ inline float block_sum(float v, float* partial) {
  v = warp_sum(v);
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  float total = 0;
  for (unsigned w = 0; w < (blockDim.x >> 5); ++w) total += partial[w];
  __syncthreads();  // before `partial` is reused
  return total;
}

// The dot product of a stored row and a block's f32 vector `x`, over the block: thread p
// takes element pairs p, p + blockDim.x, ... (of `pairs`), as the window kernels own them.
template <typename T>
__device__ inline float block_dot(const T* row, const float* x, std::uint32_t pairs, float* partial) {
  float part = 0;
  for (std::uint32_t p = threadIdx.x; p < pairs; p += blockDim.x) {
    const float2 v = load_pair(row + 2 * p);
    part += x[2 * p] * v.x + x[2 * p + 1] * v.y;
  }
  return block_sum(part, partial);
}

// The windows [first, last) this block trains: consecutive windows, an equal share of
// the batch's, so that the block trains a stretch of the corpus in order, as a CPU
// thread does.
__device__ inline void block_windows(std::uint32_t windows, std::uint32_t& first, std::uint32_t& last) {
  const std::uint32_t per_block = (windows + gridDim.x - 1) / gridDim.x;
  first = min(windows, blockIdx.x * per_block);
  last = min(windows, first + per_block);
}

// Window w's input rows: their ids and count. False when it has none.
__device__ inline bool window_inputs(const KernelBatch& b, std::uint32_t w, const std::uint32_t*& ids, std::uint32_t& count) {
  const std::uint32_t first = b.offsets[w];
  count = b.offsets[w + 1] - first;
  ids = b.inputs + first;
  return count > 0;
}

// Blocks for a batch: each takes a run of at least max_inputs + 1 consecutive windows
// (word2vec_kernels.h says why), and at most `max_blocks` run.
inline unsigned blocks_for(const KernelBatch& batch, unsigned max_blocks) {
  const std::uint32_t runs = std::max<std::uint32_t>(1, batch.windows / (batch.max_inputs + 1));
  return max_blocks == 0 ? runs : std::min<std::uint32_t>(runs, max_blocks);
}

}  // namespace embed::cuda
