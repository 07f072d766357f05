#include "search/gpu_search_plan.h"

#include <algorithm>

#include "core/error.h"
#include "core/progress.h"
#include "search/query_split.h"

namespace embed {
namespace {

std::string bytes(std::uint64_t n) { return human_bytes(static_cast<double>(n)); }

constexpr std::size_t kPassRows = 2048;             // GEMM rows per pass: wide enough for the GEMM to run at speed
constexpr std::size_t kProductsBytes = 32u << 20;   // the score block, L2-sized
constexpr std::size_t kMinProductsBytes = 1u << 20; // still 128 rows per block at kPassRows
constexpr std::size_t kBatchTerms = 16384;          // words per device batch
constexpr std::size_t kMinBatchTerms = 256;         // above kGpuMaxTerms: a query always fits
constexpr std::size_t kGpuMaxBlockRows = 16384;        // beyond this a block's selection gains nothing
constexpr std::size_t kRowAlignment = 128;
constexpr std::uint64_t kMaxChunkBytes = 256ull << 20;  // a streamed copy: large enough to hide its latency
constexpr std::uint64_t kMinChunkRows = 1024;
constexpr std::size_t kSharedReserve = 4096;        // the selection's histogram and small state
constexpr std::size_t kKeyBytes = 8;
constexpr std::size_t kQueryBytes = 32;             // a query's descriptor and top-k count
constexpr std::size_t kTermBytes = 8;               // a word's row and weight

std::size_t round_down(std::size_t n, std::size_t to) { return n / to * to; }

}  // namespace

std::size_t GpuSearchPlan::block_rows(std::size_t gemm_rows) const {
  const std::size_t fill = products_bytes / (sizeof(float) * std::max<std::size_t>(gemm_rows, 1));
  return std::max(kRowAlignment, round_down(std::min(fill, max_block_rows), kRowAlignment));
}

std::uint64_t GpuSearchShape::row_bytes() const {
  switch (storage) {
    case RowStorage::int8: return dim;
    case RowStorage::pq: return pq_m;
    case RowStorage::dense: break;
  }
  return std::uint64_t{dim} * dtype_size(dtype);
}

GpuSearchPlan plan_gpu_search(const GpuSearchShape& shape, std::uint64_t budget) {
  if (shape.k > kGpuMaxK) fail("the GPU selects at most {} neighbours per query, not {}; use --device cpu", kGpuMaxK, shape.k);
  const std::size_t keys = shape.shared_memory > kSharedReserve ? (shape.shared_memory - kSharedReserve) / kKeyBytes : 0;
  if (keys < shape.k + kRowAlignment) {
    fail("the GPU's {} of shared memory per block hold too few candidates for -k {}; use --device cpu",
         bytes(shape.shared_memory), shape.k);
  }
  // The selection's keys hold a row in 32 bits.
  if (shape.rows > 0xFFFFFFFFull) fail("the GPU searches at most 4294967295 rows, not {}; use --device cpu", shape.rows);
  GpuSearchPlan plan;
  const QuerySplit split = query_split(shape.dtype);
  plan.parts = split.parts;
  plan.pass_rows = kPassRows;
  plan.max_block_rows = round_down(std::min(kGpuMaxBlockRows, keys - shape.k), kRowAlignment);
  EMBED_ASSERT(shape.storage == RowStorage::dense || shape.dtype == DType::f32);
  const std::uint64_t row_bytes = shape.row_bytes();
  // The rows' inverse norms, and for compressed rows their scales, codebooks and one decoded block.
  if (shape.storage != RowStorage::dense) {
    plan.decode_bytes = shape.rows * sizeof(float) + plan.max_block_rows * shape.dim * sizeof(float) +
                        (shape.storage == RowStorage::pq ? std::uint64_t{kPqCentroids} * shape.dim * sizeof(float) : 0);
  }
  const std::uint64_t norms = shape.rows * sizeof(float) + plan.decode_bytes;
  const std::size_t query_element = shape.dtype == DType::f32 ? sizeof(float) : sizeof(std::uint16_t);
  const std::uint64_t per_term = plan.parts * shape.dim * query_element + kQueryBytes + shape.k * kKeyBytes + kTermBytes;

  // Smaller score blocks and device batches cost little speed; streaming costs a copy of
  // the rows per batch. So shrink those first, then stream.
  auto fixed_bytes = [&](std::size_t products, std::size_t batch_terms) {
    return kCublasWorkspaceBytes + products + batch_terms * per_term + norms;
  };
  auto sized = [&](std::size_t products, std::size_t batch_terms, std::uint64_t chunk_rows, bool resident) {
    plan.products_bytes = products;
    plan.batch_terms = batch_terms;
    plan.resident = resident;
    plan.chunk_rows = chunk_rows;
    plan.batch_bytes = batch_terms * per_term;
    plan.matrix_bytes = (resident ? 1 : 2) * chunk_rows * row_bytes + norms;
    plan.total_bytes = kCublasWorkspaceBytes + products + plan.batch_bytes + plan.matrix_bytes;
    return plan;
  };
  const std::uint64_t matrix = shape.rows * row_bytes;
  for (std::size_t products = kProductsBytes, terms = kBatchTerms;; products /= 2, terms /= 2) {
    products = std::max(products, kMinProductsBytes);
    terms = std::max(terms, kMinBatchTerms);
    if (matrix + fixed_bytes(products, terms) <= budget) return sized(products, terms, shape.rows, true);
    if (products == kMinProductsBytes && terms == kMinBatchTerms) break;
  }
  // Streamed through two buffers. Chunks below kMinChunkRows would cost more in copies and
  // launches than they search.
  const std::uint64_t max_chunk = std::max<std::uint64_t>(kMinChunkRows, kMaxChunkBytes / std::max<std::uint64_t>(row_bytes, 1));
  const std::uint64_t min_chunk = std::min<std::uint64_t>(shape.rows, kMinChunkRows);
  for (std::size_t products = kProductsBytes, terms = kBatchTerms;; products /= 2, terms /= 2) {
    products = std::max(products, kMinProductsBytes);
    terms = std::max(terms, kMinBatchTerms);
    const std::uint64_t fixed = fixed_bytes(products, terms);
    const std::uint64_t chunk = fixed < budget ? (budget - fixed) / (2 * std::max<std::uint64_t>(row_bytes, 1)) : 0;
    std::uint64_t rows = std::min({chunk, max_chunk, shape.rows});
    if (rows < shape.rows) rows = round_down(rows, kRowAlignment);
    if (rows >= min_chunk && rows > 0) return sized(products, terms, rows, false);
    if (products == kMinProductsBytes && terms == kMinBatchTerms) break;
  }
  // The least of: every row resident, or two of the smallest chunks; with the smallest rest.
  const std::uint64_t rows_needed = std::min(matrix, 2 * min_chunk * row_bytes);
  const std::uint64_t needed = fixed_bytes(kMinProductsBytes, kMinBatchTerms) + rows_needed;
  fail("--gpu-memory {} is too small to search {} x {} {} rows on the GPU: it needs at least {} (cuBLAS workspace {}, "
       "norms{} {}, rows {}, queries and scores {}); raise --gpu-memory or use --device cpu",
       bytes(budget), shape.rows, shape.dim,
       shape.storage == RowStorage::dense ? vector_dtype_name(shape.dtype) : row_storage_name(shape.storage),
       bytes(needed), bytes(kCublasWorkspaceBytes),
       shape.storage == RowStorage::dense ? "" : " and decoding", bytes(norms), bytes(rows_needed), bytes(kMinProductsBytes + kMinBatchTerms * per_term));
}

}  // namespace embed
