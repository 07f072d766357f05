#include "kernels/common/row_movers.h"

#include <cstdint>
#include <type_traits>

#include "kernels/common/storage.cuh"

namespace embed::cuda {
namespace {

// The mapped kernels read and write host memory across the bus, where each read waits a
// round trip: a warp takes a row, and each thread moves 16 bytes at a time (rows are
// padded to 16 elements and RowMatrix's tables are page-aligned), so that a warp keeps
// 512 bytes in flight per access where a float each kept 128. Their writes are posted:
// they wait for no reply.
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
__device__ inline float4 load4<float>(const float* in) {
  return *reinterpret_cast<const float4*>(in);
}

// 8 halves in 16 bytes.
union Halves8 {
  uint4 bits;
  __half value[8];
};

// Host rows of H (float, or __half for f16 host tables) into the slot's copy of T; a
// flagged row's copy to `originals` as well.
template <typename H, typename T>
__global__ void gather_mapped_kernel(const H* host_table, std::uint32_t stride, const std::uint32_t* rows, std::uint32_t count,
                                     T* out, T* originals) {
  static_assert(std::is_same_v<H, float> || std::is_same_v<H, T>);
  constexpr std::uint32_t kChunk = 16 / sizeof(H);  // elements per 16 bytes of the host row
  const unsigned lane = threadIdx.x % kWarp;
  for (std::size_t k = blockIdx.x * std::size_t{kRowsPerBlock} + threadIdx.x / kWarp; k < count;
       k += std::size_t{gridDim.x} * kRowsPerBlock) {
    const std::uint32_t id = rows[k];
    const H* from = host_table + std::size_t{id & ~kRowAddsChange} * stride;
    T* to = out + k * stride;
    T* kept = (id & kRowAddsChange) ? originals + k * stride : nullptr;
    for (std::uint32_t q = lane; q < stride / kChunk; q += kWarp) {
      if constexpr (std::is_same_v<H, T>) {
        const uint4 bits = reinterpret_cast<const uint4*>(from)[q];
        reinterpret_cast<uint4*>(to)[q] = bits;
        if (kept) reinterpret_cast<uint4*>(kept)[q] = bits;
      } else {
        const float4 v = reinterpret_cast<const float4*>(from)[q];
        store4(to + kChunk * q, v);
        if (kept) store4(kept + kChunk * q, v);
      }
    }
  }
}

// Each trained row of T stored whole into the host table of H, or (flagged) copied as it
// is to `flagged`; the elements past `dim` are stored as zero.
template <typename H, typename T>
__global__ void write_back_mapped_kernel(H* host_table, std::uint32_t stride, std::uint32_t dim, const std::uint32_t* rows,
                                         std::uint32_t count, const T* updated, T* flagged) {
  static_assert(std::is_same_v<H, float> || std::is_same_v<H, T>);
  const unsigned lane = threadIdx.x % kWarp;
  for (std::size_t k = blockIdx.x * std::size_t{kRowsPerBlock} + threadIdx.x / kWarp; k < count;
       k += std::size_t{gridDim.x} * kRowsPerBlock) {
    const std::uint32_t id = rows[k];
    const T* now = updated + k * stride;
    if (id & kRowAddsChange) {
      // As trained, in the slot's type: the CPU converts when it adds.
      constexpr std::uint32_t kChunk = 16 / sizeof(T);
      T* to = flagged + k * stride;
      for (std::uint32_t q = lane; q < stride / kChunk; q += kWarp) {
        reinterpret_cast<uint4*>(to)[q] = reinterpret_cast<const uint4*>(now)[q];
      }
      continue;
    }
    constexpr std::uint32_t kChunk = 16 / sizeof(H);
    H* to = host_table + std::size_t{id} * stride;
    for (std::uint32_t q = lane; q < stride / kChunk; q += kWarp) {
      const std::uint32_t e0 = kChunk * q;
      if (e0 >= dim) break;  // padding only from here on, zero in the host row already
      if constexpr (std::is_same_v<H, float>) {
        const float4 v = load4(now + e0);  // e0 < dim: v.x is a value
        reinterpret_cast<float4*>(to)[q] =
            make_float4(v.x, e0 + 1 < dim ? v.y : 0.0f, e0 + 2 < dim ? v.z : 0.0f, e0 + 3 < dim ? v.w : 0.0f);
      } else {
        Halves8 row;
        row.bits = reinterpret_cast<const uint4*>(now)[q];
        for (unsigned i = 0; i < 8; ++i) {
          if (e0 + i >= dim) row.value[i] = __float2half_rn(0.0f);
        }
        reinterpret_cast<uint4*>(to)[q] = row.bits;
      }
    }
  }
}

// Blocks for `count` rows, at most kMappedBlocks: the kernels of several slots' batches
// run beside the training kernels, which they would otherwise crowd off the SMs with warps
// waiting on the bus. 128 blocks keep 1,024 warps' 512 bytes in flight, 512 KB, several
// times what a round trip of a couple of microseconds at 55 GB/s needs; each block then
// takes several rows in turn.
constexpr unsigned kMappedBlocks = 128;
unsigned row_blocks(std::uint32_t count, unsigned max_blocks) {
  const unsigned most = max_blocks == 0 ? kMappedBlocks : max_blocks;
  const unsigned blocks = (count + kRowsPerBlock - 1) / kRowsPerBlock;
  return blocks < 1 ? 1 : blocks > most ? most : blocks;
}

// The 16-byte moves need 16-byte aligned rows.
bool rows_aligned(const MappedTable& table) {
  const std::size_t row_bytes = std::size_t{table.stride} * (table.half ? 2 : 4);
  return row_bytes % 16 == 0 && reinterpret_cast<std::uintptr_t>(table.rows) % 16 == 0;
}

// Atomic adds: the batches' kernels add to the same rows meanwhile (a round between ranks
// runs while they train), and a plain read, add and write would lose the steps they added
// between the read and the write (the frequent words' rows take one every few
// microseconds). f16 and bf16 add the change rounded to their precision.
template <typename T>
__global__ void add_f32_kernel(const float* added, T* table, std::size_t count) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    if (added[i] != 0) atomicAdd(table + i, from_float<T>(added[i]));
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

cudaError_t launch_gather_mapped(const MappedTable& table, const std::uint32_t* rows, std::uint32_t count, void* out,
                                 void* originals, Storage storage, cudaStream_t stream, unsigned max_blocks) {
  if (count == 0) return cudaSuccess;
  if (!rows_aligned(table) || (table.half && storage != Storage::f16)) return cudaErrorInvalidValue;
  const unsigned blocks = row_blocks(count, max_blocks), threads = kWarp * kRowsPerBlock;
  if (table.half) {
    gather_mapped_kernel<__half, __half><<<blocks, threads, 0, stream>>>(static_cast<const __half*>(table.rows), table.stride,
                                                                         rows, count, static_cast<__half*>(out),
                                                                         static_cast<__half*>(originals));
    return cudaGetLastError();
  }
  with_storage(storage, [&](auto* type) {
    using T = std::remove_pointer_t<decltype(type)>;
    gather_mapped_kernel<float, T><<<blocks, threads, 0, stream>>>(static_cast<const float*>(table.rows), table.stride, rows,
                                                                   count, static_cast<T*>(out), static_cast<T*>(originals));
  });
  return cudaGetLastError();
}

cudaError_t launch_write_back_mapped(const MappedTable& table, std::uint32_t dim, const std::uint32_t* rows, std::uint32_t count,
                                     const void* updated, void* flagged, Storage storage, cudaStream_t stream,
                                     unsigned max_blocks) {
  if (count == 0) return cudaSuccess;
  if (!rows_aligned(table) || (table.half && storage != Storage::f16)) return cudaErrorInvalidValue;
  const unsigned blocks = row_blocks(count, max_blocks), threads = kWarp * kRowsPerBlock;
  if (table.half) {
    write_back_mapped_kernel<__half, __half><<<blocks, threads, 0, stream>>>(static_cast<__half*>(table.rows), table.stride, dim,
                                                                             rows, count, static_cast<const __half*>(updated),
                                                                             static_cast<__half*>(flagged));
    return cudaGetLastError();
  }
  with_storage(storage, [&](auto* type) {
    using T = std::remove_pointer_t<decltype(type)>;
    write_back_mapped_kernel<float, T><<<blocks, threads, 0, stream>>>(static_cast<float*>(table.rows), table.stride, dim, rows,
                                                                       count, static_cast<const T*>(updated),
                                                                       static_cast<T*>(flagged));
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
