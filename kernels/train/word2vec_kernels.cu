#include "kernels/train/word2vec_kernels.h"

#include <algorithm>
#include <type_traits>

#include "kernels/common/storage.cuh"
#include "kernels/common/warp_sum.cuh"
#include "train/engine/update_rules.h"

namespace embed::cuda {
namespace {

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

// The block copies `count` table rows (the first `pairs` element pairs of each) into
// shared memory as f32, row k at dst[k * stride].
template <typename T>
__device__ inline void load_rows(const SplitTable& table, const std::uint32_t* ids, std::uint32_t count, std::uint32_t stride,
                                 std::uint32_t pairs, float* dst) {
  for (std::uint32_t i = threadIdx.x; i < count * pairs; i += blockDim.x) {
    const std::uint32_t k = i / pairs, e = 2 * (i % pairs);
    const float2 v = load_pair(row_at<T>(table, ids[k], stride) + e);
    dst[k * stride + e] = v.x;
    dst[k * stride + e + 1] = v.y;
  }
}

// Element pair e of row `to_id` of `table` gets Σ_f weight(f) × from_rows[f], the f
// in order (the CPU's order of float sums).
template <typename T, typename Weight>
__device__ inline void add_weighted_row(const SplitTable& table, std::uint32_t to_id, const float* from_rows,
                                        std::uint32_t from_count, std::uint32_t stride, std::uint32_t e, Weight weight) {
  float a = 0, b = 0;
  for (std::uint32_t f = 0; f < from_count; ++f) {
    const float g = weight(f);
    a += g * from_rows[f * stride + e];
    b += g * from_rows[f * stride + e + 1];
  }
  add_pair(row_at<T>(table, to_id, stride) + e, a, b);
}

// The windows [first, last) this block trains: consecutive windows, an equal share of
// the batch's, so that the block trains a stretch of the corpus in order, as a CPU
// thread does.
__device__ inline void block_windows(std::uint32_t windows, std::uint32_t& first, std::uint32_t& last) {
  const std::uint32_t per_block = (windows + gridDim.x - 1) / gridDim.x;
  first = min(windows, blockIdx.x * per_block);
  last = min(windows, first + per_block);
}

// Rule: the optimizer's update rule (train/engine/update_rules.h), as on the CPU. Its
// gradient_scale is applied here; its step is an add (SGD's), which a rule with state
// would replace where the rows are stepped.
template <typename T, typename Rule>
__global__ void skipgram_kernel(KernelBatch b, SplitTable input, SplitTable output, std::uint32_t stride, std::uint32_t dim,
                                KernelLogistic logistic, Rule rule, double* loss_out) {
  extern __shared__ float shared[];
  __shared__ std::uint32_t n_out_shared;
  __shared__ bool outputs_repeat;
  __shared__ float loss_shared;
  const std::uint32_t K = b.negatives_per_window, max_out = K + 1;
  float* in_rows = shared;                            // max_inputs × stride
  float* out_rows = in_rows + b.max_inputs * stride;  // max_out × stride
  float* gradient = out_rows + max_out * stride;      // max_inputs × max_out: the rule's scale of (label - sigmoid)
  auto* out_ids = reinterpret_cast<std::uint32_t*>(gradient + b.max_inputs * max_out);
  const std::uint32_t pairs = (dim + 1) / 2;  // an odd dim reads one padding zero
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  double block_loss = 0;  // thread 0's
  if (threadIdx.x == 0) loss_shared = 0;
  std::uint32_t first_window, last_window;
  block_windows(b.windows, first_window, last_window);
  for (std::uint32_t w = first_window; w < last_window; ++w) {
    const std::uint32_t first = b.offsets[w];
    const std::uint32_t n_in = b.offsets[w + 1] - first;
    if (n_in == 0) continue;  // the same for every thread of the block
    const std::uint32_t* in_ids = b.inputs + first;
    const std::uint32_t target = b.targets[w];
    if (threadIdx.x == 0) {
      // A negative equal to the target is skipped, as word2vec skips it.
      out_ids[0] = target;
      std::uint32_t n = 1;
      bool repeat = false;
      for (std::uint32_t k = 0; k < K; ++k) {
        const std::uint32_t negative = b.negatives[w * K + k];
        if (negative == target) continue;
        for (std::uint32_t o = 1; o < n; ++o) repeat |= out_ids[o] == negative;
        out_ids[n++] = negative;
      }
      n_out_shared = n;
      outputs_repeat = repeat;
    }
    __syncthreads();
    const std::uint32_t n_out = n_out_shared;
    const bool repeat = outputs_repeat;
    load_rows<T>(input, in_ids, n_in, stride, pairs, in_rows);
    load_rows<T>(output, out_ids, n_out, stride, pairs, out_rows);
    __syncthreads();

    // The CPU's order: input after input, each scored against the output rows as the
    // previous input left them (the copies in shared memory) and then stepped.
    float warp_loss = 0;
    for (std::uint32_t c = 0; c < n_in; ++c) {
      // Input c's scores, a warp per output row.
      for (std::uint32_t o = warp; o < n_out; o += warps) {
        float score = 0;
        for (std::uint32_t e = lane; e < dim; e += 32) score += in_rows[c * stride + e] * out_rows[o * stride + e];
        score = warp_sum(score);
        if (lane == 0) {
          const float label = o == 0 ? 1.0f : 0.0f;
          gradient[c * max_out + o] = rule.gradient_scale(label - sigmoid(score, logistic));
          warp_loss += log_loss(o == 0 ? score : -score, logistic);
        }
      }
      __syncthreads();
      // A thread per element pair, which it alone reads and writes in every row:
      // input c's gradient from the output rows before this step (summed in the CPU's
      // order) goes to the table at once, the output rows' copies take their step, and
      // later copies of the same input word see its new value, as on the CPU.
      const float* g = gradient + c * max_out;
      for (std::uint32_t p = threadIdx.x; p < pairs; p += blockDim.x) {
        const std::uint32_t e = 2 * p;
        const float x0 = in_rows[c * stride + e], x1 = in_rows[c * stride + e + 1];
        float d0 = 0, d1 = 0;
        for (std::uint32_t o = 0; o < n_out; ++o) {
          d0 += g[o] * out_rows[o * stride + e];
          d1 += g[o] * out_rows[o * stride + e + 1];
        }
        for (std::uint32_t o = 0; o < n_out; ++o) {
          // A negative drawn twice is one row on the CPU, stepped by both copies.
          float step = g[o];
          if (repeat) {
            step = 0;
            for (std::uint32_t q = 0; q < n_out; ++q) step += out_ids[q] == out_ids[o] ? g[q] : 0.0f;
          }
          out_rows[o * stride + e] += step * x0;
          out_rows[o * stride + e + 1] += step * x1;
        }
        add_pair(row_at<T>(input, in_ids[c], stride) + e, d0, d1);
        for (std::uint32_t later = c + 1; later < n_in; ++later) {
          if (in_ids[later] != in_ids[c]) continue;
          in_rows[later * stride + e] += d0;
          in_rows[later * stride + e + 1] += d1;
        }
      }
      __syncthreads();
    }
    if (lane == 0 && warp_loss != 0) atomicAdd(&loss_shared, warp_loss);
    __syncthreads();
    if (threadIdx.x == 0) {  // no thread adds to loss_shared again before two more barriers
      block_loss += loss_shared;
      loss_shared = 0;
    }

    // The output rows' steps, summed over the inputs in the CPU's order, with atomics:
    // a thread per (row, element pair). in_rows[c] still holds the value input c had
    // when it was scored.
    for (std::uint32_t i = threadIdx.x; i < n_out * pairs; i += blockDim.x) {
      const std::uint32_t row = i / pairs, e = 2 * (i % pairs);
      add_weighted_row<T>(output, out_ids[row], in_rows, n_in, stride, e,
                          [&](std::uint32_t c) { return gradient[c * max_out + row]; });
    }
    // The next window's rows replace these; its loads then see this window's updates
    // (the block's own atomics are visible to it after the barrier).
    __syncthreads();
  }
  if (threadIdx.x == 0 && block_loss != 0) atomicAdd(loss_out, block_loss);
}

template <typename T, typename Rule>
__global__ void cbow_kernel(KernelBatch b, SplitTable input, SplitTable output, std::uint32_t stride, std::uint32_t dim,
                            KernelLogistic logistic, Rule rule, double* loss_out) {
  extern __shared__ float shared[];
  __shared__ float partial[32];
  float* mean = shared;  // stride
  float* mean_gradient = mean + stride;
  const std::uint32_t pairs = (dim + 1) / 2;
  double loss = 0;  // every thread keeps the same tally; thread 0's is added
  std::uint32_t first_window, last_window;
  block_windows(b.windows, first_window, last_window);
  for (std::uint32_t w = first_window; w < last_window; ++w) {
    const std::uint32_t first = b.offsets[w];
    const std::uint32_t n_in = b.offsets[w + 1] - first;
    if (n_in == 0) continue;  // the same for every thread of the block
    const std::uint32_t* in_ids = b.inputs + first;
    const float inv = 1.0f / static_cast<float>(n_in);
    // Each thread owns the same element pairs throughout, so it alone reads and writes
    // them in mean, mean_gradient and (between the atomics) the output rows it updates.
    for (std::uint32_t p = threadIdx.x; p < pairs; p += blockDim.x) {
      const std::uint32_t e = 2 * p;
      float2 sum = load_pair(row_at<T>(input, in_ids[0], stride) + e);
      for (std::uint32_t c = 1; c < n_in; ++c) {
        const float2 v = load_pair(row_at<T>(input, in_ids[c], stride) + e);
        sum.x += v.x;
        sum.y += v.y;
      }
      mean[e] = sum.x * inv;
      mean[e + 1] = sum.y * inv;
      mean_gradient[e] = 0;
      mean_gradient[e + 1] = 0;
    }
    auto train_output = [&](std::uint32_t row, float label) {
      T* out = row_at<T>(output, row, stride);
      float part = 0;
      for (std::uint32_t p = threadIdx.x; p < pairs; p += blockDim.x) {
        const float2 v = load_pair(out + 2 * p);
        part += mean[2 * p] * v.x + mean[2 * p + 1] * v.y;
      }
      const float score = block_sum(part, partial);
      const float g = rule.gradient_scale(label - sigmoid(score, logistic));
      loss += log_loss(label > 0 ? score : -score, logistic);
      for (std::uint32_t p = threadIdx.x; p < pairs; p += blockDim.x) {
        const std::uint32_t e = 2 * p;
        const float2 v = load_pair(out + e);
        mean_gradient[e] += g * v.x;
        mean_gradient[e + 1] += g * v.y;
        add_pair(out + e, g * mean[e], g * mean[e + 1]);
      }
    };
    const std::uint32_t target = b.targets[w];
    train_output(target, 1.0f);
    for (std::uint32_t k = 0; k < b.negatives_per_window; ++k) {
      const std::uint32_t negative = b.negatives[w * b.negatives_per_window + k];
      if (negative != target) train_output(negative, 0.0f);
    }
    for (std::uint32_t c = 0; c < n_in; ++c) {
      for (std::uint32_t p = threadIdx.x; p < pairs; p += blockDim.x) {
        add_pair(row_at<T>(input, in_ids[c], stride) + 2 * p, mean_gradient[2 * p], mean_gradient[2 * p + 1]);
      }
    }
    __syncthreads();  // the next window's loads see this one's updates
  }
  if (threadIdx.x == 0 && loss != 0) atomicAdd(loss_out, loss);
}

// Threads per block. A block trains its windows one after another, so each window's
// latency is the block's: 256 threads load a window's rows, score its pairs (a warp
// per pair) and update its (row, element pair)s in a few steps each.
// Measured on an H100 (text8-head x 10, dim 100, 512 windows at a time): 64 threads
// 36M words/s, 128 66M, 256 83M.
unsigned window_threads() { return 256; }

// Blocks for a batch: each takes a run of at least max_inputs + 1 consecutive windows
// (word2vec_kernels.h says why), and at most `max_blocks` run.
unsigned blocks_for(const KernelBatch& batch, unsigned max_blocks) {
  const std::uint32_t runs = std::max<std::uint32_t>(1, batch.windows / (batch.max_inputs + 1));
  return max_blocks == 0 ? runs : std::min<std::uint32_t>(runs, max_blocks);
}

}  // namespace

std::size_t skipgram_shared_bytes(std::uint32_t max_inputs, std::uint32_t negatives, std::uint32_t stride) {
  const std::size_t max_out = negatives + 1;
  return ((max_inputs + max_out) * stride + max_inputs * max_out + max_out) * sizeof(float);
}

std::size_t cbow_shared_bytes(std::uint32_t stride) { return 2 * std::size_t{stride} * sizeof(float); }

cudaError_t allow_shared_memory(std::size_t bytes) {
  cudaError_t status = cudaSuccess;
  // Every kernel launch_skipgram and launch_cbow instantiate: each storage type, with
  // each update rule they dispatch to (SGD's, the one word2vec takes today).
  for (Storage s : {Storage::f32, Storage::f16, Storage::bf16}) {
    with_storage(s, [&](auto* type) {
      using T = std::remove_pointer_t<decltype(type)>;
      for (cudaError_t e : {cudaFuncSetAttribute(skipgram_kernel<T, SgdRule>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                 static_cast<int>(bytes)),
                            cudaFuncSetAttribute(cbow_kernel<T, SgdRule>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                 static_cast<int>(bytes))}) {
        if (e != cudaSuccess) status = e;
      }
    });
  }
  return status;
}

cudaError_t launch_skipgram(const KernelBatch& batch, const KernelTables& t, const KernelLogistic& logistic, float learning_rate,
                            double* loss, unsigned max_blocks, cudaStream_t stream) {
  if (batch.windows == 0) return cudaSuccess;
  const std::size_t shared = skipgram_shared_bytes(batch.max_inputs, batch.negatives_per_window, t.stride);
  with_storage(t.storage, [&](auto* type) {
    using T = std::remove_pointer_t<decltype(type)>;
    skipgram_kernel<T, SgdRule><<<blocks_for(batch, max_blocks), window_threads(), shared, stream>>>(
        batch, t.input, t.output, t.stride, t.dim, logistic, SgdRule{learning_rate}, loss);
  });
  return cudaGetLastError();
}

cudaError_t launch_cbow(const KernelBatch& batch, const KernelTables& t, const KernelLogistic& logistic, float learning_rate,
                        double* loss, unsigned max_blocks, cudaStream_t stream) {
  if (batch.windows == 0) return cudaSuccess;
  const std::size_t shared = cbow_shared_bytes(t.stride);
  with_storage(t.storage, [&](auto* type) {
    using T = std::remove_pointer_t<decltype(type)>;
    cbow_kernel<T, SgdRule><<<blocks_for(batch, max_blocks), window_threads(), shared, stream>>>(
        batch, t.input, t.output, t.stride, t.dim, logistic, SgdRule{learning_rate}, loss);
  });
  return cudaGetLastError();
}

}  // namespace embed::cuda
