// Reductions across a warp or a block, shared by the training kernels.
#pragma once

namespace embed::cuda {

// A butterfly sum: every lane ends with the same value (each step adds a pair in both
// lanes, and float addition commutes), so the warp can branch on it as one.
__device__ inline float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// The GloVe kernels' totals: each warp's lane 0 holds its tallies of loss and records
// trained; thread 0 sums the block's `Warps` warps' and adds them to the run's totals.
// Every thread of the block calls it (it holds a barrier).
template <unsigned Warps>
__device__ inline void add_block_totals(double loss, unsigned long long trained, double* loss_out,
                                        unsigned long long* trained_out) {
  __shared__ double warp_loss[Warps];
  __shared__ unsigned long long warp_trained[Warps];
  if ((threadIdx.x & 31) == 0) {
    warp_loss[threadIdx.x >> 5] = loss;
    warp_trained[threadIdx.x >> 5] = trained;
  }
  __syncthreads();
  if (threadIdx.x != 0) return;
  for (unsigned k = 1; k < Warps; ++k) {  // thread 0's own are warp 0's
    loss += warp_loss[k];
    trained += warp_trained[k];
  }
  if (trained == 0) return;  // no record trained: no loss either
  atomicAdd(loss_out, loss);
  atomicAdd(trained_out, trained);
}

}  // namespace embed::cuda
