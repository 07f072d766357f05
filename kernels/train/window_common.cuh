// What the window kernels share (word2vec_kernels.cu, summed_kernels.cu,
// subword_kernels.cu): the CPU's logistic tables, block-wide sums, which windows of a
// batch a block trains, loading a window's rows (by a block or by a warp), listing its
// outputs, scoring its inputs and asking the L2 cache for rows ahead. For .cu files only.
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

// Calls train(w, last, ids, count) for each window w of this block's (block_windows, which
// end before `last`) that has inputs (window_inputs), in order: the same windows for every
// thread of the block.
template <typename Train>
__device__ inline void for_each_block_window(const KernelBatch& b, Train train) {
  std::uint32_t first_window, last_window;
  block_windows(b.windows, first_window, last_window);
  for (std::uint32_t w = first_window; w < last_window; ++w) {
    const std::uint32_t* ids;
    std::uint32_t count;
    if (window_inputs(b, w, ids, count)) train(w, last_window, ids, count);
  }
}

// Blocks for a batch: each takes a run of at least max_inputs + 1 consecutive windows
// (word2vec_kernels.h says why), and at most `max_blocks` run.
inline unsigned blocks_for(const KernelBatch& batch, unsigned max_blocks) {
  const std::uint32_t runs = std::max<std::uint32_t>(1, batch.windows / (batch.max_inputs + 1));
  return max_blocks == 0 ? runs : std::min<std::uint32_t>(runs, max_blocks);
}

// The block copies the vectors of `count` table rows of `width` elements (the first
// `pairs` element pairs of each) into shared memory as f32, row k at dst[k * stride], and
// where `also` is given there too: one load from the table for both copies, so that they
// hold the same values whatever other blocks' atomics add meanwhile.
template <typename T>
__device__ inline void load_rows(const SplitTable& table, const std::uint32_t* ids, std::uint32_t count, std::uint32_t width,
                                 std::uint32_t stride, std::uint32_t pairs, float* dst, float* also = nullptr) {
  for (std::uint32_t i = threadIdx.x; i < count * pairs; i += blockDim.x) {
    const std::uint32_t k = i / pairs, e = 2 * (i % pairs);
    const float2 v = load_pair(row_at<T>(table, ids[k], width) + e);
    dst[k * stride + e] = v.x;
    dst[k * stride + e + 1] = v.y;
    if (also != nullptr) {
      also[k * stride + e] = v.x;
      also[k * stride + e + 1] = v.y;
    }
  }
}

// One thread lists a step's output rows: `target`, then its K `negatives` other than the
// target (word2vec skips a negative equal to it, fastText draws again), in order.
// first_copy[o] is the first q <= o with the same row (a negative drawn twice). Returns
// whether any row repeats.
__device__ inline bool list_outputs(std::uint32_t target, const std::uint32_t* negatives, std::uint32_t K, std::uint32_t* out_ids,
                                    std::uint32_t* first_copy, std::uint32_t& n_out) {
  out_ids[0] = target;
  first_copy[0] = 0;
  std::uint32_t n = 1;
  bool repeat = false;
  for (std::uint32_t k = 0; k < K; ++k) {
    const std::uint32_t negative = negatives[k];
    if (negative == target) continue;
    first_copy[n] = n;
    for (std::uint32_t o = n; o-- > 1;) {
      if (out_ids[o] == negative) first_copy[n] = o;
    }
    repeat |= first_copy[n] != n;
    out_ids[n++] = negative;
  }
  n_out = n;
  return repeat;
}

// Window w's output rows: its target and the window's negatives (list_outputs above).
__device__ inline bool list_outputs(const KernelBatch& b, std::uint32_t w, std::uint32_t* out_ids, std::uint32_t* first_copy,
                                    std::uint32_t& n_out) {
  const std::uint32_t K = b.negatives_per_window;
  return list_outputs(b.targets[w], b.negatives + std::size_t{w} * K, K, out_ids, first_copy, n_out);
}

// Input c's scores against the window's n_out output rows (out_row(o): its shared copy,
// as the previous inputs left it), a warp per row: the rule's gradient_scale of
// (label - sigmoid) into gradient[o], and the loss into the lane-0 tally `warp_loss`.
template <typename Rule, typename OutRow>
__device__ inline void score_input(const Rule& rule, const float* in_row, OutRow out_row, std::uint32_t n_out, std::uint32_t dim,
                                   const KernelLogistic& logistic, float* gradient, float& warp_loss) {
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  for (std::uint32_t o = warp; o < n_out; o += warps) {
    const float* out = out_row(o);
    float score = 0;
    for (std::uint32_t e = lane; e < dim; e += 32) score += in_row[e] * out[e];
    score = warp_sum(score);
    if (lane == 0) {
      const float label = o == 0 ? 1.0f : 0.0f;
      gradient[o] = rule.gradient_scale(label - sigmoid(score, logistic));
      warp_loss += log_loss(o == 0 ? score : -score, logistic);
    }
  }
}

