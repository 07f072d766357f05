// The GPU search's own kernel: from one block of GEMM products to each query's scores
// and its running top-k, behind a launch function. Plain structs in, so that this header
// needs nothing from lib/ (the .cu is compiled as C++17).
//
// One thread block per query of a pass. It loads the query's current best (up to k keys
// from earlier blocks, kept on the device) into shared memory, computes the scores of the
// block's rows exactly as the CPU's combine_scores does (3CosAdd: product × inverse norm;
// 3CosMul: Levy and Goldberg's formula with the same float operations, no contraction),
// leaving out the query's own words, NaN and nothing else, and appends to the shared keys
// the candidates that beat the current k-th best. When more than k keys are then held, a
// radix select (radix_select.h) keeps exactly the k best, written back unordered; the host
// sorts each query's final list.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

namespace embed::cuda {

// Words per query the kernel keeps in shared memory (lib's kGpuMaxTerms).
inline constexpr std::uint32_t kSelectMaxTerms = 64;
inline constexpr unsigned kSelectThreads = 256;

struct SearchQueryDesc {
  std::uint32_t first_row;   // its first row in the device batch's query matrix (parts not counted)
  std::uint32_t rows;        // 1 (3CosAdd) or one per word (3CosMul)
  std::uint32_t first_term;  // its words in the batch's term array
  std::uint32_t terms;       // at most kSelectMaxTerms
  std::uint32_t mul;         // 1: 3CosMul over its rows, weighted by its words; 0: 3CosAdd
};

struct SearchTerm {
  std::uint32_t row;  // never among the query's answers
  float weight;       // +1 or -1
};

struct ScoreSelectArgs {
  const SearchQueryDesc* queries;  // the pass's queries, one thread block each
  const SearchTerm* terms;         // the device batch's
  std::uint32_t pass_first_row;    // query-matrix row of the pass's first row
  const float* products;           // (pass rows × parts) × block_rows, row-major: the block's GEMM output
  std::uint32_t parts;             // GEMM rows per query row: its 16-bit parts, summed here
  float inverse_scale;             // 1 / the parts' scale
  const float* inverse_norms;      // the block's rows': 1 / norm, 0 for a zero row
  std::uint64_t block_first_row;   // the block's first stored row
  std::uint32_t block_rows;
  std::uint64_t* best_keys;        // k per query of the pass, the first query's first
  std::uint32_t* best_counts;      // per query: keys held (0 before the first block)
  std::uint32_t k;
};

// Dynamic shared memory for a block of `block_rows` rows and `k` neighbours.
std::size_t select_shared_bytes(std::size_t block_rows, std::size_t k);
// Allows the kernel `bytes` of dynamic shared memory (above the default 48 KB).
cudaError_t allow_select_shared_bytes(std::size_t bytes);
// Queues the kernel for the pass's `queries` queries; returns the launch's status.
cudaError_t launch_score_select(const ScoreSelectArgs& args, std::uint32_t queries, std::size_t shared_bytes,
                                cudaStream_t stream);

}  // namespace embed::cuda
