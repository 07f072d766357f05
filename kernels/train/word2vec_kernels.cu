#include "kernels/train/word2vec_kernels.h"

#include <algorithm>
#include <type_traits>

#include "kernels/common/storage.cuh"
#include "kernels/common/warp_sum.cuh"
#include "kernels/train/kernel_clocks.cuh"
#include "kernels/train/kernel_rules.cuh"
#include "kernels/train/window_common.cuh"

namespace embed::cuda {
namespace {

// The block copies `count` whole f32 rows of `width` floats (vector and state) into
// shared memory twice: `copy`, which the window steps, and `loaded`, which it keeps.
__device__ inline void load_whole_rows(const SplitTable& table, const std::uint32_t* ids, std::uint32_t count,
                                       std::uint32_t width, float* copy, float* loaded) {
  for (std::uint32_t i = threadIdx.x; i < count * width; i += blockDim.x) {
    const std::uint32_t k = i / width, e = i % width;
    copy[i] = loaded[i] = row_at<float>(table, ids[k], width)[e];
  }
}

// Element pair e of row `to_id` of `table` (rows of `width`) gets Σ_f weight(f) ×
// from_rows[f] (rows of `stride`), the f in order (the CPU's order of float sums).
template <typename T, typename Weight>
__device__ inline void add_weighted_row(const SplitTable& table, std::uint32_t to_id, std::uint32_t width, const float* from_rows,
                                        std::uint32_t from_count, std::uint32_t stride, std::uint32_t e, Weight weight) {
  float a = 0, b = 0;
  for (std::uint32_t f = 0; f < from_count; ++f) {
    const float g = weight(f);
    a += g * from_rows[f * stride + e];
    b += g * from_rows[f * stride + e + 1];
  }
  add_pair(row_at<T>(table, to_id, width) + e, a, b, table.pair_atomics);
}

// Skip-gram with a rule without state (SGD): every step is an add. Its gradient_scale
// (the learning rate) is applied where the gradients are formed. Rows of `width` (which
// is `stride`: no state) elements of T. A block of 256 threads per window (the default;
// skipgram_warp_kernel below, a warp per window, under EMBED_GPU_SKIPGRAM_KERNEL=warp).
template <typename T, typename Rule>
__global__ void skipgram_kernel(KernelBatch b, SplitTable input, SplitTable output, std::uint32_t stride, std::uint32_t width,
                                std::uint32_t dim, KernelLogistic logistic, Rule rule, double* loss_out) {
  static_assert(!kKeepsState<Rule>, "rules with state take skipgram_state_kernel");
  extern __shared__ float shared[];
  __shared__ std::uint32_t n_out_shared;
  __shared__ bool outputs_repeat;
  __shared__ float loss_shared;
  __shared__ unsigned long long clock_sums[kBlockClockWords];
  BlockClocks clocks(b.clocks, clock_sums);  // EMBED_GPU_KERNEL_CLOCKS: kBlockKernelPhases
  const std::uint32_t K = b.negatives_per_window, max_out = K + 1;
  float* in_rows = shared;                            // max_inputs × stride
  float* out_rows = in_rows + b.max_inputs * stride;  // max_out × stride
  float* gradient = out_rows + max_out * stride;      // max_inputs × max_out: the rule's scale of (label - sigmoid)
  auto* out_ids = reinterpret_cast<std::uint32_t*>(gradient + b.max_inputs * max_out);
  std::uint32_t* first_copy = out_ids + max_out;
  const std::uint32_t pairs = (dim + 1) / 2;  // an odd dim reads one padding zero
  double block_loss = 0;                      // thread 0's
  if (threadIdx.x == 0) loss_shared = 0;
  std::uint32_t first_window, last_window;
  block_windows(b.windows, first_window, last_window);
  for (std::uint32_t w = first_window; w < last_window; ++w) {
    const std::uint32_t* in_ids;
    std::uint32_t n_in;
    if (!window_inputs(b, w, in_ids, n_in)) continue;  // the same for every thread of the block
    clocks.window(n_in);
    if (threadIdx.x == 0) outputs_repeat = list_outputs(b, w, out_ids, first_copy, n_out_shared);
    __syncthreads();
    clocks.mark(0);
    const std::uint32_t n_out = n_out_shared;
    const bool repeat = outputs_repeat;
    load_rows<T>(input, in_ids, n_in, width, stride, pairs, in_rows);
    load_rows<T>(output, out_ids, n_out, width, stride, pairs, out_rows);
    __syncthreads();
    clocks.mark(1);

    // The CPU's order: input after input, each scored against the output rows as the
    // previous input left them (the copies in shared memory) and then stepped.
    float warp_loss = 0;
    for (std::uint32_t c = 0; c < n_in; ++c) {
      score_input(
          rule, in_rows + c * stride, [&](std::uint32_t o) { return out_rows + o * stride; }, n_out, dim, logistic,
          gradient + c * max_out, warp_loss);
      __syncthreads();
      clocks.mark(2);
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
        add_pair(row_at<T>(input, in_ids[c], width) + e, d0, d1, input.pair_atomics);
        for (std::uint32_t later = c + 1; later < n_in; ++later) {
          if (in_ids[later] != in_ids[c]) continue;
          in_rows[later * stride + e] += d0;
          in_rows[later * stride + e + 1] += d1;
        }
      }
      __syncthreads();
      clocks.mark(3);
    }
    add_window_loss(warp_loss, loss_shared, block_loss);
    clocks.mark(4);

    // The output rows' steps, summed over the inputs in the CPU's order, with atomics:
    // a thread per (row, element pair). in_rows[c] still holds the value input c had
    // when it was scored.
    for (std::uint32_t i = threadIdx.x; i < n_out * pairs; i += blockDim.x) {
      const std::uint32_t row = i / pairs, e = 2 * (i % pairs);
      add_weighted_row<T>(output, out_ids[row], width, in_rows, n_in, stride, e,
                          [&](std::uint32_t c) { return gradient[c * max_out + row]; });
    }
    // The next window's rows replace these; its loads then see this window's updates
    // (the block's own atomics are visible to it after the barrier).
    __syncthreads();
    clocks.mark(5);
  }
  clocks.finish();
  if (threadIdx.x == 0 && block_loss != 0) atomicAdd(loss_out, block_loss);
}

// Asks the L2 cache for window w's rows (its inputs, target and negatives) while the warp
// trains the window before (dim 300 tables of text8's words are 3.5 times the H100's 50 MB
// of L2).
template <typename T>
__device__ inline void warp_prefetch_window(const KernelBatch& b, std::uint32_t w, const SplitTable& input,
                                            const SplitTable& output, std::uint32_t width) {
  warp_prefetch_rows<T>(input, b.inputs + b.offsets[w], b.offsets[w + 1] - b.offsets[w], width);
  warp_prefetch_rows<T>(output, b.targets + w, 1, width);
  warp_prefetch_rows<T>(output, b.negatives + std::size_t{w} * b.negatives_per_window, b.negatives_per_window, width);
}

// Input x's scores against the window's n_out output rows (row o at out_rows[o * stride]),
// over the warp: each lane sums its element pairs' products for up to eight rows at
// once, then the eight butterfly sums run side by side (each row's total is what
// warp_sum gives, in every lane). Lane 0 writes the rule's gradient_scale of (label -
// sigmoid) into gradient[o] and adds the loss to `loss`.
template <typename Rule>
__device__ inline void warp_score_input(const Rule& rule, const float* x, const float* out_rows, std::uint32_t stride,
                                        std::uint32_t n_out, std::uint32_t pairs, const KernelLogistic& logistic, float* gradient,
                                        float& loss) {
  constexpr std::uint32_t kRows = 8;
  const unsigned lane = threadIdx.x & 31;
  for (std::uint32_t first = 0; first < n_out; first += kRows) {
    float part[kRows];
#pragma unroll
    for (std::uint32_t j = 0; j < kRows; ++j) part[j] = 0;
    for (std::uint32_t p = lane; p < pairs; p += 32) {
      const float2 xp = shared_pair(x, 2 * p);
#pragma unroll
      for (std::uint32_t j = 0; j < kRows; ++j) {
        if (first + j < n_out) {
          const float2 out = shared_pair(out_rows + (first + j) * stride, 2 * p);
          part[j] += xp.x * out.x + xp.y * out.y;
        }
      }
    }
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
#pragma unroll
      for (std::uint32_t j = 0; j < kRows; ++j) part[j] += __shfl_xor_sync(kFullWarp, part[j], offset);
    }
    if (lane == 0) {
#pragma unroll
      for (std::uint32_t j = 0; j < kRows; ++j) {
        const std::uint32_t o = first + j;
        if (o >= n_out) break;
        const float score = part[j], label = o == 0 ? 1.0f : 0.0f;
        gradient[o] = rule.gradient_scale(label - sigmoid(score, logistic));
        loss += log_loss(o == 0 ? score : -score, logistic);
      }
    }
  }
}

