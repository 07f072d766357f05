#include "kernels/train/glove_kernels.h"

#include <algorithm>

#include "kernels/common/storage.cuh"
#include "kernels/common/warp_sum.cuh"
#include "train/engine/update_constants.h"

namespace embed::cuda {
namespace {

constexpr unsigned kThreads = 256;
constexpr unsigned kWarpsPerBlock = kThreads / 32;
constexpr unsigned kFullMask = 0xffffffffu;

__device__ inline float clip(float x) { return fminf(fmaxf(x, -kGloveGradientClip), kGloveGradientClip); }

// adagrad_step (lib/train/engine/update_rules.h) on one parameter. The accumulator's add
// returns the value it replaced, which is what the step divides by; so concurrent
// records each see their own predecessor's square, as in a sequential order.
__device__ inline void adagrad_update(float* param, float* accumulator, float scaled) {
  const float before = atomicAdd(accumulator, scaled * scaled);
  atomicAdd(param, -(scaled / sqrtf(kAdagradStart + before)));
}

template <GloveRule Rule>
__global__ void __launch_bounds__(kThreads) glove_kernel(const KernelGloveRecord* records, std::uint32_t count, GloveTables t,
                                                         float lr, double* loss_out, unsigned long long* trained_out) {
  __shared__ double warp_loss[kWarpsPerBlock];
  __shared__ unsigned long long warp_trained[kWarpsPerBlock];
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
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
    float* acc_w = w + t.state;
    float* acc_c = c + t.state;
    [[maybe_unused]] const float g = fdiff * lr;  // the other rules scale by the learning rate before clipping
    if constexpr (Rule == GloveRule::adagrad_element) {
      // Stanford's glove.c (as the CPU's AdagradElement): clip, then scale by the
      // learning rate; the biases' step is not scaled.
      for (std::uint32_t k = lane; k < dim; k += 32) {
        const float wk = w[k], ck = c[k];  // both gradients from the old values
        adagrad_update(w + k, acc_w + k, clip(fdiff * ck) * lr);
        adagrad_update(c + k, acc_c + k, clip(fdiff * wk) * lr);
      }
      if (lane == 0) {
        adagrad_update(w + dim, acc_w + dim, fdiff);
        adagrad_update(c + dim, acc_c + dim, fdiff);
      }
    } else if constexpr (Rule == GloveRule::adagrad_row) {
      // acc[0]: the mean squared gradient of the row's vector; acc[1]: the bias's.
      float scale_w = 0, scale_c = 0;
      if (lane == 0) {
        scale_w = 1.0f / sqrtf(kAdagradStart + acc_w[0]);
        scale_c = 1.0f / sqrtf(kAdagradStart + acc_c[0]);
      }
      scale_w = __shfl_sync(kFullMask, scale_w, 0);
      scale_c = __shfl_sync(kFullMask, scale_c, 0);
      float squares_w = 0, squares_c = 0;
      for (std::uint32_t k = lane; k < dim; k += 32) {
        const float tw = clip(g * c[k]);
        const float tc = clip(g * w[k]);
        squares_w += tw * tw;
        squares_c += tc * tc;
        atomicAdd(w + k, -(tw * scale_w));
        atomicAdd(c + k, -(tc * scale_c));
      }
      squares_w = warp_sum(squares_w);
      squares_c = warp_sum(squares_c);
      if (lane == 0) {
        atomicAdd(acc_w, squares_w / static_cast<float>(dim));
        atomicAdd(acc_c, squares_c / static_cast<float>(dim));
        adagrad_update(w + dim, acc_w + 1, g);
        adagrad_update(c + dim, acc_c + 1, g);
      }
    } else {
      for (std::uint32_t k = lane; k < dim; k += 32) {
        const float wk = w[k], ck = c[k];
        atomicAdd(w + k, -clip(g * ck));
        atomicAdd(c + k, -clip(g * wk));
      }
      if (lane == 0) {
        atomicAdd(w + dim, -g);
        atomicAdd(c + dim, -g);
      }
    }
  }
  if (lane == 0) {
    warp_loss[warp] = loss;
    warp_trained[warp] = trained;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (unsigned k = 1; k < kWarpsPerBlock; ++k) {
      loss += warp_loss[k];
      trained += warp_trained[k];
    }
    atomicAdd(loss_out, loss);
    atomicAdd(trained_out, trained);
  }
}

}  // namespace

cudaError_t launch_glove(const KernelGloveRecord* records, std::uint32_t count, const GloveTables& tables, GloveRule rule,
                         float learning_rate, double* loss, unsigned long long* trained, unsigned max_in_flight,
                         cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  // A warp per record in flight; a few blocks per SM is enough to hide the row loads,
  // and a bounded grid keeps the final atomics on the totals few.
  constexpr std::size_t kMaxBlocks = 4096;
  const std::size_t wanted = (std::size_t{count} + kWarpsPerBlock - 1) / kWarpsPerBlock;
  const std::size_t allowed = std::max<std::size_t>(1, (std::size_t{max_in_flight} + kWarpsPerBlock - 1) / kWarpsPerBlock);
  const auto blocks = static_cast<unsigned>(std::min({wanted, kMaxBlocks, allowed}));
  switch (rule) {
    case GloveRule::adagrad_element:
      glove_kernel<GloveRule::adagrad_element>
          <<<blocks, kThreads, 0, stream>>>(records, count, tables, learning_rate, loss, trained);
      break;
    case GloveRule::adagrad_row:
      glove_kernel<GloveRule::adagrad_row><<<blocks, kThreads, 0, stream>>>(records, count, tables, learning_rate, loss, trained);
      break;
    case GloveRule::sgd:
      glove_kernel<GloveRule::sgd><<<blocks, kThreads, 0, stream>>>(records, count, tables, learning_rate, loss, trained);
      break;
  }
  return cudaGetLastError();
}

}  // namespace embed::cuda
