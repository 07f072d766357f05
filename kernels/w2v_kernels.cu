#include "w2v_kernels.h"

#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "warp_sum.cuh"

namespace embed::cuda {
namespace {

// Rows are padded to 16 elements, so element pairs (2e, 2e + 1) never straddle a row
// and every pair is 4- or 8-byte aligned: loads and atomics work a pair at a time.
__device__ inline float2 load_pair(const float* p) { return *reinterpret_cast<const float2*>(p); }
__device__ inline float2 load_pair(const __half* p) { return __half22float2(*reinterpret_cast<const __half2*>(p)); }
__device__ inline float2 load_pair(const __nv_bfloat16* p) {
  return __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(p));
}

__device__ inline void add_pair(float* p, float a, float b) {
  atomicAdd(p, a);
  atomicAdd(p + 1, b);
}
__device__ inline void add_pair(__half* p, float a, float b) {
  atomicAdd(reinterpret_cast<__half2*>(p), __floats2half2_rn(a, b));
}
__device__ inline void add_pair(__nv_bfloat16* p, float a, float b) {
  atomicAdd(reinterpret_cast<__nv_bfloat162*>(p), __floats2bfloat162_rn(a, b));
}

template <typename T>
__device__ inline T from_float(float x);
template <>
__device__ inline float from_float<float>(float x) { return x; }
template <>
__device__ inline __half from_float<__half>(float x) { return __float2half_rn(x); }
template <>
__device__ inline __nv_bfloat16 from_float<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

__device__ inline float to_float(float x) { return x; }
__device__ inline float to_float(__half x) { return __half2float(x); }
__device__ inline float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }

// The CPU's LogisticTable lookups, rounding the same way.
__device__ inline int logistic_index(float x, const KernelLogistic& l) {
  x = fminf(fmaxf(x, -l.range), l.range);
  return static_cast<int>(__fadd_rn(__fmul_rn(__fadd_rn(x, l.range), l.steps / (2 * l.range)), 0.5f));
}
__device__ inline float sigmoid(float x, const KernelLogistic& l) { return l.sigmoid[logistic_index(x, l)]; }
__device__ inline float log_loss(float x, const KernelLogistic& l) {
  return x < -l.range ? -x : l.loss[logistic_index(x, l)];
}

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
__device__ inline void load_rows(const T* table, const std::uint32_t* ids, std::uint32_t count, std::uint32_t stride,
                                 std::uint32_t pairs, float* dst) {
  for (std::uint32_t i = threadIdx.x; i < count * pairs; i += blockDim.x) {
    const std::uint32_t k = i / pairs, e = 2 * (i % pairs);
    const float2 v = load_pair(table + static_cast<std::size_t>(ids[k]) * stride + e);
    dst[k * stride + e] = v.x;
    dst[k * stride + e + 1] = v.y;
  }
}