// Floats of shared memory one warp's window takes in skipgram_warp_kernel: the inputs'
// and the outputs' vectors, the gradients, the outputs' summed steps (a negative drawn
// twice), the inputs' ids, the outputs' ids and first copies.
__host__ __device__ inline std::size_t warp_window_floats(std::size_t max_inputs, std::size_t max_out, std::size_t stride) {
  return (max_inputs + max_out) * stride + max_inputs * max_out + max_out + max_inputs + 2 * max_out;
}

// skipgram_kernel's window, trained by one warp (the block is one warp): the same steps
// in the same order, lane l owning element pairs l, l + 32, ... of every row in every
// phase (loading, scoring its part, stepping, adding to the tables), so that no lane
// reads what another wrote but lane 0's lists (the outputs, the gradients, behind a
// __syncwarp) and the sums' shuffles. A lane's next window loads the rows its own atomic
// adds changed, which it sees in program order.
template <typename T, typename Rule>
__global__ void __launch_bounds__(32)
    skipgram_warp_kernel(KernelBatch b, SplitTable input, SplitTable output, std::uint32_t stride, std::uint32_t width,
                         std::uint32_t dim, KernelLogistic logistic, Rule rule, double* loss_out) {
  static_assert(!kKeepsState<Rule>, "rules with state take skipgram_state_kernel");
  extern __shared__ float shared[];
  const unsigned lane = threadIdx.x & 31;
  const std::uint32_t max_in = b.max_inputs, max_out = b.negatives_per_window + 1;
  float* in_rows = shared;                            // max_in × stride
  float* out_rows = in_rows + max_in * stride;        // max_out × stride
  float* gradient = out_rows + max_out * stride;      // max_in × max_out: the rule's scale of (label - sigmoid)
  float* summed_steps = gradient + max_in * max_out;  // max_out: each copy's step when a negative repeats
  auto* in_ids = reinterpret_cast<std::uint32_t*>(summed_steps + max_out);
  std::uint32_t* out_ids = in_ids + max_in;
  std::uint32_t* first_copy = out_ids + max_out;
  const std::uint32_t pairs = (dim + 1) / 2;  // an odd dim reads one padding zero
  double warp_loss = 0;                       // lane 0's
  std::uint32_t first_window, last_window;
  block_windows(b.windows, first_window, last_window);
  for (std::uint32_t w = first_window; w < last_window; ++w) {
    const std::uint32_t* batch_in_ids;
    std::uint32_t n_in;
    if (!window_inputs(b, w, batch_in_ids, n_in)) continue;  // the same for every lane
    std::uint32_t n_out = 0;
    bool repeat = false;
    if (lane == 0) repeat = list_outputs(b, w, out_ids, first_copy, n_out);
    for (std::uint32_t c = lane; c < n_in; c += 32) in_ids[c] = batch_in_ids[c];
    __syncwarp();
    n_out = __shfl_sync(kFullWarp, n_out, 0);
    repeat = __shfl_sync(kFullWarp, repeat ? 1 : 0, 0) != 0;
    warp_load_rows<T>(input, in_ids, n_in, width, stride, pairs, in_rows);
    warp_load_rows<T>(output, out_ids, n_out, width, stride, pairs, out_rows);
    if (w + 1 < last_window) warp_prefetch_window<T>(b, w + 1, input, output, width);

    // The CPU's order, as skipgram_kernel: input after input, each scored against the
    // output rows as the previous input left them and then stepped.
    float window_loss = 0;  // lane 0's
    for (std::uint32_t c = 0; c < n_in; ++c) {
      const float* x = in_rows + c * stride;
      float* g = gradient + c * max_out;
      warp_score_input(rule, x, out_rows, stride, n_out, pairs, logistic, g, window_loss);
      __syncwarp();  // lane 0's gradients (and every lane is past the last input's summed_steps)
      // A negative drawn twice is one row on the CPU, stepped by both copies.
      const float* step = g;
      if (repeat) {
        for (std::uint32_t o = lane; o < n_out; o += 32) {
          float sum = 0;
          for (std::uint32_t q = 0; q < n_out; ++q) sum += out_ids[q] == out_ids[o] ? g[q] : 0.0f;
          summed_steps[o] = sum;
        }
        __syncwarp();
        step = summed_steps;
      }
      // Input c's gradient from the output rows before this step (summed in the CPU's
      // order) goes to the table at once, the output rows' copies take their step, and
      // later copies of the same input word see its new value, as on the CPU.
      const std::uint32_t id = in_ids[c];
      T* in_row = row_at<T>(input, id, width);
      for (std::uint32_t p = lane; p < pairs; p += 32) {
        const std::uint32_t e = 2 * p;
        const float2 xp = shared_pair(x, e);
        float d0 = 0, d1 = 0;
        for (std::uint32_t o = 0; o < n_out; ++o) {
          const float2 out = shared_pair(out_rows + o * stride, e);
          d0 += g[o] * out.x;
          d1 += g[o] * out.y;
        }
        for (std::uint32_t o = 0; o < n_out; ++o) {
          float2& out = shared_pair(out_rows + o * stride, e);
          out.x += step[o] * xp.x;
          out.y += step[o] * xp.y;
        }
        add_pair(in_row + e, d0, d1, input.pair_atomics);
        for (std::uint32_t later = c + 1; later < n_in; ++later) {
          if (in_ids[later] != id) continue;
          float2& copy = shared_pair(in_rows + later * stride, e);
          copy.x += d0;
          copy.y += d1;
        }
      }
    }
    if (lane == 0) warp_loss += window_loss;

    // The output rows' steps, summed over the inputs in the CPU's order: in_rows[c] still
    // holds the value input c had when it was scored.
    for (std::uint32_t o = 0; o < n_out; ++o) {
      T* out_row = row_at<T>(output, out_ids[o], width);
      for (std::uint32_t p = lane; p < pairs; p += 32) {
        const std::uint32_t e = 2 * p;
        float a = 0, a1 = 0;
        for (std::uint32_t c = 0; c < n_in; ++c) {
          const float gc = gradient[c * max_out + o];
          const float2 in = shared_pair(in_rows + c * stride, e);
          a += gc * in.x;
          a1 += gc * in.y;
        }
        add_pair(out_row + e, a, a1, output.pair_atomics);
      }
    }
    __syncwarp();  // every lane is done with this window's lists before lane 0 writes the next's
  }
  if (lane == 0 && warp_loss != 0) atomicAdd(loss_out, warp_loss);
}

