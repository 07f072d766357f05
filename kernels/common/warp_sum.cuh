// Reductions across a warp, shared by the training kernels.
#pragma once

namespace embed::cuda {

// A butterfly sum: every lane ends with the same value (each step adds a pair in both
// lanes, and float addition commutes), so the warp can branch on it as one.
__device__ inline float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

}  // namespace embed::cuda
