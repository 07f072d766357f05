// Device-side reading, writing and converting of stored rows (common/storage.h), for
// the kernels of every job: included by .cu files only.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/common/storage.h"

namespace embed::cuda {

// Rows are padded to 16 elements, so element pairs (2e, 2e + 1) never straddle a row
// and every pair is 4- or 8-byte aligned: loads and atomics work a pair at a time.
__device__ inline float2 load_pair(const float* p) { return *reinterpret_cast<const float2*>(p); }
__device__ inline float2 load_pair(const __half* p) { return __half22float2(*reinterpret_cast<const __half2*>(p)); }
__device__ inline float2 load_pair(const __nv_bfloat16* p) {
  return __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(p));
}

// Adds (a, b) to an element pair: f16 and bf16 in one 4-byte atomic; f32 in two, or with
// `at_once` (SplitTable::pair_atomics) on sm_90 in one 8-byte atomic (half the atomic
// operations the L2 cache serves).
__device__ inline void add_pair(float* p, float a, float b, bool at_once = false) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (at_once) {
    // A reduction, as ptxas makes of a scalar atomicAdd whose result goes unused (the
    // float2 atomicAdd compiles to atom.global.add.v2.f32, which returns the old pair).
    asm volatile("red.global.v2.f32.add [%0], {%1, %2};" ::"l"(p), "f"(a), "f"(b) : "memory");
    return;
  }
#endif
  (void)at_once;
  atomicAdd(p, a);
  atomicAdd(p + 1, b);
}
__device__ inline void add_pair(__half* p, float a, float b, bool = false) {
  atomicAdd(reinterpret_cast<__half2*>(p), __floats2half2_rn(a, b));
}
__device__ inline void add_pair(__nv_bfloat16* p, float a, float b, bool = false) {
  atomicAdd(reinterpret_cast<__nv_bfloat162*>(p), __floats2bfloat162_rn(a, b));
}

template <typename T>
__device__ inline T from_float(float x);
template <>
__device__ inline float from_float<float>(float x) {
  return x;
}
template <>
__device__ inline __half from_float<__half>(float x) {
  return __float2half_rn(x);
}
template <>
__device__ inline __nv_bfloat16 from_float<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}

__device__ inline float to_float(float x) { return x; }
__device__ inline float to_float(__half x) { return __half2float(x); }
__device__ inline float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }

// Row `id` of `table` (storage.h's SplitTable), `stride` elements per row.
template <typename T>
__device__ inline T* row_at(const SplitTable& table, std::uint32_t id, std::uint32_t stride) {
  return id < table.hot_rows ? static_cast<T*>(table.hot) + static_cast<std::size_t>(id) * stride
                             : static_cast<T*>(table.cold) + static_cast<std::size_t>(id - table.hot_rows) * stride;
}

// Blocks for a grid-stride loop over `count` elements: enough to fill the device, at
// most the grid's limit.
inline unsigned grid_for(std::size_t count, unsigned threads) {
  const std::size_t blocks = (count + threads - 1) / threads;
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks > 65535 ? 65535 : blocks);
}

// Calls f with a null pointer of the storage's element type.
template <typename F>
inline void with_storage(Storage storage, F&& f) {
  switch (storage) {
    case Storage::f32: f(static_cast<float*>(nullptr)); break;
    case Storage::f16: f(static_cast<__half*>(nullptr)); break;
    case Storage::bf16: f(static_cast<__nv_bfloat16*>(nullptr)); break;
  }
}

}  // namespace embed::cuda