// Floats of shared memory one window takes in skipgram_rows_kernel: the inputs' vectors
// and their gradients, the distinct output rows' vectors twice (as the warps step them, and
// as the replay steps them), the outputs' scales per input, the output rows' ids and
// copies, and which inputs repeat an earlier one.
__host__ __device__ inline std::size_t rows_window_floats(std::size_t max_inputs, std::size_t max_out, std::size_t stride) {
  return (2 * max_inputs + 2 * max_out) * stride + max_inputs * max_out + 2 * max_out + max_inputs;
}

// Thread 0 lists a window's distinct output rows: its target, then each negative other
// than the target once, in the order first drawn, with how many times each was drawn
// (`copies`: a negative drawn twice is one row on the CPU, scored twice from the same
// value and stepped by both).
__device__ inline void list_distinct_outputs(const KernelBatch& b, std::uint32_t w, std::uint32_t* out_ids, float* copies,
                                             std::uint32_t& n_rows) {
  const std::uint32_t K = b.negatives_per_window, target = b.targets[w];
  const std::uint32_t* negatives = b.negatives + std::size_t{w} * K;
  out_ids[0] = target;
  copies[0] = 1;
  std::uint32_t n = 1;
  for (std::uint32_t k = 0; k < K; ++k) {
    const std::uint32_t negative = negatives[k];
    if (negative == target) continue;  // word2vec skips it
    std::uint32_t r = 1;
    while (r < n && out_ids[r] != negative) ++r;
    if (r == n) {
      out_ids[n] = negative;
      copies[n++] = 0;
    }
    copies[r] += 1;
  }
  n_rows = n;
}

