#include "kernels/search/decode_kernels.h"

namespace embed::cuda {
namespace {

constexpr unsigned kDecodeThreads = 256;
constexpr std::uint32_t kCentroids = 256;  // 8-bit codes (lib's kPqCentroids)

// One thread per decoded value, grid-stride: a value reads one stored byte (int8) or one
// centroid component (pq), in row-major order so that a warp's reads are contiguous.
__global__ void __launch_bounds__(kDecodeThreads) decode_rows_kernel(DecodeRowsArgs a) {
  const std::uint64_t total = std::uint64_t{a.rows_count} * a.dim;
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < total; i += stride) {
    const std::uint64_t row = i / a.dim;
    const std::uint32_t j = static_cast<std::uint32_t>(i - row * a.dim);
    float value;
    if (a.m == 0) {
      value = static_cast<float>(static_cast<const std::int8_t*>(a.rows)[i]);
    } else {
      const std::uint32_t sub = a.dim / a.m;
      const std::uint32_t space = j / sub;
      const std::uint8_t code = static_cast<const std::uint8_t*>(a.rows)[row * a.m + space];
      value = a.codebooks[(std::uint64_t{space} * kCentroids + code) * sub + (j - space * sub)];
    }
    a.out[i] = __fmul_rn(a.scales[row], value);  // no contraction: the CPU's product
  }
}

}  // namespace

cudaError_t launch_decode_rows(const DecodeRowsArgs& args, cudaStream_t stream) {
  const std::uint64_t total = std::uint64_t{args.rows_count} * args.dim;
  if (total == 0) return cudaSuccess;
  const std::uint64_t blocks = (total + kDecodeThreads - 1) / kDecodeThreads;
  decode_rows_kernel<<<static_cast<unsigned>(blocks < 65535 ? blocks : 65535), kDecodeThreads, 0, stream>>>(args);
  return cudaGetLastError();
}

}  // namespace embed::cuda