template <typename T>
__global__ void skipgram_kernel(KernelBatch b, T* input, T* output, std::uint32_t stride, std::uint32_t dim,
                                KernelLogistic logistic, float lr, double* loss_out) {
  extern __shared__ float shared[];
  __shared__ std::uint32_t n_out_shared;
  __shared__ float loss_shared;
  const std::uint32_t w = blockIdx.x;
  const std::uint32_t first = b.offsets[w];
  const std::uint32_t n_in = b.offsets[w + 1] - first;
  if (n_in == 0) return;
  const std::uint32_t K = b.negatives_per_window, max_out = K + 1;
  float* in_rows = shared;                            // max_inputs × stride
  float* out_rows = in_rows + b.max_inputs * stride;  // max_out × stride
  float* gradient = out_rows + max_out * stride;      // max_inputs × max_out: (label - sigmoid) × lr
  auto* out_ids = reinterpret_cast<std::uint32_t*>(gradient + b.max_inputs * max_out);
  const std::uint32_t* in_ids = b.inputs + first;
  const std::uint32_t target = b.targets[w];
  if (threadIdx.x == 0) {
    // A negative equal to the target is skipped, as word2vec skips it.
    out_ids[0] = target;
    std::uint32_t n = 1;
    for (std::uint32_t k = 0; k < K; ++k) {
      const std::uint32_t negative = b.negatives[w * K + k];
      if (negative != target) out_ids[n++] = negative;
    }
    n_out_shared = n;
    loss_shared = 0;
  }
  __syncthreads();
  const std::uint32_t n_out = n_out_shared;
  const std::uint32_t pairs = (dim + 1) / 2;  // an odd dim reads one padding zero
  load_rows(input, in_ids, n_in, stride, pairs, in_rows);
  load_rows(output, out_ids, n_out, stride, pairs, out_rows);
  __syncthreads();

  // Scores, a warp per (input, output) pair.
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  float warp_loss = 0;
  for (std::uint32_t pair = warp; pair < n_in * n_out; pair += warps) {
    const std::uint32_t c = pair / n_out, o = pair % n_out;
    float score = 0;
    for (std::uint32_t e = lane; e < dim; e += 32) score += in_rows[c * stride + e] * out_rows[o * stride + e];
    score = warp_sum(score);
    if (lane == 0) {
      const float label = o == 0 ? 1.0f : 0.0f;
      gradient[c * max_out + o] = (label - sigmoid(score, logistic)) * lr;
      warp_loss += log_loss(o == 0 ? score : -score, logistic);
    }
  }
  if (lane == 0 && warp_loss != 0) atomicAdd(&loss_shared, warp_loss);
  __syncthreads();

  // Both gradients from the old rows in shared memory, summed in the CPU's order.
  for (std::uint32_t p = threadIdx.x; p < pairs; p += blockDim.x) {
    const std::uint32_t e = 2 * p;
    for (std::uint32_t o = 0; o < n_out; ++o) {
      float a = 0, c1 = 0;
      for (std::uint32_t c = 0; c < n_in; ++c) {
        const float g = gradient[c * max_out + o];
        a += g * in_rows[c * stride + e];
        c1 += g * in_rows[c * stride + e + 1];
      }
      add_pair(output + static_cast<std::size_t>(out_ids[o]) * stride + e, a, c1);
    }
    for (std::uint32_t c = 0; c < n_in; ++c) {
      float a = 0, c1 = 0;
      for (std::uint32_t o = 0; o < n_out; ++o) {
        const float g = gradient[c * max_out + o];
        a += g * out_rows[o * stride + e];
        c1 += g * out_rows[o * stride + e + 1];
      }
      add_pair(input + static_cast<std::size_t>(in_ids[c]) * stride + e, a, c1);
    }
  }
  if (threadIdx.x == 0) atomicAdd(loss_out, static_cast<double>(loss_shared));
}

