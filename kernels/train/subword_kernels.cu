#include "kernels/train/subword_kernels.h"

#include <algorithm>
#include <type_traits>

#include "kernels/common/storage.cuh"
#include "kernels/train/window_common.cuh"

namespace embed::cuda {
namespace {

// What the kernels do per window, a thread per element pair (skip-gram's warp kernel: a
// lane): every thread owns the same pairs of every row and of the block's vectors
// throughout (so it alone reads and writes them, its own atomics included, and needs no
// barrier between them).
template <typename T>
struct SubwordWindow {
  SplitTable input;
  SplitTable output;
  std::uint32_t stride, pairs;
  KernelLogistic logistic;
  float lr;
  float* hidden;    // h: the input rows' average (stride)
  float* gradient;  // h's gradient from the outputs trained against it (stride)
  float* partial;   // block_sum's

  // hidden = the average of rows[0, count) of the input table (summed in order, then
  // scaled by the f32 of 1 / count, as fasttext_average does). `rows_of(i, n)` gives the
  // i-th list of `lists` and its length (a word's rows; CBOW's bag is its words' lists).
  template <typename ListOf>
  __device__ void average(std::uint32_t lists, ListOf rows_of) {
    std::uint32_t count = 0;
    for (std::uint32_t i = 0; i < lists; ++i) {
      std::uint32_t n;
      rows_of(i, n);
      count += n;
    }
    const float scale = count == 0 ? 1.0f : static_cast<float>(1.0 / static_cast<double>(count));
    for (std::uint32_t p = threadIdx.x; p < pairs; p += blockDim.x) {
      const std::uint32_t e = 2 * p;
      float a = 0, b = 0;  // 0 + the first row is the first row, as the CPU's copy of it
      for (std::uint32_t i = 0; i < lists; ++i) {
        std::uint32_t n;
        const std::uint32_t* rows = rows_of(i, n);
#pragma unroll 4
        for (std::uint32_t r = 0; r < n; ++r) {  // unrolled: several rows' loads in flight
          const float2 v = load_pair(row_at<T>(input, rows[r], stride) + e);
          a += v.x;
          b += v.y;
        }
      }
      hidden[e] = a * scale;
      hidden[e + 1] = b * scale;
    }
  }

  // Output row `id` against h with `label`: its score (a block sum), g = lr × (label −
  // sigmoid), h's gradient from the row before its step (set by the first output of a
  // step, added to by the rest), then the row's step by g × h. Returns the loss.
  __device__ float train_output(std::uint32_t id, float label, bool first) {
    T* out = row_at<T>(output, id, stride);
    const float score = block_dot(out, hidden, pairs, partial);
    const float g = (label - sigmoid(score, logistic)) * lr;  // SgdRule::gradient_scale
    for (std::uint32_t p = threadIdx.x; p < pairs; p += blockDim.x) {
      const std::uint32_t e = 2 * p;
      const float2 v = load_pair(out + e);
      gradient[e] = first ? g * v.x : gradient[e] + g * v.x;
      gradient[e + 1] = first ? g * v.y : gradient[e + 1] + g * v.y;
      add_pair(out + e, g * hidden[e], g * hidden[e + 1], output.pair_atomics);
    }
    return log_loss(label > 0 ? score : -score, logistic);
  }

  // Skip-gram's start of a window: h = the average of the centre word's `n` rows, and the
  // window's summed gradient of h (`summed`) cleared.
  __device__ void start_word(const std::uint32_t* rows, std::uint32_t n, float* summed) {
    average(1, [&](std::uint32_t, std::uint32_t& count) {
      count = n;
      return rows;
    });
    for (std::uint32_t p = threadIdx.x; p < pairs; p += blockDim.x) {
      summed[2 * p] = 0;
      summed[2 * p + 1] = 0;
    }
  }

  // Skip-gram's end of a pair: every row of the centre takes the same step, so h moves by
  // it times the word's `gain`; the window's sum takes it too.
  __device__ void end_pair(float gain, float* summed) {
    for (std::uint32_t p = threadIdx.x; p < pairs; p += blockDim.x) {
      for (std::uint32_t e = 2 * p; e < 2 * p + 2; ++e) {
        hidden[e] += gain * gradient[e];
        summed[e] += gradient[e];
      }
    }
  }

