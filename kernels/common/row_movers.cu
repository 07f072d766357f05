#include "kernels/common/row_movers.h"

#include <cstdint>
#include <type_traits>

#include "kernels/common/storage.cuh"

namespace embed::cuda {
namespace {

// The mapped kernels read and write host memory across the bus, where each access waits
// a round trip: a warp takes a row, and each thread moves 16 bytes at a time (rows are
// padded to 16 floats and 64-byte aligned), so that a warp keeps 512 bytes in flight
// per access where a float each kept 128. The element-wise kernels below are for rows
// that are not so aligned.
constexpr unsigned kWarp = 32;
constexpr unsigned kRowsPerBlock = 8;  // warps of a 256-thread block

template <typename T>
__device__ inline void store4(T* out, float4 v) {
  out[0] = from_float<T>(v.x);
  out[1] = from_float<T>(v.y);
  out[2] = from_float<T>(v.z);
  out[3] = from_float<T>(v.w);
}

template <typename T>
__device__ inline float4 load4(const T* in) {
  return make_float4(to_float(in[0]), to_float(in[1]), to_float(in[2]), to_float(in[3]));
}

template <>
__device__ inline void store4<float>(float* out, float4 v) {
  *reinterpret_cast<float4*>(out) = v;
}

template <>
__device__ inline float4 load4<float>(const float* in) {
  return *reinterpret_cast<const float4*>(in);
}

template <typename T>
__global__ void gather_mapped_rows_kernel(const float* host_table, std::uint32_t stride, const std::uint32_t* rows,
                                          std::uint32_t count, T* out) {
  const unsigned lane = threadIdx.x % kWarp;
  for (std::size_t k = blockIdx.x * std::size_t{kRowsPerBlock} + threadIdx.x / kWarp; k < count;
       k += std::size_t{gridDim.x} * kRowsPerBlock) {
    const float4* from = reinterpret_cast<const float4*>(host_table + std::size_t{rows[k]} * stride);
    T* to = out + k * stride;
    for (std::uint32_t q = lane; q < stride / 4; q += kWarp) store4(to + 4 * q, from[q]);
  }
}

template <typename T>
__global__ void scatter_mapped_rows_kernel(float* host_table, std::uint32_t stride, std::uint32_t dim, const std::uint32_t* rows,
                                           std::uint32_t count, const T* updated, const T* original) {
  const unsigned lane = threadIdx.x % kWarp;
  for (std::size_t k = blockIdx.x * std::size_t{kRowsPerBlock} + threadIdx.x / kWarp; k < count;
       k += std::size_t{gridDim.x} * kRowsPerBlock) {
    float4* to = reinterpret_cast<float4*>(host_table + std::size_t{rows[k]} * stride);
    for (std::uint32_t q = lane; q < stride / 4; q += kWarp) {
      const std::size_t at = k * stride + 4 * q;
      const float4 now = load4(updated + at), before = load4(original + at);
      // The padding beyond dim stays zero.
      const std::uint32_t e = 4 * q;
      const float4 delta = make_float4(e < dim ? now.x - before.x : 0.0f, e + 1 < dim ? now.y - before.y : 0.0f,
                                       e + 2 < dim ? now.z - before.z : 0.0f, e + 3 < dim ? now.w - before.w : 0.0f);
      if (delta.x == 0 && delta.y == 0 && delta.z == 0 && delta.w == 0) continue;
      float4 row = to[q];
      row.x += delta.x;
      row.y += delta.y;
      row.z += delta.z;
      row.w += delta.w;
      to[q] = row;
    }
  }
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
__global__ void scatter_mapped_kernel(float* host_table, std::uint32_t stride, std::uint32_t dim, const std::uint32_t* rows,
                                      std::uint32_t count, const T* updated, const T* original) {
  const std::size_t total = static_cast<std::size_t>(count) * stride;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::size_t k = i / stride, e = i % stride;
    if (e >= dim) continue;
    const float delta = to_float(updated[i]) - to_float(original[i]);
    if (delta != 0) host_table[static_cast<std::size_t>(rows[k]) * stride + e] += delta;
  }
}

// Whether rows of `stride` floats from `table` can be moved 16 bytes at a time (the
// slot's copies are device allocations, aligned).
bool rows_aligned(const float* table, std::uint32_t stride) {
  return stride % 4 == 0 && reinterpret_cast<std::uintptr_t>(table) % 16 == 0;
}

unsigned row_blocks(std::uint32_t count) {
  const unsigned blocks = (count + kRowsPerBlock - 1) / kRowsPerBlock;
  return blocks < 1 ? 1 : blocks > 65535 ? 65535 : blocks;
}

template <typename T>
__global__ void add_f32_kernel(const float* added, T* table, std::size_t count) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    if (added[i] != 0) table[i] = from_float<T>(to_float(table[i]) + added[i]);
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

}  // namespace

cudaError_t launch_gather_mapped(const float* host_table, std::uint32_t stride, const std::uint32_t* rows, std::uint32_t count,
                                 void* out, Storage storage, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  with_storage(storage, [&](auto* type) {
    using T = std::remove_pointer_t<decltype(type)>;
    if (rows_aligned(host_table, stride)) {
      gather_mapped_rows_kernel<T>
          <<<row_blocks(count), kWarp * kRowsPerBlock, 0, stream>>>(host_table, stride, rows, count, static_cast<T*>(out));
    } else {
      gather_mapped_kernel<T>
          <<<grid_for(std::size_t{count} * stride, 256), 256, 0, stream>>>(host_table, stride, rows, count, static_cast<T*>(out));
    }
  });
  return cudaGetLastError();
}

cudaError_t launch_scatter_mapped(float* host_table, std::uint32_t stride, std::uint32_t dim, const std::uint32_t* rows,
                                  std::uint32_t count, const void* updated, const void* original, Storage storage,
                                  cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  with_storage(storage, [&](auto* type) {
    using T = std::remove_pointer_t<decltype(type)>;
    if (rows_aligned(host_table, stride)) {
      scatter_mapped_rows_kernel<T><<<row_blocks(count), kWarp * kRowsPerBlock, 0, stream>>>(
          host_table, stride, dim, rows, count, static_cast<const T*>(updated), static_cast<const T*>(original));
    } else {
      scatter_mapped_kernel<T><<<grid_for(std::size_t{count} * stride, 256), 256, 0, stream>>>(
          host_table, stride, dim, rows, count, static_cast<const T*>(updated), static_cast<const T*>(original));
    }
  });
  return cudaGetLastError();
}

cudaError_t launch_add_f32(const float* added, void* table, std::size_t count, Storage storage, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  with_storage(storage, [&](auto* type) {
    using T = std::remove_pointer_t<decltype(type)>;
    add_f32_kernel<T><<<grid_for(count, 256), 256, 0, stream>>>(added, static_cast<T*>(table), count);
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