// The inputs [from, to)'s gradients (in_steps), from the output rows as each of them found
// them: a thread per element (of `elements`: an odd dim's padding too, whose zeros give a
// zero gradient), each element's outputs stepped input after input from their state after
// input `from` - 1 (`replayed`, which it leaves after input to - 1), with the scales the
// warps found (out_steps). The CPU's arithmetic in the CPU's order: an input's gradient
// summed over the outputs in turn, each before its step. Every thread calls it.
__device__ inline void replay_inputs(std::uint32_t from, std::uint32_t to, std::uint32_t n_rows, std::uint32_t elements,
                                     std::uint32_t stride, std::uint32_t max_out, const float* in_rows, const float* out_steps,
                                     float* replayed, float* in_steps) {
  for (std::uint32_t e = threadIdx.x; e < elements; e += blockDim.x) {
    for (std::uint32_t c = from; c < to; ++c) {
      const float x = in_rows[c * stride + e];
      float d = 0;
      for (std::uint32_t r = 0; r < n_rows; ++r) {
        const float g = out_steps[c * max_out + r], value = replayed[r * stride + e];
        d += g * value;
        replayed[r * stride + e] = value + g * x;
      }
      in_steps[c * stride + e] = d;
    }
  }
}

// skipgram_kernel's window with a warp per output row (EMBED_GPU_SKIPGRAM_KERNEL=rows, for
// experiments): the block kernel passes two barriers per input and then steps the outputs'
// copies with a thread per element pair looping over every output (at dim 100, 50 of its
// 256 threads); at 512 windows in flight a window's latency bounds the words/s. Here warp
// r owns output row r (and r + 8, ...) for the whole window: for each input in turn it
// scores its row against the input and steps its copy, without waiting for the other
// warps, since no warp reads another's row and the inputs' copies do not change. Each
// input's gradient, a sum over every warp's row, is then replayed by the whole block from
// the scales the warps found (replay_inputs: no atomics, the CPU's order of sums) and goes
// to the table once the window's last input is done. An input that repeats an earlier one
// needs the earlier copies' steps first, as on the CPU: only there does the block wait
// (twice), and replay the inputs before it. Each lane owns elements lane, lane + 32, ...
// of its rows in the per-input phase. Its arithmetic is the CPU's but for a negative drawn
// twice, stepped once by twice its step rather than twice.
template <typename T, typename Rule>
__global__ void skipgram_rows_kernel(KernelBatch b, SplitTable input, SplitTable output, std::uint32_t stride,
                                     std::uint32_t width, std::uint32_t dim, KernelLogistic logistic, Rule rule,
                                     double* loss_out) {
  static_assert(!kKeepsState<Rule>, "rules with state take skipgram_state_kernel");
  extern __shared__ float shared[];
  __shared__ std::uint32_t n_rows_shared;
  __shared__ unsigned inputs_repeat_shared;  // 1: some input repeats an earlier one (set by atomicOr)
  __shared__ unsigned long long clock_sums[kBlockClockWords];
  BlockClocks clocks(b.clocks, clock_sums);  // EMBED_GPU_KERNEL_CLOCKS: kRowsKernelPhases
  const std::uint32_t max_in = b.max_inputs, max_out = b.negatives_per_window + 1;
  float* in_rows = shared;                         // max_in × stride: as each input was scored
  float* in_steps = in_rows + max_in * stride;     // max_in × stride: each input's gradient, summed over the output rows
  float* out_rows = in_steps + max_in * stride;    // max_out × stride: the distinct output rows, as the warps step them
  float* replayed = out_rows + max_out * stride;   // max_out × stride: the same, as replay_inputs steps them
  float* out_steps = replayed + max_out * stride;  // max_in × max_out: output row r's scale of input c in its step
  float* copies = out_steps + max_in * max_out;    // max_out: how many times each output row was drawn
  auto* out_ids = reinterpret_cast<std::uint32_t*>(copies + max_out);  // max_out
  std::uint32_t* repeats_earlier = out_ids + max_out;                  // max_in: 1 where an earlier input is the same word
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  const std::uint32_t pairs = (dim + 1) / 2;  // an odd dim reads one padding zero
  double warp_loss = 0;                       // lane 0's
  for_each_block_window(b, [&](std::uint32_t w, std::uint32_t last_window, const std::uint32_t* in_ids, std::uint32_t n_in) {
    // Other threads may still be adding the window before's input sums (the loop's end):
    // they read neither list.
    clocks.window(n_in);
    if (threadIdx.x == 0) {
      list_distinct_outputs(b, w, out_ids, copies, n_rows_shared);
      inputs_repeat_shared = 0;
    }
    __syncthreads();  // inputs_repeat_shared is 0 before any thread sets it
    clocks.mark(0);
    for (std::uint32_t c = threadIdx.x; c < n_in; c += blockDim.x) {
      std::uint32_t repeat = 0;
      for (std::uint32_t earlier = 0; earlier < c; ++earlier) repeat |= in_ids[earlier] == in_ids[c] ? 1u : 0u;
      repeats_earlier[c] = repeat;
      if (repeat) atomicOr(&inputs_repeat_shared, 1u);
    }
    const std::uint32_t n_rows = n_rows_shared;
    load_rows<T>(input, in_ids, n_in, width, stride, pairs, in_rows);
    load_rows<T>(output, out_ids, n_rows, width, stride, pairs, out_rows, replayed);
    __syncthreads();
    clocks.mark(1);
    const bool inputs_repeat = inputs_repeat_shared != 0;
    // A warp without a row asks the L2 cache for the next window's rows meanwhile.
    if (warp == warps - 1 && n_rows < warps && w + 1 < last_window) warp_prefetch_window<T>(b, w + 1, input, output, width);

    float window_loss = 0;   // lane 0's
    std::uint32_t done = 0;  // inputs whose gradients are replayed
    for (std::uint32_t c = 0; c < n_in; ++c) {
      if (inputs_repeat && repeats_earlier[c]) {
        // The same word as an earlier input: its copy takes the earlier copies' steps
        // first, as the CPU's row has them, once every warp is past them.
        __syncthreads();
        replay_inputs(done, c, n_rows, 2 * pairs, stride, max_out, in_rows, out_steps, replayed, in_steps);
        done = c;
        for (std::uint32_t e = threadIdx.x; e < dim; e += blockDim.x) {  // the elements this thread replayed
          for (std::uint32_t earlier = 0; earlier < c; ++earlier) {
            if (in_ids[earlier] == in_ids[c]) in_rows[c * stride + e] += in_steps[earlier * stride + e];
          }
        }
        __syncthreads();
      }
      const float* x = in_rows + c * stride;
      for (std::uint32_t r = warp; r < n_rows; r += warps) {
        float* out = out_rows + r * stride;
        float score = 0;
        for (std::uint32_t e = lane; e < dim; e += 32) score += x[e] * out[e];
        score = warp_sum(score);  // the same total in every lane
        const float label = r == 0 ? 1.0f : 0.0f, drawn = copies[r];
        const float g = rule.gradient_scale(label - sigmoid(score, logistic)) * drawn;
        if (lane == 0) {
          out_steps[c * max_out + r] = g;
          window_loss += drawn * log_loss(r == 0 ? score : -score, logistic);
        }
        for (std::uint32_t e = lane; e < dim; e += 32) out[e] += g * x[e];
      }
    }
    if (lane == 0) warp_loss += window_loss;
    __syncwarp();  // lane 0's scales
    clocks.mark(2);

    // Each warp's rows' steps, summed over the inputs, with atomics: in_rows[c] still holds
    // the value input c had when it was scored.
    for (std::uint32_t r = warp; r < n_rows; r += warps) {
      for (std::uint32_t p = lane; p < pairs; p += 32) {
        add_weighted_row<T>(output, out_ids[r], width, in_rows, n_in, stride, 2 * p,
                            [&](std::uint32_t c) { return out_steps[c * max_out + r]; });
      }
    }
    __syncthreads();  // every input's scales are in
    clocks.mark(3);
    replay_inputs(done, n_in, n_rows, 2 * pairs, stride, max_out, in_rows, out_steps, replayed, in_steps);
    __syncthreads();  // every input's gradient is whole
    clocks.mark(4);
    for (std::uint32_t i = threadIdx.x; i < n_in * pairs; i += blockDim.x) {
      const std::uint32_t c = i / pairs, e = 2 * (i % pairs);
      add_pair(row_at<T>(input, in_ids[c], width) + e, in_steps[c * stride + e], in_steps[c * stride + e + 1],
               input.pair_atomics);
    }
    clocks.mark(5);
    // No barrier: the next window's lists do not touch the sums, and its loads come after
    // the barrier behind them (the block's own atomics are visible to them after it).
  });
  clocks.finish();
  if (lane == 0 && warp_loss != 0) atomicAdd(loss_out, warp_loss);
}