template <typename T>
__global__ void cbow_kernel(KernelBatch b, T* input, T* output, std::uint32_t stride, std::uint32_t dim,
                            KernelLogistic logistic, float lr, double* loss_out) {
  extern __shared__ float shared[];
  __shared__ float partial[32];
  const std::uint32_t w = blockIdx.x;
  const std::uint32_t first = b.offsets[w];
  const std::uint32_t n_in = b.offsets[w + 1] - first;
  if (n_in == 0) return;
  float* mean = shared;               // stride
  float* mean_gradient = mean + stride;
  const std::uint32_t* in_ids = b.inputs + first;
  const std::uint32_t pairs = (dim + 1) / 2;
  const float inv = 1.0f / static_cast<float>(n_in);
  // Each thread owns the same element pairs throughout, so it alone reads and writes
  // them in mean, mean_gradient and (between the atomics) the output rows it updates.
  for (std::uint32_t p = threadIdx.x; p < pairs; p += blockDim.x) {
    const std::uint32_t e = 2 * p;
    float2 sum = load_pair(input + static_cast<std::size_t>(in_ids[0]) * stride + e);
    for (std::uint32_t c = 1; c < n_in; ++c) {
      const float2 v = load_pair(input + static_cast<std::size_t>(in_ids[c]) * stride + e);
      sum.x += v.x;
      sum.y += v.y;
    }
    mean[e] = sum.x * inv;
    mean[e + 1] = sum.y * inv;
    mean_gradient[e] = 0;
    mean_gradient[e + 1] = 0;
  }
  float loss = 0;
  auto train_output = [&](std::uint32_t row, float label) {
    T* out = output + static_cast<std::size_t>(row) * stride;
    float part = 0;
    for (std::uint32_t p = threadIdx.x; p < pairs; p += blockDim.x) {
      const float2 v = load_pair(out + 2 * p);
      part += mean[2 * p] * v.x + mean[2 * p + 1] * v.y;
    }
    const float score = block_sum(part, partial);
    const float g = (label - sigmoid(score, logistic)) * lr;
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
      add_pair(input + static_cast<std::size_t>(in_ids[c]) * stride + 2 * p, mean_gradient[2 * p],
               mean_gradient[2 * p + 1]);
    }
  }
  if (threadIdx.x == 0) atomicAdd(loss_out, static_cast<double>(loss));
}

template <typename T>
__global__ void gather_mapped_kernel(const float* host_table, std::uint32_t stride, const std::uint32_t* rows,
                                     std::uint32_t count, T* out) {
  const std::size_t total = static_cast<std::size_t>(count) * stride;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::size_t k = i / stride, e = i % stride;
    out[i] = from_float<T>(host_table[static_cast<std::size_t>(rows[k]) * stride + e]);
  }
}

template <typename T>
__global__ void scatter_mapped_kernel(float* host_table, std::uint32_t stride, std::uint32_t dim,
                                      const std::uint32_t* rows, std::uint32_t count, const T* updated,
                                      const T* original) {
  const std::size_t total = static_cast<std::size_t>(count) * stride;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::size_t k = i / stride, e = i % stride;
    if (e >= dim) continue;
    const float delta = to_float(updated[i]) - to_float(original[i]);
    if (delta != 0) host_table[static_cast<std::size_t>(rows[k]) * stride + e] += delta;
  }
}

template <typename T>
__global__ void to_storage_kernel(const float* in, T* out, std::size_t count) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    out[i] = from_float<T>(in[i]);
  }
}

template <typename T>
__global__ void to_f32_kernel(const T* in, float* out, std::size_t count) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    out[i] = to_float(in[i]);
  }
}

// Threads per window: a pair of elements per thread, whole warps, 64 to 256.
unsigned window_threads(std::uint32_t dim) {
  const unsigned pairs = (dim + 1) / 2;
  const unsigned warps = (pairs + 31) / 32;
  return warps < 2 ? 64 : warps > 8 ? 256 : warps * 32;
}

unsigned grid_for(std::size_t count, unsigned threads) {
  const std::size_t blocks = (count + threads - 1) / threads;
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks > 65535 ? 65535 : blocks);
}

// Calls f with a null pointer of the storage's element type.
template <typename F>
void with_storage(Storage storage, F&& f) {
  switch (storage) {
    case Storage::f32: f(static_cast<float*>(nullptr)); break;
    case Storage::f16: f(static_cast<__half*>(nullptr)); break;
    case Storage::bf16: f(static_cast<__nv_bfloat16*>(nullptr)); break;
  }
}

}  // namespace

std::size_t storage_bytes(Storage storage) { return storage == Storage::f32 ? 4 : 2; }

std::size_t skipgram_shared_bytes(std::uint32_t max_inputs, std::uint32_t negatives, std::uint32_t stride) {
  const std::size_t max_out = negatives + 1;
  return ((max_inputs + max_out) * stride + max_inputs * max_out + max_out) * sizeof(float);
}

std::size_t cbow_shared_bytes(std::uint32_t stride) { return 2 * std::size_t{stride} * sizeof(float); }

