#include "kernels/train/glove_kernels.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "kernels/common/storage.cuh"
#include "kernels/common/warp_sum.cuh"
#include "kernels/train/kernel_rules.cuh"

namespace embed::cuda {
namespace {

constexpr unsigned kThreads = 256;
constexpr unsigned kWarpsPerBlock = kThreads / 32;
constexpr unsigned kFullMask = 0xffffffffu;

__device__ inline float clip(float x) { return fminf(fmaxf(x, -kGloveGradientClip), kGloveGradientClip); }

// Lane 0's value of a rule's per-row struct, in every lane (word by word).
template <typename T>
__device__ inline T from_lane_zero(T value) {
  if constexpr (std::is_empty_v<T>) {
    return value;
  } else {
    static_assert(sizeof(T) % sizeof(unsigned) == 0);
    unsigned words[sizeof(T) / sizeof(unsigned)];
    memcpy(words, &value, sizeof(T));
    for (unsigned& word : words) word = __shfl_sync(kFullMask, word, 0);
    memcpy(&value, words, sizeof(T));
    return value;
  }
}

// One warp per record: the CPU's apply_rule (glove_cpu_backend.cpp) with the rule's
// element form spread over the lanes, parameters changed by atomic adds, the state too
// where the rule is `concurrent` (kernel_rules.cuh).
template <typename Rule>
__global__ void __launch_bounds__(kThreads) glove_kernel(const KernelGloveRecord* records, std::uint32_t count, GloveTables t,
                                                         Rule rule, double* loss_out, unsigned long long* trained_out) {
  const unsigned lane = threadIdx.x & 31;
  const std::uint32_t dim = t.dim;
  double loss = 0;  // lane 0's tallies
  unsigned long long trained = 0;
  const std::size_t warps = (static_cast<std::size_t>(gridDim.x) * blockDim.x) >> 5;
  for (std::size_t i = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5; i < count; i += warps) {
    const KernelGloveRecord r = records[i];
    float* w = row_at<float>(t.words, r.row, t.width);
    float* c = row_at<float>(t.contexts, r.column, t.width);
    float dot = 0;
    for (std::uint32_t k = lane; k < dim; k += 32) dot += w[k] * c[k];
    dot = warp_sum(dot);
    // Lane 0 reads the biases and its difference is the warp's: another warp may
    // change them between two lanes' reads, and the warp must decide as one.
    float diff = 0;
    if (lane == 0) diff = dot + w[dim] + c[dim] - r.log_count;
    diff = __shfl_sync(kFullMask, diff, 0);
    if (!isfinite(diff)) continue;
    const float fdiff = r.weight * diff;
    if (lane == 0) {
      loss += 0.5 * static_cast<double>(fdiff) * diff;
      ++trained;
    }
    float* state_w = w + t.state;
    float* state_c = c + t.state;
    // The row's values for this step, read once (lane 0) for the whole warp, for the
    // same reason as the biases.
    typename Rule::Row row_w{}, row_c{};
    if (lane == 0) {
      row_w = rule.begin(state_w);
      row_c = rule.begin(state_c);
    }
    row_w = from_lane_zero(row_w);
    row_c = from_lane_zero(row_c);
    const float scale = rule.gradient_scale(fdiff);
    float sum_w = 0, sum_c = 0;
    for (std::uint32_t k = lane; k < dim; k += 32) {
      const float wk = w[k], ck = c[k];  // both gradients from the old values
      atomicAdd(w + k, -rule.template change<AtomicAdd>(row_w, state_w, k, wk, clip(scale * ck), sum_w));
      atomicAdd(c + k, -rule.template change<AtomicAdd>(row_c, state_c, k, ck, clip(scale * wk), sum_c));
    }
    if constexpr (Rule::sums_row) {
      sum_w = warp_sum(sum_w);
      sum_c = warp_sum(sum_c);
    }
    if (lane == 0) {
      rule_end<AtomicAdd>(rule, state_w, sum_w, dim);
      rule_end<AtomicAdd>(rule, state_c, sum_c, dim);
      atomicAdd(w + dim, -rule_bias_change<AtomicAdd>(rule, row_w, state_w, dim, w[dim], scale, fdiff));
      atomicAdd(c + dim, -rule_bias_change<AtomicAdd>(rule, row_c, state_c, dim, c[dim], scale, fdiff));
    }
  }
  add_block_totals<kWarpsPerBlock>(loss, trained, loss_out, trained_out);
}

}  // namespace

cudaError_t launch_glove(const KernelGloveRecord* records, std::uint32_t count, const GloveTables& tables,
                         const KernelRuleSpec& kernel_rule, float learning_rate, double* loss, unsigned long long* trained,
                         unsigned max_in_flight, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  // A warp per record in flight; a few blocks per SM is enough to hide the row loads,
  // and a bounded grid keeps the final atomics on the totals few.
  constexpr std::size_t kMaxBlocks = 4096;
  const std::size_t wanted = (std::size_t{count} + kWarpsPerBlock - 1) / kWarpsPerBlock;
  const std::size_t allowed = std::max<std::size_t>(1, (std::size_t{max_in_flight} + kWarpsPerBlock - 1) / kWarpsPerBlock);
  const auto blocks = static_cast<unsigned>(std::min({wanted, kMaxBlocks, allowed}));
  with_kernel_rule(kernel_rule, learning_rate, [&](const auto& rule) {
    glove_kernel<<<blocks, kThreads, 0, stream>>>(records, count, tables, rule, loss, trained);
  });
  return cudaGetLastError();
}

}  // namespace embed::cuda