// A rule's values for one step of a row whose state is in the table (`state`), computed
// once by thread 0 and handed to the whole block, so that every thread steps the row
// with the same ones while other blocks may change the state. A rule whose Row is empty
// (AdaGrad's) needs neither; one that has values costs two barriers. Every thread calls
// it. `shared_row` is the block's; a rule with state whose `concurrent` is true only
// reads its state in begin.
template <typename Rule>
__device__ inline typename Rule::Row block_begin(const Rule& rule, float* state, typename Rule::Row* shared_row) {
  using Row = typename Rule::Row;
  if constexpr (std::is_empty_v<Row>) {
    return Row{};
  } else {
    if (threadIdx.x == 0) *shared_row = rule.begin(state);
    __syncthreads();
    const Row r = *shared_row;
    __syncthreads();  // before thread 0 writes the next one
    return r;
  }
}

// After a step of a row whose state is in the table: a rule that sums over the row (its
// thread's part in `sum`) gets the block's total, added to the state by thread 0. Every
// thread calls it.
template <typename Rule>
__device__ inline void block_end(const Rule& rule, float* state, float sum, std::uint32_t dim, float* partial) {
  if constexpr (Rule::sums_row) {
    const float total = block_sum(sum, partial);
    if (threadIdx.x == 0) rule_end<AtomicAdd>(rule, state, total, dim);
  }
}

// Element k (< dim) of a row stepped by the ascent direction `ascent` through the rule's
// element form, as the CPU's rule_step does: returns the change (to subtract).
template <typename Add, typename Rule>
__device__ inline float rule_change(const Rule& rule, const typename Rule::Row& r, float* state, std::uint32_t k, float value,
                                    float ascent, float& sum) {
  return rule.template change<Add>(r, state, k, value, -ascent, sum);
}

