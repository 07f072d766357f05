#include "kernels/common/row_movers.h"

#include <type_traits>

#include "kernels/common/storage.cuh"

namespace embed::cuda {
namespace {

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
