// How a GPU search spends device memory, in plain C++ so that it is tested on every
// build. The stored rows stay in their storage type; either all of them are copied to
// the device once (resident), or, when they do not fit in the budget, they stream
// through two device buffers of `chunk_rows` rows, one filled while the other is
// searched. Queries go through in device batches whose query matrix and running top-k
// lists live on the device, in passes of up to `pass_rows` GEMM rows; each pass
// multiplies blocks of stored rows whose products (the score block) stay about 32 MB,
// small enough to be read back from the GPU's L2 cache by the selection kernel.
#pragma once

#include <cstddef>
#include <cstdint>

#include "format/dtype.h"
#include "format/emb_file.h"

namespace embed {

// The most neighbours per query the GPU selects: the selection keeps a query's current
// best and a block's candidates in shared memory, 8 bytes each.
inline constexpr std::size_t kGpuMaxK = 1024;
// The most words in one GPU query (its rows are excluded from its answers by a check
// against each; an expression of more words is answered on the CPU).
inline constexpr std::size_t kGpuMaxTerms = 64;

// "Most of the free memory": 90%, leaving room for the CUDA context (as embed-train).

struct GpuSearchShape {
  std::uint64_t rows = 0;    // stored rows the device searches (a prefix of the file with --restrict)
  std::size_t dim = 0;
  DType dtype = DType::f32;  // storage type of the rows, kept on the device as is (f32 when compressed)
  std::size_t k = 10;        // neighbours per query, at most kGpuMaxK
  std::size_t shared_memory = 48 * 1024;  // bytes of shared memory one thread block may use
  // Compressed rows (int8, pq: format/emb_file.h) stay compressed on the device, with their
  // scales (and codebooks); each block of rows is decoded into an f32 block before its GEMM.
  RowStorage storage = RowStorage::dense;
  std::size_t pq_m = 0;  // pq: codes per row

  // Bytes of one stored row on the device.
  std::uint64_t row_bytes() const;
};

struct GpuSearchPlan {
  bool resident = true;            // every row on the device; else streamed through two buffers
  std::uint64_t chunk_rows = 0;    // rows per device copy: all rows when resident
  std::size_t parts = 1;           // GEMM rows per query row (query_split: 1, 2 or 3)
  std::size_t pass_rows = 0;       // GEMM rows (query rows × parts) per pass, at most
  std::size_t products_bytes = 0;  // the score block: f32 products of one pass and one block of rows
  std::size_t max_block_rows = 0;  // stored rows per GEMM, at most (their keys fit in shared memory)
  std::size_t batch_terms = 0;     // query words per device batch (so also its queries and query rows)
  std::uint64_t matrix_bytes = 0;  // rows (or both chunk buffers) and the rows' inverse norms
  std::uint64_t decode_bytes = 0;  // compressed rows: their scales, the codebooks, a decoded f32 block
  std::uint64_t batch_bytes = 0;   // query matrix, descriptors and top-k lists of one device batch
  std::uint64_t total_bytes = 0;   // all of the above, the score block and cuBLAS's workspace

  // Stored rows per GEMM for a pass of `gemm_rows` rows: as many as fill the score block,
  // within max_block_rows, a multiple of 128 (aligned 16-bit rows for the tensor cores).
  std::size_t block_rows(std::size_t gemm_rows) const;
};

// cuBLAS's workspace, which the searcher allocates and hands to it.
inline constexpr std::uint64_t kCublasWorkspaceBytes = 32ull << 20;

// The largest plan that fits in `budget` bytes: resident if at all possible (with a
// smaller score block and device batch if need be), else streamed. Throws embed::Error
// naming the sizes when even the smallest plan does not fit, or when k is above
// kGpuMaxK or too large for the device's shared memory.
GpuSearchPlan plan_gpu_search(const GpuSearchShape& shape, std::uint64_t budget);

}  // namespace embed