// Skip-gram with a rule that keeps state (f32 rows of `width` floats, the state from
// `stride`): word2vec_kernels.h has the scheme. Shared memory: the inputs' vectors, the
// output rows whole twice (as stepped, as loaded), the gradients, the output rows' sums
// (sums_row), their ids and first copies.
template <typename Rule>
__global__ void skipgram_state_kernel(KernelBatch b, SplitTable input, SplitTable output, std::uint32_t stride,
                                      std::uint32_t width, std::uint32_t dim, KernelLogistic logistic, Rule rule,
                                      double* loss_out) {
  using Row = typename Rule::Row;
  extern __shared__ float shared[];
  __shared__ std::uint32_t n_out_shared;
  __shared__ float loss_shared;
  __shared__ float partial[32];
  __shared__ Row input_row;
  __shared__ Row output_row[kMaxWindowOutputs];  // each output copy's values for this input's step
  const std::uint32_t max_out = b.negatives_per_window + 1;
  float* in_rows = shared;                              // max_inputs × stride
  float* out_rows = in_rows + b.max_inputs * stride;    // max_out × width: vector and state, as stepped
  float* out_loaded = out_rows + max_out * width;       // max_out × width: as loaded
  float* gradient = out_loaded + max_out * width;       // max_inputs × max_out
  float* row_sums = gradient + b.max_inputs * max_out;  // max_out: sums_row rules' sums over a row's step
  auto* out_ids = reinterpret_cast<std::uint32_t*>(row_sums + max_out);
  std::uint32_t* first_copy = out_ids + max_out;
  const std::uint32_t pairs = (dim + 1) / 2;
  const unsigned lane = threadIdx.x & 31;
  double block_loss = 0;  // thread 0's
  if (threadIdx.x == 0) loss_shared = 0;
  for (std::uint32_t o = threadIdx.x; o < max_out; o += blockDim.x) row_sums[o] = 0;
  std::uint32_t first_window, last_window;
  block_windows(b.windows, first_window, last_window);
  for (std::uint32_t w = first_window; w < last_window; ++w) {
    const std::uint32_t* in_ids;
    std::uint32_t n_in;
    if (!window_inputs(b, w, in_ids, n_in)) continue;  // the same for every thread of the block
    if (threadIdx.x == 0) list_outputs(b, w, out_ids, first_copy, n_out_shared);
    __syncthreads();
    const std::uint32_t n_out = n_out_shared;
    load_rows<float>(input, in_ids, n_in, width, stride, pairs, in_rows);
    load_whole_rows(output, out_ids, n_out, width, out_rows, out_loaded);
    __syncthreads();

    // A negative drawn twice is one row on the CPU, stepped by both copies in turn: here
    // its first copy, which the scores read too.
    auto out_row = [&](std::uint32_t o) { return out_rows + first_copy[o] * width; };
    float warp_loss = 0;
    for (std::uint32_t c = 0; c < n_in; ++c) {
      float* in_table = row_at<float>(input, in_ids[c], width);
      float* in_state = in_table + stride;
      // The rows' values for this input's step, from thread 0 (begin may count the step
      // in the state: Adam's beta powers), the outputs' copies in turn. An empty Row's
      // begin changes nothing.
      if (!std::is_empty_v<Row> && threadIdx.x == 0) {
        input_row = rule.begin(in_state);
        for (std::uint32_t o = 0; o < n_out; ++o) output_row[o] = rule.begin(out_row(o) + stride);
      }
      score_input(rule, in_rows + c * stride, out_row, n_out, dim, logistic, gradient + c * max_out, warp_loss);
      __syncthreads();
      const Row r_in = input_row;
      const float* g = gradient + c * max_out;
      const float* x = in_rows + c * stride;
      // Input c's step, in the table: its gradient from the output rows before their
      // steps (each thread its own elements, in the CPU's order of sums), and later
      // copies of the same word take it too, as on the CPU.
      float in_sum = 0;
      for (std::uint32_t k = threadIdx.x; k < dim; k += blockDim.x) {
        float d = 0;
        for (std::uint32_t o = 0; o < n_out; ++o) d += g[o] * out_row(o)[k];
        const float change = rule_change<AtomicAdd>(rule, r_in, in_state, k, x[k], d, in_sum);
        atomicAdd(in_table + k, -change);
        for (std::uint32_t later = c + 1; later < n_in; ++later) {
          if (in_ids[later] == in_ids[c]) in_rows[later * stride + k] -= change;
        }
      }
      // The output rows' copies, one after another (the same thread owns element k of
      // every copy, so a row's two copies step in turn).
      for (std::uint32_t o = 0; o < n_out; ++o) {
        float* out = out_row(o);
        const Row r = std::is_empty_v<Row> ? Row{} : output_row[o];
        float sum = 0;
        for (std::uint32_t k = threadIdx.x; k < dim; k += blockDim.x) {
          out[k] -= rule_change<PlainAdd>(rule, r, out + stride, k, out[k], g[o] * x[k], sum);
        }
        if constexpr (Rule::sums_row) {
          sum = warp_sum(sum);
          if (lane == 0 && sum != 0) atomicAdd(row_sums + o, sum);
        }
      }
      block_end(rule, in_state, in_sum, dim, partial);  // a barrier for sums_row
      if constexpr (Rule::sums_row) {
        if (threadIdx.x < n_out) {
          const std::uint32_t o = threadIdx.x;
          rule_end<AtomicAdd>(rule, out_row(o) + stride, row_sums[o], dim);  // two copies of a row add in turn
          row_sums[o] = 0;
        }
      }
      __syncthreads();
    }
    add_window_loss(warp_loss, loss_shared, block_loss);
    // Each row's change over the window (vector and state, not the padding, which stays
    // zero), from its first copy, with atomics. A rule whose state is not a sum (Adam's
    // decaying moments) has its state written instead, as its input rows' is: added, the
    // changes of many windows stepping one row at once would overshoot the state (a
    // moment decayed by each as if alone) rather than keep the last writer's.
    for (std::uint32_t i = threadIdx.x; i < n_out * width; i += blockDim.x) {
      const std::uint32_t o = i / width, e = i % width;
      if (first_copy[o] != o || (e >= dim && e < stride)) continue;
      float* table = row_at<float>(output, out_ids[o], width) + e;
      if (!Rule::concurrent && e >= stride) {
        if (out_rows[i] != out_loaded[i]) *table = out_rows[i];
        continue;
      }
      const float change = out_rows[i] - out_loaded[i];
      if (change != 0) atomicAdd(table, change);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0 && block_loss != 0) atomicAdd(loss_out, block_loss);
}

// Steps a table row (row_at's, of T) by the ascent direction scale × x, thread p taking
// element pair p (an odd dim's last pair ends in padding, which stays zero): a plain add
// for a rule without state; else the rule's element form, its state (f32 rows: after the
// padded vector, at `stride`) changed by atomic adds. `before(k, value)` sees each
// element before its step (CBOW's mean gradient). Returns the thread's part of the sum a
// sums_row rule keeps (block_end adds it up). Every thread calls it.
template <typename T, typename Rule, typename Before>
__device__ inline float step_row(const Rule& rule, const typename Rule::Row& r, T* row, std::uint32_t stride, float scale,
                                 const float* x, std::uint32_t dim, Before before) {
  float sum = 0;
  for (std::uint32_t p = threadIdx.x; p < (dim + 1) / 2; p += blockDim.x) {
    const std::uint32_t e = 2 * p;
    if constexpr (!kKeepsState<Rule>) {
      const float2 v = load_pair(row + e);
      before(e, v.x);
      before(e + 1, v.y);
      add_pair(row + e, scale * x[e], scale * x[e + 1]);
    } else {
      float* state = row + stride;
      for (std::uint32_t k = e; k < e + 2 && k < dim; ++k) {
        const float value = row[k];
        before(k, value);
        atomicAdd(row + k, -rule_change<AtomicAdd>(rule, r, state, k, value, scale * x[k], sum));
      }
    }
  }
  return sum;
}

// CBOW, every row stepped in the table as the CPU steps it (step_row): the outputs in
// turn against the inputs' mean, then each input by the mean's gradient. Rows are `width`
// elements of T: f32 with the rule's state after `stride`, or (SGD) `stride` of any T.
template <typename T, typename Rule>
__global__ void cbow_kernel(KernelBatch b, SplitTable input, SplitTable output, std::uint32_t stride, std::uint32_t width,
                            std::uint32_t dim, KernelLogistic logistic, Rule rule, double* loss_out) {
  static_assert(!kKeepsState<Rule> || std::is_same_v<T, float>, "an optimizer's state needs f32 rows");
  using Row = typename Rule::Row;
  extern __shared__ float shared[];
  __shared__ float partial[32];
  __shared__ Row shared_row;
  float* mean = shared;  // stride
  float* mean_gradient = mean + stride;
  const std::uint32_t pairs = (dim + 1) / 2;
  double loss = 0;  // every thread keeps the same tally; thread 0's is added
  std::uint32_t first_window, last_window;
  block_windows(b.windows, first_window, last_window);
  for (std::uint32_t w = first_window; w < last_window; ++w) {
    const std::uint32_t* in_ids;
    std::uint32_t n_in;
    if (!window_inputs(b, w, in_ids, n_in)) continue;  // the same for every thread of the block
    // Each thread owns the same element pairs throughout, so it alone reads and writes
    // them in mean, mean_gradient and (between the atomics) the rows it steps.
    window_mean<T>(input, in_ids, n_in, width, pairs, mean, mean_gradient);
    // Each row's step: its rule's values for it (block_begin), the step, then what the
    // rule sums over the row (block_end).
    auto step = [&](T* row, float scale, const float* x, auto before) {
      float* state = nullptr;
      if constexpr (kKeepsState<Rule>) state = row + stride;
      const Row r = block_begin(rule, state, &shared_row);
      block_end(rule, state, step_row<T>(rule, r, row, stride, scale, x, dim, before), dim, partial);
    };
    auto train_output = [&](std::uint32_t id, float label) {
      T* out = row_at<T>(output, id, width);
      const float score = block_dot(out, mean, pairs, partial);
      const float g = rule.gradient_scale(label - sigmoid(score, logistic));
      loss += log_loss(label > 0 ? score : -score, logistic);
      step(out, g, mean, [&](std::uint32_t k, float value) { mean_gradient[k] += g * value; });
    };
    const std::uint32_t target = b.targets[w];
    train_output(target, 1.0f);
    for (std::uint32_t k = 0; k < b.negatives_per_window; ++k) {
      const std::uint32_t negative = b.negatives[w * b.negatives_per_window + k];
      if (negative != target) train_output(negative, 0.0f);
    }
    for (std::uint32_t c = 0; c < n_in; ++c) {
      step(row_at<T>(input, in_ids[c], width), 1.0f, mean_gradient, [](std::uint32_t, float) {});
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

}  // namespace

std::size_t skipgram_shared_bytes(std::uint32_t max_inputs, std::uint32_t negatives, std::uint32_t stride, std::uint32_t width,
                                  SkipgramKernel kernel) {
  const std::size_t max_out = negatives + 1;
  // SGD: a warp's window (the block kernel's layout and the inputs' ids and summed steps),
  // or the rows kernel's (rows_window_floats: the inputs' gradients and the replayed rows too).
  if (width == stride && kernel == SkipgramKernel::rows) return rows_window_floats(max_inputs, max_out, stride) * sizeof(float);
  if (width == stride) return warp_window_floats(max_inputs, max_out, stride) * sizeof(float);
  // A rule with state: the inputs' vectors, the gradients, the output rows' ids and first
  // copies, and their whole rows twice and their sums.
  const std::size_t common = max_inputs * stride + max_inputs * max_out + 2 * max_out;
  return (common + 2 * max_out * width + max_out) * sizeof(float);
}

std::size_t cbow_shared_bytes(std::uint32_t stride) { return 2 * std::size_t{stride} * sizeof(float); }

namespace {

// Calls f(kernel_rule's struct, a null T*) for every storage type T its kernels take: f32,
// f16 and bf16 for a rule without state, f32 alone for one with.
template <typename F>
void with_rule_and_storage(const KernelRuleSpec& kernel_rule, float learning_rate, Storage storage, F&& f) {
  with_kernel_rule(kernel_rule, learning_rate, [&](const auto& rule) {
    using Rule = std::decay_t<decltype(rule)>;
    with_storage(storage, [&](auto* type) {
      using T = std::remove_pointer_t<decltype(type)>;
      if constexpr (!kKeepsState<Rule> || std::is_same_v<T, float>) f(rule, type);
    });
  });
}

// Calls f(rule, kernel, threads per block) for skip-gram's or CBOW's kernel for that rule
// and storage: for skip-gram with SGD, the one `choice` names.
template <typename F>
void with_window_kernel(bool skipgram, SkipgramKernel choice, const KernelRuleSpec& kernel_rule, float learning_rate,
                        Storage storage, F&& f) {
  with_rule_and_storage(kernel_rule, learning_rate, storage, [&](const auto& rule, auto* type) {
    using Rule = std::decay_t<decltype(rule)>;
    using T = std::remove_pointer_t<decltype(type)>;
    if (!skipgram) {
      f(rule, cbow_kernel<T, Rule>, window_threads());
    } else if constexpr (kKeepsState<Rule>) {
      f(rule, skipgram_state_kernel<Rule>, window_threads());
    } else if (choice == SkipgramKernel::warp) {
      f(rule, skipgram_warp_kernel<T, Rule>, 32u);
    } else if (choice == SkipgramKernel::rows) {
      f(rule, skipgram_rows_kernel<T, Rule>, window_threads());
    } else {
      f(rule, skipgram_kernel<T, Rule>, window_threads());
    }
  });
}

}  // namespace

cudaError_t allow_shared_memory(std::size_t bytes) {
  cudaError_t status = cudaSuccess;
  // Every kernel launch_skipgram and launch_cbow instantiate.
  for (bool skipgram : {true, false}) {
    for (SkipgramKernel choice : {SkipgramKernel::warp, SkipgramKernel::block, SkipgramKernel::rows}) {
      for_each_kernel_rule([&](KernelRule kernel_rule) {
        for (Storage storage : {Storage::f32, Storage::f16, Storage::bf16}) {
          with_window_kernel(
              skipgram, choice, KernelRuleSpec{kernel_rule}, 0.0f, storage, [&](const auto&, auto* kernel, unsigned) {
                const cudaError_t e = cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                                           cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
                if (e != cudaSuccess) status = e;
              });
        }
      });
    }
  }
  return status;
}

namespace {

// Skip-gram's or CBOW's kernel for the rule: SGD's for the tables' storage type, or the
// rule with state's (f32 rows with their state after the padded vector).
cudaError_t launch_window_kernel(bool skipgram, SkipgramKernel choice, const KernelBatch& batch, const KernelTables& t,
                                 const KernelLogistic& logistic, const KernelRuleSpec& kernel_rule, float learning_rate,
                                 double* loss, unsigned max_blocks, cudaStream_t stream) {
  if (batch.windows == 0) return cudaSuccess;
  const std::size_t shared = skipgram
                                 ? skipgram_shared_bytes(batch.max_inputs, batch.negatives_per_window, t.stride, t.width, choice)
                                 : cbow_shared_bytes(t.stride);
  const unsigned blocks = blocks_for(batch, max_blocks);
  bool launched = false;
  with_window_kernel(
      skipgram, choice, kernel_rule, learning_rate, t.storage, [&](const auto& rule, auto* kernel, unsigned threads) {
        // A rule keeps state after the vector exactly when the rows are wider than it.
        if (kKeepsState<std::decay_t<decltype(rule)>> != (t.width > t.stride)) return;
        kernel<<<blocks, threads, shared, stream>>>(batch, t.input, t.output, t.stride, t.width, t.dim, logistic, rule, loss);
        launched = true;
      });
  return launched ? cudaGetLastError() : cudaErrorInvalidValue;
}

}  // namespace

cudaError_t launch_skipgram(const KernelBatch& batch, const KernelTables& t, const KernelLogistic& logistic,
                            const KernelRuleSpec& kernel_rule, float learning_rate, double* loss, unsigned max_blocks,
                            cudaStream_t stream, SkipgramKernel kernel) {
  return launch_window_kernel(true, kernel, batch, t, logistic, kernel_rule, learning_rate, loss, max_blocks, stream);
}

cudaError_t launch_cbow(const KernelBatch& batch, const KernelTables& t, const KernelLogistic& logistic,
                        const KernelRuleSpec& kernel_rule, float learning_rate, double* loss, unsigned max_blocks,
                        cudaStream_t stream) {
  return launch_window_kernel(false, SkipgramKernel::block, batch, t, logistic, kernel_rule, learning_rate, loss, max_blocks,
                              stream);
}

}  // namespace embed::cuda
