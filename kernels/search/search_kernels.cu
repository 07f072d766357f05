#include "kernels/search/search_kernels.h"

#include "kernels/search/radix_select.h"

namespace embed::cuda {
namespace {

constexpr unsigned kFullMask = 0xFFFFFFFFu;

// Query row r's product with the block's row j: its parts summed smallest first, then
// scaled back (by a power of two: exact).
__device__ float product(const ScoreSelectArgs& a, const float* rows, std::uint32_t r, std::uint32_t j) {
  const float* parts = rows + static_cast<std::size_t>(r) * a.parts * a.block_rows + j;
  float sum = parts[static_cast<std::size_t>(a.parts - 1) * a.block_rows];
  for (std::uint32_t p = a.parts - 1; p-- > 0;) sum = __fadd_rn(sum, parts[static_cast<std::size_t>(p) * a.block_rows]);
  return __fmul_rn(sum, a.inverse_scale);
}

// Appends `key` (when `take`) to keys[*count...] with one shared atomic per warp.
// Every lane of the warp must call it.
__device__ void append(bool take, std::uint64_t key, std::uint64_t* keys, std::uint32_t* count) {
  const unsigned mask = __ballot_sync(kFullMask, take);
  if (mask == 0) return;
  const unsigned lane = threadIdx.x % 32;
  const unsigned leader = __ffs(mask) - 1;
  std::uint32_t base = 0;
  if (lane == leader) base = atomicAdd(count, static_cast<std::uint32_t>(__popc(mask)));
  base = __shfl_sync(kFullMask, base, leader);
  if (take) keys[base + __popc(mask & ((1u << lane) - 1))] = key;
}

__global__ void __launch_bounds__(kSelectThreads) score_select_kernel(ScoreSelectArgs a) {
  extern __shared__ std::uint64_t keys[];  // the current best, then the block's candidates
  __shared__ std::uint32_t histogram[radix::kBins];
  __shared__ SearchTerm terms[kSelectMaxTerms];
  __shared__ std::uint32_t count, written;
  __shared__ unsigned long long floor_key;
  __shared__ radix::Choice choice;

  const SearchQueryDesc q = a.queries[blockIdx.x];
  std::uint64_t* best = a.best_keys + static_cast<std::size_t>(blockIdx.x) * a.k;
  const std::uint32_t kept = a.best_counts[blockIdx.x];
  for (std::uint32_t t = threadIdx.x; t < q.terms; t += blockDim.x) terms[t] = a.terms[q.first_term + t];
  if (threadIdx.x == 0) {
    count = kept;
    written = 0;
    floor_key = ~0ull;
  }
  __syncthreads();
  for (std::uint32_t i = threadIdx.x; i < kept; i += blockDim.x) {
    keys[i] = best[i];
    atomicMin(&floor_key, static_cast<unsigned long long>(best[i]));
  }
  __syncthreads();
  // With k kept, only keys above the k-th best can enter (keys are unique).
  const bool full = kept == a.k;
  const std::uint64_t floor = floor_key;

  const float* rows = a.products + static_cast<std::size_t>(q.first_row - a.pass_first_row) * a.parts * a.block_rows;
  for (std::uint32_t base = 0; base < a.block_rows; base += blockDim.x) {
    const std::uint32_t j = base + threadIdx.x;
    bool take = false;
    std::uint64_t key = 0;
    if (j < a.block_rows) {
      const std::uint64_t row = a.block_first_row + j;
      bool excluded = false;
      for (std::uint32_t t = 0; t < q.terms; ++t) excluded |= terms[t].row == row;
      if (!excluded) {
        const float inverse_norm = a.inverse_norms[j];
        float score;
        if (!q.mul) {
          score = __fmul_rn(product(a, rows, 0, j), inverse_norm);
        } else {
          // As combine_scores: each cosine mapped to [0, 1], products over positive and negative words.
          float positive = 1.0f, negative = 1.0f;
          for (std::uint32_t r = 0; r < q.rows; ++r) {
            const float shifted = __fdiv_rn(__fadd_rn(1.0f, __fmul_rn(product(a, rows, r, j), inverse_norm)), 2.0f);
            if (terms[r].weight > 0) positive = __fmul_rn(positive, shifted);
            else negative = __fmul_rn(negative, shifted);
          }
          score = __fdiv_rn(positive, __fadd_rn(negative, 0.000001f));
        }
        if (score == score) {  // NaN never enters, as on the CPU
          key = radix::make_key(score, static_cast<std::uint32_t>(row));
          take = !full || key > floor;
        }
      }
    }
    append(take, key, keys, &count);
  }
  __syncthreads();
  const std::uint32_t n = count;
  if (n == kept) return;  // nothing new
  if (n <= a.k) {         // everything so far
    for (std::uint32_t i = kept + threadIdx.x; i < n; i += blockDim.x) best[i] = keys[i];
    if (threadIdx.x == 0) a.best_counts[blockIdx.x] = n;
    return;
  }

  // Radix select of the k largest keys among keys[0, n).
  std::uint64_t prefix = 0;
  std::uint32_t wanted = a.k;
  int round = 0;
  for (;; ++round) {
    for (unsigned b = threadIdx.x; b < radix::kBins; b += blockDim.x) histogram[b] = 0;
    __syncthreads();
    for (std::uint32_t base = 0; base < n; base += blockDim.x) {
      const std::uint32_t i = base + threadIdx.x;
      const bool in = i < n && radix::in_prefix(keys[i], prefix, round);
      const unsigned bin = in ? radix::digit(keys[i], round) : radix::kBins;
      // Lanes with the same digit add once: the first rounds put most keys in a few bins.
      const unsigned peers = __match_any_sync(kFullMask, bin);
      if (in && threadIdx.x % 32 == static_cast<unsigned>(__ffs(peers) - 1)) atomicAdd(&histogram[bin], __popc(peers));
    }
    __syncthreads();
    if (threadIdx.x == 0) choice = radix::choose_bin(histogram, wanted);
    __syncthreads();
    const radix::Choice c = choice;
    prefix = (prefix << radix::kDigitBits) | c.bin;
    wanted -= c.above;
    if (c.done || round == radix::kRounds - 1) break;
  }
  for (std::uint32_t base = 0; base < n; base += blockDim.x) {
    const std::uint32_t i = base + threadIdx.x;
    const bool take = i < n && radix::selected(keys[i], prefix, round);
    append(take, i < n ? keys[i] : 0, best, &written);
  }
  if (threadIdx.x == 0) a.best_counts[blockIdx.x] = a.k;
}

}  // namespace

std::size_t select_shared_bytes(std::size_t block_rows, std::size_t k) { return (block_rows + k) * sizeof(std::uint64_t); }

cudaError_t allow_select_shared_bytes(std::size_t bytes) {
  return cudaFuncSetAttribute(score_select_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
}

cudaError_t launch_score_select(const ScoreSelectArgs& args, std::uint32_t queries, std::size_t shared_bytes,
                                cudaStream_t stream) {
  score_select_kernel<<<queries, kSelectThreads, shared_bytes, stream>>>(args);
  return cudaGetLastError();
}

}  // namespace embed::cuda