cudaError_t allow_shared_memory(std::size_t bytes) {
  cudaError_t status = cudaSuccess;
  for (Storage s : {Storage::f32, Storage::f16, Storage::bf16}) {
    with_storage(s, [&](auto* type) {
      using T = std::remove_pointer_t<decltype(type)>;
      for (cudaError_t e :
           {cudaFuncSetAttribute(skipgram_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)),
            cudaFuncSetAttribute(cbow_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes))}) {
        if (e != cudaSuccess) status = e;
      }
    });
  }
  return status;
}

cudaError_t launch_skipgram(const KernelBatch& batch, const KernelTables& t, const KernelLogistic& logistic,
                     float learning_rate, double* loss, cudaStream_t stream) {
  if (batch.windows == 0) return cudaSuccess;
  const std::size_t shared = skipgram_shared_bytes(batch.max_inputs, batch.negatives_per_window, t.stride);
  with_storage(t.storage, [&](auto* type) {
    using T = std::remove_pointer_t<decltype(type)>;
    skipgram_kernel<T><<<batch.windows, window_threads(t.dim), shared, stream>>>(
        batch, static_cast<T*>(t.input), static_cast<T*>(t.output), t.stride, t.dim, logistic, learning_rate, loss);
  });
  return cudaGetLastError();
}

cudaError_t launch_cbow(const KernelBatch& batch, const KernelTables& t, const KernelLogistic& logistic, float learning_rate,
                 double* loss, cudaStream_t stream) {
  if (batch.windows == 0) return cudaSuccess;
  const std::size_t shared = cbow_shared_bytes(t.stride);
  with_storage(t.storage, [&](auto* type) {
    using T = std::remove_pointer_t<decltype(type)>;
    cbow_kernel<T><<<batch.windows, window_threads(t.dim), shared, stream>>>(
        batch, static_cast<T*>(t.input), static_cast<T*>(t.output), t.stride, t.dim, logistic, learning_rate, loss);
  });
  return cudaGetLastError();
}

cudaError_t launch_gather_mapped(const float* host_table, std::uint32_t stride, const std::uint32_t* rows, std::uint32_t count,
                          void* out, Storage storage, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  with_storage(storage, [&](auto* type) {
    using T = std::remove_pointer_t<decltype(type)>;
    gather_mapped_kernel<T><<<grid_for(std::size_t{count} * stride, 256), 256, 0, stream>>>(host_table, stride, rows,
                                                                                            count, static_cast<T*>(out));
  });
  return cudaGetLastError();
}

cudaError_t launch_scatter_mapped(float* host_table, std::uint32_t stride, std::uint32_t dim, const std::uint32_t* rows,
                           std::uint32_t count, const void* updated, const void* original, Storage storage,
                           cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  with_storage(storage, [&](auto* type) {
    using T = std::remove_pointer_t<decltype(type)>;
    scatter_mapped_kernel<T><<<grid_for(std::size_t{count} * stride, 256), 256, 0, stream>>>(
        host_table, stride, dim, rows, count, static_cast<const T*>(updated), static_cast<const T*>(original));
  });
  return cudaGetLastError();
}

cudaError_t launch_to_storage(const float* in, void* out, std::size_t count, Storage storage, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  with_storage(storage, [&](auto* type) {
    using T = std::remove_pointer_t<decltype(type)>;
    to_storage_kernel<T><<<grid_for(count, 256), 256, 0, stream>>>(in, static_cast<T*>(out), count);
  });
  return cudaGetLastError();
}

cudaError_t launch_to_f32(const void* in, float* out, std::size_t count, Storage storage, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  with_storage(storage, [&](auto* type) {
    using T = std::remove_pointer_t<decltype(type)>;
    to_f32_kernel<T><<<grid_for(count, 256), 256, 0, stream>>>(static_cast<const T*>(in), out, count);
  });
  return cudaGetLastError();
}

}  // namespace embed::cuda
