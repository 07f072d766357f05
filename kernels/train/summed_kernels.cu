#include "kernels/train/summed_kernels.h"

#include <algorithm>
#include <type_traits>

#include "kernels/common/storage.cuh"
#include "kernels/common/warp_sum.cuh"
#include "kernels/train/kernel_rules.cuh"
#include "kernels/train/window_common.cuh"

namespace embed::cuda {
namespace {

constexpr unsigned kThreads = 256;  // per block, as the window kernels (word2vec_kernels.cu)
constexpr unsigned kWarps = kThreads / 32;
// Blocks of the stepping kernel at most: each warp steps every so-many-th listed row.
constexpr unsigned kMaxStepBlocks = 1024;

// Lists `row` in `sums` unless the step has listed it already.
__device__ inline void list_row(const KernelRowSums& sums, std::uint32_t row) {
  if (atomicExch(sums.listed + row, 1u) == 0) sums.rows[atomicAdd(sums.count, 1u)] = row;
}

// Adds (a, b) to element pair e of row `row`'s sum.
__device__ inline void add_to_sum(const KernelRowSums& sums, std::uint32_t row, std::uint32_t stride, std::uint32_t e, float a,
                                  float b) {
  float* sum = sums.sums + static_cast<std::size_t>(row) * stride + e;
  atomicAdd(sum, a);
  atomicAdd(sum + 1, b);
}

// Skip-gram's gradients of windows [first, end), a block per window: every input's scores
// against the window's outputs (a negative drawn twice counts twice, as on the CPU),
// from the rows as they stand; then input c's sum gets Σ_o g(c, o) × output o and output
// o's Σ_c g(c, o) × input c, a thread per (row, element pair). Rows of `width` floats,
// their vectors `stride` apart in shared memory.
template <typename Rule>
__global__ void skipgram_sum_kernel(KernelBatch b, std::uint32_t first, std::uint32_t end, SplitTable input, SplitTable output,
                                    std::uint32_t stride, std::uint32_t width, std::uint32_t dim, KernelLogistic logistic,
                                    Rule rule, KernelRowSums input_sums, KernelRowSums output_sums, double* loss_out) {
  extern __shared__ float shared[];
  __shared__ std::uint32_t n_out_shared;
  __shared__ float loss_shared;
  const std::uint32_t max_out = b.negatives_per_window + 1;
  float* in_rows = shared;                            // max_inputs × stride
  float* out_rows = in_rows + b.max_inputs * stride;  // max_out × stride
  float* gradient = out_rows + max_out * stride;      // max_inputs × max_out
  auto* out_ids = reinterpret_cast<std::uint32_t*>(gradient + b.max_inputs * max_out);
  std::uint32_t* first_copy = out_ids + max_out;  // list_outputs fills it; not needed here
  const std::uint32_t pairs = (dim + 1) / 2;
  double block_loss = 0;  // thread 0's
  if (threadIdx.x == 0) loss_shared = 0;
  for (std::uint32_t w = first + blockIdx.x; w < end; w += gridDim.x) {
    const std::uint32_t* in_ids;
    std::uint32_t n_in;
    if (!window_inputs(b, w, in_ids, n_in)) continue;  // the same for every thread of the block
    if (threadIdx.x == 0) list_outputs(b, w, out_ids, first_copy, n_out_shared);
    __syncthreads();
    const std::uint32_t n_out = n_out_shared;
    load_rows<float>(input, in_ids, n_in, width, stride, pairs, in_rows);
    load_rows<float>(output, out_ids, n_out, width, stride, pairs, out_rows);
    for (std::uint32_t i = threadIdx.x; i < n_in + n_out; i += blockDim.x) {
      if (i < n_in) {
        list_row(input_sums, in_ids[i]);
      } else {
        list_row(output_sums, out_ids[i - n_in]);
      }
    }
    __syncthreads();
    float warp_loss = 0;
    for (std::uint32_t c = 0; c < n_in; ++c) {
      score_input(
          rule, in_rows + c * stride, [&](std::uint32_t o) { return out_rows + o * stride; }, n_out, dim, logistic,
          gradient + c * max_out, warp_loss);
    }
    __syncthreads();
    add_window_loss(warp_loss, loss_shared, block_loss);  // a barrier: the gradients are in
    for (std::uint32_t i = threadIdx.x; i < (n_in + n_out) * pairs; i += blockDim.x) {
      const std::uint32_t row = i / pairs, e = 2 * (i % pairs);
      float a = 0, c = 0;
      if (row < n_in) {
        for (std::uint32_t o = 0; o < n_out; ++o) {
          const float g = gradient[row * max_out + o];
          a += g * out_rows[o * stride + e];
          c += g * out_rows[o * stride + e + 1];
        }
        add_to_sum(input_sums, in_ids[row], stride, e, a, c);
      } else {
        const std::uint32_t o = row - n_in;
        for (std::uint32_t k = 0; k < n_in; ++k) {
          const float g = gradient[k * max_out + o];
          a += g * in_rows[k * stride + e];
          c += g * in_rows[k * stride + e + 1];
        }
        add_to_sum(output_sums, out_ids[o], stride, e, a, c);
      }
    }
    __syncthreads();  // before the next window's rows replace these
  }
  if (threadIdx.x == 0 && block_loss != 0) atomicAdd(loss_out, block_loss);
}

// CBOW's gradients of windows [first, end), a block per window: the inputs' mean against
// each output in turn (the rows as they stand), each output's sum getting g × the mean,
// and every input's the mean's gradient Σ g × output, unscaled, as word2vec's. Each
// thread owns the same element pairs of the mean and its gradient throughout.
template <typename Rule>
__global__ void cbow_sum_kernel(KernelBatch b, std::uint32_t first, std::uint32_t end, SplitTable input, SplitTable output,
                                std::uint32_t stride, std::uint32_t width, std::uint32_t dim, KernelLogistic logistic, Rule rule,
                                KernelRowSums input_sums, KernelRowSums output_sums, double* loss_out) {
  extern __shared__ float shared[];
  __shared__ float partial[32];
  float* mean = shared;                  // stride
  float* mean_gradient = mean + stride;  // stride
  const std::uint32_t pairs = (dim + 1) / 2;
  double loss = 0;  // every thread keeps the same tally; thread 0's is added
  for (std::uint32_t w = first + blockIdx.x; w < end; w += gridDim.x) {
    const std::uint32_t* in_ids;
    std::uint32_t n_in;
    if (!window_inputs(b, w, in_ids, n_in)) continue;  // the same for every thread of the block
    window_mean<float>(input, in_ids, n_in, width, pairs, mean, mean_gradient);
    auto train_output = [&](std::uint32_t id, float label) {
      if (threadIdx.x == 0) list_row(output_sums, id);
      const float* out = row_at<float>(output, id, width);
      const float score = block_dot(out, mean, pairs, partial);
      const float g = rule.gradient_scale(label - sigmoid(score, logistic));
      loss += log_loss(label > 0 ? score : -score, logistic);
      for (std::uint32_t p = threadIdx.x; p < pairs; p += blockDim.x) {
        const std::uint32_t e = 2 * p;
        const float2 v = load_pair(out + e);
        mean_gradient[e] += g * v.x;
        mean_gradient[e + 1] += g * v.y;
        add_to_sum(output_sums, id, stride, e, g * mean[e], g * mean[e + 1]);
      }
    };
    const std::uint32_t target = b.targets[w];
    train_output(target, 1.0f);
    for (std::uint32_t k = 0; k < b.negatives_per_window; ++k) {
      const std::uint32_t negative = b.negatives[w * b.negatives_per_window + k];
      if (negative != target) train_output(negative, 0.0f);
    }
    for (std::uint32_t c = 0; c < n_in; ++c) {
      if (threadIdx.x == 0) list_row(input_sums, in_ids[c]);
      for (std::uint32_t p = threadIdx.x; p < pairs; p += blockDim.x) {
        const std::uint32_t e = 2 * p;
        add_to_sum(input_sums, in_ids[c], stride, e, mean_gradient[e], mean_gradient[e + 1]);
      }
    }
    __syncthreads();  // before the next window's mean replaces this one
  }
  if (threadIdx.x == 0 && loss != 0) atomicAdd(loss_out, loss);
}

// Every listed row (blockIdx.y 0: the input table's, 1: the output table's) takes its one
// step, a warp per row: its rule's values for the step from lane 0 (begin may count the
// step in the state), then element k's change by the rule's element form with the sum
// as its ascent, as the CPU's rule_step, and with `bias` (GloVe's) element dim's by the
// rule's bias form, as the CPU's glove_summed_steps.cpp; the sum is cleared and the row
// unlisted. The warp is the row's only writer, so the rule's state takes plain adds. The
// rule's state starts at `stride`, where the sums' rows end.
template <typename Rule>
__global__ void step_sums_kernel(SplitTable input, SplitTable output, std::uint32_t stride, std::uint32_t width,
                                 std::uint32_t dim, bool bias, Rule rule, KernelRowSums input_sums, KernelRowSums output_sums) {
  using Row = typename Rule::Row;
  __shared__ Row warp_rows[kWarps];
  const SplitTable& table = blockIdx.y == 0 ? input : output;
  const KernelRowSums& sums = blockIdx.y == 0 ? input_sums : output_sums;
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const std::uint32_t listed = *sums.count;
  for (std::uint32_t i = blockIdx.x * kWarps + warp; i < listed; i += gridDim.x * kWarps) {
    const std::uint32_t id = sums.rows[i];
    float* row = row_at<float>(table, id, width);
    float* state = row + stride;
    float* sum = sums.sums + static_cast<std::size_t>(id) * stride;
    Row r{};
    if constexpr (!std::is_empty_v<Row>) {
      if (lane == 0) warp_rows[warp] = rule.begin(state);
      __syncwarp();
      r = warp_rows[warp];
      __syncwarp();  // every lane has read it before lane 0 writes the next row's
    }
    float row_sum = 0;  // a sums_row rule's (RowAdagrad's), over the lanes
    for (std::uint32_t k = lane; k < dim; k += 32) {
      row[k] -= rule.template change<PlainAdd>(r, state, k, row[k], -sum[k], row_sum);
      sum[k] = 0;
    }
    if constexpr (Rule::sums_row) {
      row_sum = warp_sum(row_sum);
      if (lane == 0) rule_end<PlainAdd>(rule, state, row_sum, dim);
    }
    if (bias && lane == 0) {
      // Scale and coefficient alike: only AdaGrad's bias takes the coefficient, and its
      // gradient_scale is the identity.
      row[dim] -= rule_bias_change<PlainAdd>(rule, r, state, dim, row[dim], -sum[dim], -sum[dim]);
    }
    __syncwarp();  // the bias's sum is read before it is cleared
    for (std::uint32_t k = dim + lane; k < stride; k += 32) sum[k] = 0;
    if (lane == 0) sums.listed[id] = 0;
  }
}

// GloVe's gradients of records [first, end), a warp per record: the prediction from the
// rows as they stand, then each row's sum gets its ascent: minus the other row's values
// times the scaled coefficient, clipped per record (Stanford's clip), and minus the
// scaled coefficient for the bias (element dim), as glove_summed_steps.cpp.
template <typename Rule>
__global__ void glove_sum_kernel(const KernelGloveRecord* records, std::uint32_t first, std::uint32_t end, GloveTables t,
                                 Rule rule, KernelRowSums word_sums, KernelRowSums context_sums, double* loss_out,
                                 unsigned long long* trained_out) {
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const std::uint32_t dim = t.dim, stride = t.state;
  double loss = 0;  // lane 0's tallies
  unsigned long long trained = 0;
  const std::uint32_t warps = gridDim.x * kWarps;
  for (std::uint32_t i = first + blockIdx.x * kWarps + warp; i < end; i += warps) {
    const KernelGloveRecord r = records[i];
    const float* w = row_at<float>(t.words, r.row, t.width);
    const float* c = row_at<float>(t.contexts, r.column, t.width);
    float dot = 0;
    for (std::uint32_t k = lane; k < dim; k += 32) dot += w[k] * c[k];
    dot = warp_sum(dot);
    // Lane 0's, so that every lane takes the same branch below even where the biases
    // change while they are read (mpirun's rounds write hot rows from the host).
    const float diff = __shfl_sync(0xffffffffu, dot + w[dim] + c[dim] - r.log_count, 0);
    if (!isfinite(diff)) continue;
    const float fdiff = r.weight * diff;
    const float scale = rule.gradient_scale(fdiff);
    if (lane == 0) {
      loss += 0.5 * static_cast<double>(fdiff) * diff;
      ++trained;
      list_row(word_sums, r.row);
      list_row(context_sums, r.column);
    }
    float* gw = word_sums.sums + static_cast<std::size_t>(r.row) * stride;
    float* gc = context_sums.sums + static_cast<std::size_t>(r.column) * stride;
    for (std::uint32_t k = lane; k < dim; k += 32) {
      atomicAdd(gw + k, -fminf(fmaxf(scale * c[k], -kGloveGradientClip), kGloveGradientClip));
      atomicAdd(gc + k, -fminf(fmaxf(scale * w[k], -kGloveGradientClip), kGloveGradientClip));
    }
    if (lane == 0) {
      atomicAdd(gw + dim, -scale);
      atomicAdd(gc + dim, -scale);
    }
  }
  add_block_totals<kWarps>(loss, trained, loss_out, trained_out);
}

// Launches the stepping kernel for every row the sums list, and clears their counts.
template <typename Rule>
cudaError_t step_and_clear(const Rule& rule, SplitTable first, SplitTable second, std::uint32_t stride, std::uint32_t width,
                           std::uint32_t dim, bool bias, const KernelRowSums& first_sums, const KernelRowSums& second_sums,
                           std::size_t listed_at_most, cudaStream_t stream) {
  const auto blocks = static_cast<unsigned>(std::min<std::size_t>((listed_at_most + kWarps - 1) / kWarps, kMaxStepBlocks));
  step_sums_kernel<Rule><<<dim3(std::max(blocks, 1u), 2), kThreads, 0, stream>>>(first, second, stride, width, dim, bias, rule,
                                                                                 first_sums, second_sums);
  cudaError_t status = cudaGetLastError();
  // The next step lists its rows afresh.
  if (status == cudaSuccess) status = cudaMemsetAsync(first_sums.count, 0, sizeof(std::uint32_t), stream);
  if (status == cudaSuccess) status = cudaMemsetAsync(second_sums.count, 0, sizeof(std::uint32_t), stream);
  return status;
}

}  // namespace

std::size_t summed_shared_bytes(bool skipgram, std::uint32_t max_inputs, std::uint32_t negatives, std::uint32_t stride) {
  return skipgram ? skipgram_shared_bytes(max_inputs, negatives, stride, stride) : cbow_shared_bytes(stride);
}

cudaError_t allow_summed_shared_memory(std::size_t bytes) {
  cudaError_t status = cudaSuccess;
  for_each_kernel_rule([&](KernelRule kernel_rule) {
    with_kernel_rule(KernelRuleSpec{kernel_rule}, 0.0f, [&](const auto& rule) {
      using Rule = std::decay_t<decltype(rule)>;
      for (const void* kernel :
           {reinterpret_cast<const void*>(skipgram_sum_kernel<Rule>), reinterpret_cast<const void*>(cbow_sum_kernel<Rule>)}) {
        const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
        if (e != cudaSuccess) status = e;
      }
    });
  });
  return status;
}

cudaError_t launch_summed_steps(bool skipgram, const KernelBatch& batch, const KernelTables& t, const KernelLogistic& logistic,
                                const KernelRuleSpec& kernel_rule, float learning_rate, const KernelRowSums& input_sums,
                                const KernelRowSums& output_sums, std::uint32_t windows_per_step, double* loss,
                                cudaStream_t stream) {
  if (batch.windows == 0) return cudaSuccess;
  if (t.storage != Storage::f32 || windows_per_step == 0) return cudaErrorInvalidValue;
  const std::size_t shared = summed_shared_bytes(skipgram, batch.max_inputs, batch.negatives_per_window, t.stride);
  // The rows a step can list, per table: its windows' inputs and outputs at most.
  const std::uint32_t per_window = std::max(batch.max_inputs, batch.negatives_per_window + 1);
  cudaError_t status = cudaSuccess;
  with_kernel_rule(kernel_rule, learning_rate, [&](const auto& rule) {
    using Rule = std::decay_t<decltype(rule)>;
    for (std::uint32_t first = 0; first < batch.windows && status == cudaSuccess; first += windows_per_step) {
      const std::uint32_t end = std::min(batch.windows, first + windows_per_step);
      const unsigned blocks = end - first;
      if (skipgram) {
        skipgram_sum_kernel<Rule><<<blocks, kThreads, shared, stream>>>(batch, first, end, t.input, t.output, t.stride, t.width,
                                                                        t.dim, logistic, rule, input_sums, output_sums, loss);
      } else {
        cbow_sum_kernel<Rule><<<blocks, kThreads, shared, stream>>>(batch, first, end, t.input, t.output, t.stride, t.width,
                                                                    t.dim, logistic, rule, input_sums, output_sums, loss);
      }
      status = cudaGetLastError();
      if (status == cudaSuccess) {
        status = step_and_clear(rule, t.input, t.output, t.stride, t.width, t.dim, false, input_sums, output_sums,
                                std::size_t{blocks} * per_window, stream);
      }
    }
  });
  return status;
}

cudaError_t launch_glove_summed_steps(const KernelGloveRecord* records, std::uint32_t count, const GloveTables& t,
                                      const KernelRuleSpec& kernel_rule, float learning_rate, const KernelRowSums& word_sums,
                                      const KernelRowSums& context_sums, std::uint32_t records_per_step, double* loss,
                                      unsigned long long* trained, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  if (records_per_step == 0) return cudaErrorInvalidValue;
  cudaError_t status = cudaSuccess;
  with_kernel_rule(kernel_rule, learning_rate, [&](const auto& rule) {
    using Rule = std::decay_t<decltype(rule)>;
    for (std::uint32_t first = 0; first < count && status == cudaSuccess; first += records_per_step) {
      const std::uint32_t end = std::min(count, first + records_per_step);
      const unsigned blocks = (end - first + kWarps - 1) / kWarps;  // a warp per record
      glove_sum_kernel<Rule>
          <<<blocks, kThreads, 0, stream>>>(records, first, end, t, rule, word_sums, context_sums, loss, trained);
      status = cudaGetLastError();
      if (status == cudaSuccess) {
        status = step_and_clear(rule, t.words, t.contexts, t.state, t.width, t.dim, true, word_sums, context_sums, end - first,
                                stream);
      }
    }
  });
  return status;
}

}  // namespace embed::cuda