  // Each of rows[0, n) of the input table += step (a row listed twice steps twice, as on the CPU).
  __device__ void step_rows(const std::uint32_t* rows, std::uint32_t n, const float* step) {
    for (std::uint32_t r = 0; r < n; ++r) {
      T* row = row_at<T>(input, rows[r], stride);
      for (std::uint32_t p = threadIdx.x; p < pairs; p += blockDim.x) {
        add_pair(row + 2 * p, step[2 * p], step[2 * p + 1], input.pair_atomics);
      }
    }
  }
};

// Shared memory of skip-gram's warp and rows kernels after SubwordWindow's h and its
// gradient (`shared`'s first 2 × stride floats).
struct PairRows {
  float* window_gradient;     // stride: the window's summed gradient of h
  float* out_rows;            // max_out × stride: a pair's output rows as its steps leave them
  std::uint32_t* out_ids;     // max_out
  std::uint32_t* first_copy;  // max_out: where a row's copy is

  __device__ PairRows(float* shared, std::uint32_t stride, std::uint32_t max_out)
      : window_gradient(shared + 2 * stride),
        out_rows(window_gradient + stride),
        out_ids(reinterpret_cast<std::uint32_t*>(out_rows + max_out * stride)),
        first_copy(out_ids + max_out) {}
};

// Word w's input rows, and their count in n.
__device__ inline const std::uint32_t* rows_of_word(const KernelSubwords& s, std::uint32_t word, std::uint32_t& n) {
  n = s.offsets[word + 1] - s.offsets[word];
  return s.rows + s.offsets[word];
}

// Runs train(w, contexts, n_contexts), which returns the window's loss, on each of the
// block's windows that has inputs (the same for every thread of the block), then adds the
// block's loss (every thread keeps the same tally; thread 0's is added).
template <typename Train>
__device__ inline void train_block_windows(const KernelBatch& b, double* loss_out, Train train) {
  double loss = 0;
  for_each_block_window(b, [&](std::uint32_t w, std::uint32_t, const std::uint32_t* contexts, std::uint32_t n_contexts) {
    loss += train(w, contexts, n_contexts);
    __syncthreads();  // the next window's loads see this one's updates
  });
  if (threadIdx.x == 0 && loss != 0) atomicAdd(loss_out, loss);
}

template <typename T>
__global__ void subword_skipgram_kernel(KernelBatch b, KernelSubwords s, SplitTable input, SplitTable output,
                                        std::uint32_t stride, std::uint32_t dim, KernelLogistic logistic, float lr,
                                        double* loss_out) {
  extern __shared__ float shared[];
  __shared__ float partial[32];
  float* window_gradient = shared + 2 * stride;  // the window's summed gradient of h
  SubwordWindow<T> window{input, output, stride, (dim + 1) / 2, logistic, lr, shared, shared + stride, partial};
  const std::uint32_t K = b.negatives_per_window;
  train_block_windows(b, loss_out, [&](std::uint32_t w, const std::uint32_t* contexts, std::uint32_t n_contexts) {
    double loss = 0;
    const std::uint32_t centre = b.targets[w];
    std::uint32_t n_rows;
    const std::uint32_t* rows = rows_of_word(s, centre, n_rows);
    window.start_word(rows, n_rows, window_gradient);
    for (std::uint32_t c = 0; c < n_contexts; ++c) {
      // The pair (centre, context c): the context word, then that pair's negatives but
      // those equal to it (fastText draws again where word2vec skips).
      const std::uint32_t context = contexts[c];
      const std::uint32_t* negatives = b.negatives + std::size_t{b.offsets[w] + c} * K;
      loss += window.train_output(context, 1.0f, true);
      for (std::uint32_t k = 0; k < K; ++k) {
        if (negatives[k] != context) loss += window.train_output(negatives[k], 0.0f, false);
      }
      window.end_pair(s.gains[centre], window_gradient);
    }
    window.step_rows(rows, n_rows, window_gradient);
    return loss;
  });
}

// subword_skipgram_kernel's window, trained by one warp (the block is one warp): the same
// steps in the same order, lane l owning element pairs l, l + 32, ... of h, its gradients
// and every row, so that no lane reads what another wrote but lane 0's list of a pair's
// outputs (behind a __syncwarp) and the scores' shuffles. A pair's 1 + K output rows are
// loaded together (the block kernel read each, in turn, from the GPU's memory after the
// last one's barriers), each row's copy taking its step in shared memory so that a
// negative drawn twice is scored, as on the CPU, after its first copy's step; the next
// pair's rows, or the next window's centre rows, are asked of the L2 cache meanwhile.
template <typename T>
__global__ void __launch_bounds__(32)
    subword_skipgram_warp_kernel(KernelBatch b, KernelSubwords s, SplitTable input, SplitTable output, std::uint32_t stride,
                                 std::uint32_t dim, KernelLogistic logistic, float lr, double* loss_out) {
  extern __shared__ float shared[];
  const unsigned lane = threadIdx.x & 31;
  const std::uint32_t K = b.negatives_per_window;
  const PairRows pair_rows(shared, stride, K + 1);
  float* window_gradient = pair_rows.window_gradient;
  float* out_rows = pair_rows.out_rows;
  std::uint32_t *out_ids = pair_rows.out_ids, *first_copy = pair_rows.first_copy;
  // The block is this warp, so SubwordWindow's thread p is lane p, owning the pairs this
  // kernel gives it (its block_dot, which needs `partial`, is the block kernel's alone).
  SubwordWindow<T> window{input, output, stride, (dim + 1) / 2, logistic, lr, shared, shared + stride, nullptr};
  const std::uint32_t pairs = window.pairs;
  float* hidden = window.hidden;      // h
  float* gradient = window.gradient;  // h's gradient from one pair's outputs
  train_block_windows(b, loss_out, [&](std::uint32_t w, const std::uint32_t* contexts, std::uint32_t n_contexts) {
    double loss = 0;  // the same in every lane, as the scores are
    const std::uint32_t centre = b.targets[w];
    std::uint32_t n_rows;
    const std::uint32_t* rows = rows_of_word(s, centre, n_rows);
    window.start_word(rows, n_rows, window_gradient);
    for (std::uint32_t c = 0; c < n_contexts; ++c) {
      // The pair (centre, context c): the context word, then that pair's negatives but
      // those equal to it (fastText draws again where word2vec skips), in order.
      const std::uint32_t* negatives = b.negatives + std::size_t{b.offsets[w] + c} * K;
      std::uint32_t n_out = 0;
      if (lane == 0) list_outputs(contexts[c], negatives, K, out_ids, first_copy, n_out);
      __syncwarp();
      n_out = __shfl_sync(kFullWarp, n_out, 0);
      warp_load_rows<T>(output, out_ids, n_out, stride, stride, pairs, out_rows);
      if (c + 1 < n_contexts) {
        warp_prefetch_rows<T>(output, contexts + c + 1, 1, stride);
        warp_prefetch_rows<T>(output, negatives + K, K, stride);
      } else if (w + 1 < b.windows) {  // the next window's centre rows (at a run's end, another warp's)
        std::uint32_t n_next;
        const std::uint32_t* next_rows = rows_of_word(s, b.targets[w + 1], n_next);
        warp_prefetch_rows<T>(input, next_rows, n_next, stride);
      }
      // The outputs one after another: each scored against h, h's gradient from the row
      // before its step, then the row's step (its copy here, for a later copy of it; and
      // the table's, by an atomic add).
      for (std::uint32_t o = 0; o < n_out; ++o) {
        float* out = out_rows + first_copy[o] * stride;
        float part = 0;
        for (std::uint32_t p = lane; p < pairs; p += 32) {
          const float2 h = shared_pair(hidden, 2 * p), v = shared_pair(out, 2 * p);
          part += h.x * v.x + h.y * v.y;
        }
        const float score = warp_sum(part);  // the same in every lane
        const float label = o == 0 ? 1.0f : 0.0f;
        const float g = (label - sigmoid(score, logistic)) * lr;  // SgdRule::gradient_scale
        loss += log_loss(label > 0 ? score : -score, logistic);
        T* row = row_at<T>(output, out_ids[o], stride);
        for (std::uint32_t p = lane; p < pairs; p += 32) {
          const std::uint32_t e = 2 * p;
          const float2 h = shared_pair(hidden, e);
          float2& v = shared_pair(out, e);
          float2& d = shared_pair(gradient, e);
          d.x = o == 0 ? g * v.x : d.x + g * v.x;
          d.y = o == 0 ? g * v.y : d.y + g * v.y;
          v.x += g * h.x;
          v.y += g * h.y;
          add_pair(row + e, g * h.x, g * h.y, output.pair_atomics);
        }
      }
      window.end_pair(s.gains[centre], window_gradient);
      __syncwarp();  // every lane is done with this pair's list before lane 0 writes the next
    }
    window.step_rows(rows, n_rows, window_gradient);
    return loss;
  });
}

// subword_skipgram_kernel's window with a warp per output row of each pair
// (EMBED_GPU_SKIPGRAM_KERNEL=rows, for experiments): the block kernel scores a pair's
// outputs one after another, each a block sum between two barriers (12 barriers per pair
// with 5 negatives); here warp o takes output o (and o + warps, ...) of the pair at once
// with the others, since they all score against the same h: it loads its row into two
// copies in shared memory (lane l owning pairs l, l + 32, ...), scores it, and steps one
// copy and the table's row. h's gradient, a sum over every warp's row, is then replayed
// by the block from the rows as loaded and the warps' scales, in the CPU's order (no
// atomics), so that a pair waits twice: for the list, and for the scales. A negative
// drawn twice in a pair is trained by its first copy's warp, copy after copy, the second
// scored after the first's step, as on the CPU.
template <typename T>
__global__ void subword_skipgram_rows_kernel(KernelBatch b, KernelSubwords s, SplitTable input, SplitTable output,
                                             std::uint32_t stride, std::uint32_t dim, KernelLogistic logistic, float lr,
                                             double* loss_out) {
  extern __shared__ float shared[];
  __shared__ std::uint32_t n_out_shared;
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  const std::uint32_t K = b.negatives_per_window, max_out = K + 1;
  const PairRows pair(shared, stride, max_out);
  float* loaded = reinterpret_cast<float*>(pair.first_copy + max_out);  // max_out × stride: the pair's rows as loaded
  float* scales = loaded + max_out * stride;                            // max_out: each output's lr × (label - sigmoid)
  // max_out: each output's first copy, as its warp saw it: thread 0 lists the next pair
  // while the others still read this one's at its end.
  auto* copy_of = reinterpret_cast<std::uint32_t*>(scales + max_out);
  // SubwordWindow's thread p owns element pairs p, p + blockDim.x, ... of h (`hidden`) and
  // the window's sum in its phases (the window's start and end, a pair's end); its
  // `gradient` and block_dot are not used.
  SubwordWindow<T> window{input, output, stride, (dim + 1) / 2, logistic, lr, shared, shared + stride, nullptr};
  double warp_loss = 0;  // lane 0's
  for_each_block_window(b, [&](std::uint32_t w, std::uint32_t, const std::uint32_t* contexts, std::uint32_t n_contexts) {
    const std::uint32_t centre = b.targets[w];
    std::uint32_t n_rows;
    const std::uint32_t* rows = rows_of_word(s, centre, n_rows);
    window.start_word(rows, n_rows, pair.window_gradient);
    for (std::uint32_t c = 0; c < n_contexts; ++c) {
      // The pair (centre, context c): the context word, then that pair's negatives but
      // those equal to it (fastText draws again where word2vec skips), in order.
      const std::uint32_t* negatives = b.negatives + std::size_t{b.offsets[w] + c} * K;
      if (threadIdx.x == 0) list_outputs(contexts[c], negatives, K, pair.out_ids, pair.first_copy, n_out_shared);
      __syncthreads();  // h and the list
      const std::uint32_t n_out = n_out_shared;
      for (std::uint32_t o = warp; o < n_out; o += warps) {
        if (pair.first_copy[o] != o) continue;  // its first copy's warp trains it
        float* copy = pair.out_rows + o * stride;
        T* row = row_at<T>(output, pair.out_ids[o], stride);
        warp_load_rows<T>(output, pair.out_ids + o, 1, stride, stride, window.pairs, copy);
        for (std::uint32_t p = lane; p < window.pairs; p += 32)
          shared_pair(loaded + o * stride, 2 * p) = shared_pair(copy, 2 * p);
        // The next pair's row in this place, asked of the L2 cache meanwhile.
        if (c + 1 < n_contexts) warp_prefetch_rows<T>(output, o == 0 ? contexts + c + 1 : negatives + K + o - 1, 1, stride);
        for (std::uint32_t q = o; q < n_out; ++q) {
          if (pair.first_copy[q] != o) continue;
          float part = 0;
          for (std::uint32_t p = lane; p < window.pairs; p += 32) {
            const float2 h = shared_pair(window.hidden, 2 * p), v = shared_pair(copy, 2 * p);
            part += h.x * v.x + h.y * v.y;
          }
          const float score = warp_sum(part);  // the same in every lane
          const float label = q == 0 ? 1.0f : 0.0f;
          const float g = (label - sigmoid(score, logistic)) * lr;  // SgdRule::gradient_scale
          if (lane == 0) {
            scales[q] = g;
            copy_of[q] = o;
            warp_loss += log_loss(label > 0 ? score : -score, logistic);
          }
          for (std::uint32_t p = lane; p < window.pairs; p += 32) {
            const std::uint32_t e = 2 * p;
            const float2 h = shared_pair(window.hidden, e);
            float2& v = shared_pair(copy, e);
            v.x += g * h.x;
            v.y += g * h.y;
            add_pair(row + e, g * h.x, g * h.y, output.pair_atomics);
          }
        }
      }
      __syncthreads();  // every output's scale is in
      // The pair's end: h's gradient from the outputs in their order, each row before its
      // step (a row drawn twice: its loaded copy stepped in between, as on the CPU), then
      // SubwordWindow::end_pair's moves. Each thread its own element pairs, as in the
      // window's start and end: the next pair's barrier comes before anyone reads h.
      for (std::uint32_t p = threadIdx.x; p < window.pairs; p += blockDim.x) {
        for (std::uint32_t e = 2 * p; e < 2 * p + 2; ++e) {
          const float h = window.hidden[e];
          float d = 0;
          for (std::uint32_t o = 0; o < n_out; ++o) {
            float& value = loaded[copy_of[o] * stride + e];
            d += scales[o] * value;
            value += scales[o] * h;
          }
          window.hidden[e] = h + s.gains[centre] * d;
          pair.window_gradient[e] += d;
        }
      }
    }
    window.step_rows(rows, n_rows, pair.window_gradient);
    __syncthreads();  // the next window's loads see this one's updates
  });
  if (lane == 0 && warp_loss != 0) atomicAdd(loss_out, warp_loss);
}

template <typename T>
__global__ void subword_cbow_kernel(KernelBatch b, KernelSubwords s, SplitTable input, SplitTable output, std::uint32_t stride,
                                    std::uint32_t dim, KernelLogistic logistic, float lr, double* loss_out) {
  extern __shared__ float shared[];
  __shared__ float partial[32];
  SubwordWindow<T> window{input, output, stride, (dim + 1) / 2, logistic, lr, shared, shared + stride, partial};
  const std::uint32_t K = b.negatives_per_window;
  train_block_windows(b, loss_out, [&](std::uint32_t w, const std::uint32_t* contexts, std::uint32_t n_contexts) {
    // The bag: every context word's rows, word after word.
    window.average(n_contexts, [&](std::uint32_t i, std::uint32_t& n) { return rows_of_word(s, contexts[i], n); });
    const std::uint32_t target = b.targets[w];
    double loss = window.train_output(target, 1.0f, true);
    for (std::uint32_t k = 0; k < K; ++k) {
      const std::uint32_t negative = b.negatives[std::size_t{w} * K + k];
      if (negative != target) loss += window.train_output(negative, 0.0f, false);
    }
    for (std::uint32_t c = 0; c < n_contexts; ++c) {
      std::uint32_t n;
      const std::uint32_t* rows = rows_of_word(s, contexts[c], n);
      window.step_rows(rows, n, window.gradient);
    }
    return loss;
  });
}

// A warp per 32 element pairs, 32 to 256 threads: a window's work is its rows' pairs.
unsigned subword_threads(std::uint32_t dim) {
  const std::uint32_t pairs = (dim + 1) / 2;
  return std::clamp<std::uint32_t>((pairs + 31) / 32 * 32, 32, 256);
}

// The rows kernel's threads: a warp per output row of a pair, at most 8 warps.
unsigned subword_rows_threads(std::uint32_t negatives) { return 32 * std::min<std::uint32_t>(negatives + 1, 8); }

// Skip-gram's kernel (`choice`: the warp's, the block's or the rows') or CBOW's for the
// tables' storage type.
cudaError_t launch_subword_kernel(bool skipgram, SkipgramKernel choice, const KernelBatch& batch, const KernelSubwords& subwords,
                                  const KernelTables& t, const KernelLogistic& logistic, float learning_rate, double* loss,
                                  unsigned max_blocks, cudaStream_t stream) {
  if (batch.windows == 0) return cudaSuccess;
  if (t.width != t.stride) return cudaErrorInvalidValue;  // SGD only: no state after the vector
  const bool by_warp = skipgram && choice == SkipgramKernel::warp, by_rows = skipgram && choice == SkipgramKernel::rows;
  const std::size_t shared =
      subword_shared_bytes(t.stride, batch.negatives_per_window, by_rows ? SkipgramKernel::rows : SkipgramKernel::block);
  const unsigned blocks = blocks_for(batch, max_blocks);
  const unsigned threads = by_warp ? 32 : by_rows ? subword_rows_threads(batch.negatives_per_window) : subword_threads(t.dim);
  with_storage(t.storage, [&](auto* type) {
    using T = std::remove_pointer_t<decltype(type)>;
    auto* kernel = by_warp    ? subword_skipgram_warp_kernel<T>
                   : by_rows  ? subword_skipgram_rows_kernel<T>
                   : skipgram ? subword_skipgram_kernel<T>
                              : subword_cbow_kernel<T>;
    kernel<<<blocks, threads, shared, stream>>>(batch, subwords, t.input, t.output, t.stride, t.dim, logistic, learning_rate,
                                                loss);
  });
  return cudaGetLastError();
}

}  // namespace

std::size_t subword_shared_bytes(std::uint32_t stride, std::uint32_t negatives, SkipgramKernel kernel) {
  // The block kernels: three vectors; skip-gram's warp and rows kernels: those, a pair's
  // output rows, their ids and first copies; the rows kernel's also the rows as loaded,
  // each output's scale and its first copy again.
  const std::size_t max_out = negatives + 1;
  const std::size_t rows_extra = kernel == SkipgramKernel::rows ? max_out * stride + 2 * max_out : 0;
  return ((3 + max_out) * stride + 2 * max_out + rows_extra) * sizeof(float);
}

cudaError_t allow_subword_shared_memory(std::size_t bytes) {
  cudaError_t status = cudaSuccess;
  for (Storage storage : {Storage::f32, Storage::f16, Storage::bf16}) {
    with_storage(storage, [&](auto* type) {
      using T = std::remove_pointer_t<decltype(type)>;
      for (const void* kernel :
           {reinterpret_cast<const void*>(subword_skipgram_warp_kernel<T>),
            reinterpret_cast<const void*>(subword_skipgram_rows_kernel<T>),
            reinterpret_cast<const void*>(subword_skipgram_kernel<T>), reinterpret_cast<const void*>(subword_cbow_kernel<T>)}) {
        const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
        if (e != cudaSuccess) status = e;
      }
    });
  }
  return status;
}

cudaError_t launch_subword_skipgram(const KernelBatch& batch, const KernelSubwords& subwords, const KernelTables& t,
                                    const KernelLogistic& logistic, float learning_rate, double* loss, unsigned max_blocks,
                                    cudaStream_t stream, SkipgramKernel kernel) {
  return launch_subword_kernel(true, kernel, batch, subwords, t, logistic, learning_rate, loss, max_blocks, stream);
}

cudaError_t launch_subword_cbow(const KernelBatch& batch, const KernelSubwords& subwords, const KernelTables& t,
                                const KernelLogistic& logistic, float learning_rate, double* loss, unsigned max_blocks,
                                cudaStream_t stream) {
  return launch_subword_kernel(false, SkipgramKernel::block, batch, subwords, t, logistic, learning_rate, loss, max_blocks,
                               stream);
}

}  // namespace embed::cuda