// A skip-gram window's loss, from each warp's lane-0 tally, into thread 0's block total,
// through the block's `loss_shared`. Every thread calls it; it ends with a barrier, and no
// thread adds to loss_shared again before two more.
__device__ inline void add_window_loss(float warp_loss, float& loss_shared, double& block_loss) {
  if ((threadIdx.x & 31) == 0 && warp_loss != 0) atomicAdd(&loss_shared, warp_loss);
  __syncthreads();
  if (threadIdx.x == 0) {
    block_loss += loss_shared;
    loss_shared = 0;
  }
}

// The block's mean of a window's n_in input rows (of `width` elements of T) into `mean`,
// and `mean_gradient` cleared: CBOW's start of a window. Thread p takes element pairs p,
// p + blockDim.x, ... (of `pairs`), as the window kernels own them.
template <typename T>
__device__ inline void window_mean(const SplitTable& input, const std::uint32_t* in_ids, std::uint32_t n_in, std::uint32_t width,
                                   std::uint32_t pairs, float* mean, float* mean_gradient) {
  const float inv = 1.0f / static_cast<float>(n_in);
  for (std::uint32_t p = threadIdx.x; p < pairs; p += blockDim.x) {
    const std::uint32_t e = 2 * p;
    float2 sum = load_pair(row_at<T>(input, in_ids[0], width) + e);
    for (std::uint32_t c = 1; c < n_in; ++c) {
      const float2 v = load_pair(row_at<T>(input, in_ids[c], width) + e);
      sum.x += v.x;
      sum.y += v.y;
    }
    mean[e] = sum.x * inv;
    mean[e + 1] = sum.y * inv;
    mean_gradient[e] = 0;
    mean_gradient[e + 1] = 0;
  }
}

// What a warp's lanes all take part in: shuffles and __syncwarp over the whole warp.
constexpr unsigned kFullWarp = 0xffffffffu;

// Element pair e, e + 1 (e even) of a row copy in shared memory, as one 8-byte access: a
// warp's lanes reading pairs 2 × lane as two 4-byte accesses each would meet two lanes in
// every bank (lanes l and l + 16), one 8-byte access per lane is served without conflict.
__device__ inline float2& shared_pair(float* row, std::uint32_t e) { return *reinterpret_cast<float2*>(row + e); }
__device__ inline const float2& shared_pair(const float* row, std::uint32_t e) {
  return *reinterpret_cast<const float2*>(row + e);
}

// The warp copies the vectors of `count` table rows of `width` elements (the first `pairs`
// element pairs of each) into shared memory as f32, row k at dst[k * stride], lane l
// taking pairs l, l + 32, ... of every row (the pairs it steps and adds later, so that it
// reads back only what it wrote itself). Eight loads in flight per lane: a lane waiting
// on each row in turn would wait a window's 16 rows' latency one after another.
template <typename T>
__device__ inline void warp_load_rows(const SplitTable& table, const std::uint32_t* ids, std::uint32_t count, std::uint32_t width,
                                      std::uint32_t stride, std::uint32_t pairs, float* dst) {
  constexpr std::uint32_t kInFlight = 8;
  const unsigned lane = threadIdx.x & 31;
  const std::uint32_t own = pairs > lane ? (pairs - lane + 31) / 32 : 0;  // this lane's pairs of each row
  const std::uint32_t items = count * own;
  std::uint32_t row = 0, q = 0;  // the next item: row `row`, the lane's q-th pair
  for (std::uint32_t first = 0; first < items; first += kInFlight) {
    float2 value[kInFlight];
    std::uint32_t at[kInFlight];
#pragma unroll
    for (std::uint32_t j = 0; j < kInFlight; ++j) {
      if (first + j < items) {
        const std::uint32_t e = 2 * (lane + 32 * q);
        value[j] = load_pair(row_at<T>(table, ids[row], width) + e);
        at[j] = row * stride + e;
        if (++q == own) {
          q = 0;
          ++row;
        }
      }
    }
#pragma unroll
    for (std::uint32_t j = 0; j < kInFlight; ++j) {
      if (first + j < items) shared_pair(dst, at[j]) = value[j];
    }
  }
}

// Asks the L2 cache for the rows `ids` of `table` (rows of `width` elements of T), a
// 128-byte line per lane at a time, so that the warp's loads of them a step later find
// them there rather than in the GPU's memory. A prefetch carries no value: the rows are
// still read after every add made before, at the L2, where the atomic adds are made.
template <typename T>
__device__ inline void warp_prefetch_rows(const SplitTable& table, const std::uint32_t* ids, std::uint32_t count,
                                          std::uint32_t width) {
  const unsigned lane = threadIdx.x & 31;
  const std::uint32_t row_bytes = width * sizeof(T), lines = (row_bytes + 127) / 128 + 1;  // +1: a row that starts mid-line
  for (std::uint32_t i = lane; i < count * lines; i += 32) {
    const std::uint32_t r = i / lines, line = i % lines;
    const char* at = reinterpret_cast<const char*>(row_at<T>(table, ids[r], width)) + min(line * 128, row_bytes - 1);
    asm volatile("prefetch.global.L2 [%0];" ::"l"(at));
  }
}

}  // namespace embed::cuda
