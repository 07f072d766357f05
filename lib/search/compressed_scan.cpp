#include "search/compressed_scan.h"

#include <algorithm>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "core/cpu_isa.h"
#include "core/error.h"
#include "core/parallel.h"
#include "quant/int8_rows.h"
#include "quant/opq.h"

namespace embed {
namespace {

// Bytes of pq tables a pass holds at most (each query row's is m x 256 floats).
constexpr std::size_t kPqTableBytes = 8 << 20;
// Query rows that share one read of a block of stored int8 rows (VNNI's kernel).
constexpr std::size_t kInt8QueryTile = 4;

#if defined(__x86_64__)
// AVX-512 VNNI (Ice Lake, Zen 4): VPDPBUSD multiplies 64 unsigned bytes by 64 signed ones
// and adds each four products into a 32-bit lane: 64 multiply-adds an instruction, four
// times an f32 FMA's. A lane holds one stored row, so no sum across lanes is ever needed:
// the block's rows are first transposed into groups of 4 dims (16 rows' groups per 64
// bytes) and offset to unsigned (x + 128, corrected by 128 x the query's sum), and each
// query's group of 4 dims is broadcast against them.
#define EMBED_TARGET_VNNI __attribute__((target("avx512f,avx512bw,avx512vnni")))
constexpr std::size_t kVnniRows = 64;  // rows per kernel step: four registers of 16
// Query rows below which the stored rows are read as they are, not transposed.
constexpr std::size_t kTransposeQueryRows = 8;

// out[(g * padded + r)] = dims 4g..4g+3 of row r, each byte + 128, as one 32-bit word;
// rows count..padded are zeros (their dots are never read).
void transpose_groups(const std::int8_t* rows, std::size_t count, std::size_t dim, std::size_t padded, std::uint32_t* out) {
  const std::size_t groups = (dim + 3) / 4;
  std::fill(out, out + groups * padded, 0u);
  for (std::size_t r = 0; r < count; ++r) {
    const std::int8_t* v = rows + r * dim;
    for (std::size_t g = 0; g < groups; ++g) {
      std::uint32_t word = 0;
      for (std::size_t b = 0; b < 4 && 4 * g + b < dim; ++b) word |= std::uint32_t{static_cast<std::uint8_t>(v[4 * g + b])} << (8 * b);
      out[g * padded + r] = word ^ 0x80808080u;
    }
  }
}

// dots[u * padded + r] = sum over dims of query u's int8 (zero past dim) x row r's, for
// four queries (q: 4 rows of `stride` bytes, a multiple of 64) and the transposed rows.
EMBED_TARGET_VNNI void int8_tile_vnni(const std::uint32_t* rows, std::size_t padded, std::size_t groups,
                                      const std::int8_t* q, std::size_t stride, const std::int32_t* query_sums,
                                      std::int32_t* dots) {
  const auto* q32 = reinterpret_cast<const std::int32_t*>(q);
  const std::size_t stride_words = stride / 4;
  for (std::size_t r = 0; r < padded; r += kVnniRows) {
    __m512i acc[4][4];
    for (auto& per_query : acc) {
      for (auto& a : per_query) a = _mm512_setzero_si512();
    }
    for (std::size_t g = 0; g < groups; ++g) {
      const std::uint32_t* from = rows + g * padded + r;
      const __m512i r0 = _mm512_loadu_si512(from), r1 = _mm512_loadu_si512(from + 16);
      const __m512i r2 = _mm512_loadu_si512(from + 32), r3 = _mm512_loadu_si512(from + 48);
      for (std::size_t u = 0; u < 4; ++u) {
        const __m512i b = _mm512_set1_epi32(q32[u * stride_words + g]);
        acc[u][0] = _mm512_dpbusd_epi32(acc[u][0], r0, b);
        acc[u][1] = _mm512_dpbusd_epi32(acc[u][1], r1, b);
        acc[u][2] = _mm512_dpbusd_epi32(acc[u][2], r2, b);
        acc[u][3] = _mm512_dpbusd_epi32(acc[u][3], r3, b);
      }
    }
    for (std::size_t u = 0; u < 4; ++u) {
      const __m512i offset = _mm512_set1_epi32(128 * query_sums[u]);
      for (std::size_t k = 0; k < 4; ++k) {
        _mm512_storeu_si512(dots + u * padded + r + 16 * k, _mm512_sub_epi32(acc[u][k], offset));
      }
    }
  }
}

// The same dots for a few query rows (`queries` of them, at most 4), reading each stored row
// as it is: 64 bytes at a time, a sum across lanes per row and query at the end. For one or
// two query rows the transposition above would cost more than the products it serves.
EMBED_TARGET_VNNI void int8_rows_vnni(const std::int8_t* rows, std::size_t count, std::size_t dim, const std::int8_t* q,
                                      std::size_t stride, std::size_t queries, const std::int32_t* query_sums,
                                      std::int32_t* dots) {
  const __m512i offset = _mm512_set1_epi8(static_cast<char>(0x80));
  for (std::size_t j = 0; j < count; ++j) {
    const std::int8_t* v = rows + j * dim;
    __m512i acc[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
    for (std::size_t c = 0; c < dim; c += 64) {
      // Past dim the row's bytes are masked to 0 (+128 after the offset), the query's are 0.
      const __mmask64 in = dim - c >= 64 ? ~__mmask64{0} : (__mmask64{1} << (dim - c)) - 1;
      const __m512i x = _mm512_xor_si512(_mm512_maskz_loadu_epi8(in, v + c), offset);
      for (std::size_t u = 0; u < queries; ++u) acc[u] = _mm512_dpbusd_epi32(acc[u], x, _mm512_loadu_si512(q + u * stride + c));
    }
    for (std::size_t u = 0; u < queries; ++u) {
      // Summed through memory: GCC 12's _mm512_reduce_add_epi32 warns of an uninitialized
      // operand (its own), which -Werror makes an error.
      alignas(64) std::int32_t lanes[16];
      _mm512_store_si512(lanes, acc[u]);
      std::int32_t sum = 0;
      for (std::int32_t lane : lanes) sum += lane;
      dots[u * count + j] = sum - 128 * query_sums[u];
    }
  }
}

bool has_vnni() { return cpu_isa() == CpuIsa::avx512 && __builtin_cpu_supports("avx512vnni"); }
#else
bool has_vnni() { return false; }
#endif

// A row's ADC product, four rows at a time (four independent sums in flight).
void pq_scores(const float* table, const std::uint8_t* codes, std::size_t m, std::size_t count, const float* scales,
               float* out) {
  std::size_t j = 0;
  for (; j + 4 <= count; j += 4) {
    const std::uint8_t* c = codes + j * m;
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (std::size_t s = 0; s < m; ++s) {
      const float* t = table + s * kPqCentroids;
      s0 += t[c[s]];
      s1 += t[c[m + s]];
      s2 += t[c[2 * m + s]];
      s3 += t[c[3 * m + s]];
    }
    out[j] = s0 * scales[j];
    out[j + 1] = s1 * scales[j + 1];
    out[j + 2] = s2 * scales[j + 2];
    out[j + 3] = s3 * scales[j + 3];
  }
  for (; j < count; ++j) out[j] = pq_adc_score(table, codes + j * m, m) * scales[j];
}

// A quantized query row's bytes: dim, padded with zeros to whole 64-byte loads.
std::size_t int8_query_stride(std::size_t dim) { return (dim + 63) / 64 * 64; }

}  // namespace

CompressedScan::CompressedScan(const EmbFile& file, const float* queries, std::size_t query_rows, unsigned threads)
    : file_(file), query_rows_(query_rows) {
  const std::size_t dim = file.dim();
  if (const PqCodebooks* books = file.pq_codebooks()) {
    // With OPQ the codes are of rotated rows: q·(x̂·Rᵀ) = (q·R)·x̂, so the query turns once.
    std::vector<float> rotated;
    if (!file.pq_rotation().empty()) {
      rotated.resize(query_rows * dim);
      rotate_rows(queries, query_rows, dim, file.pq_rotation().data(), rotated.data(), threads);
      queries = rotated.data();
    }
    const std::size_t table_size = books->m * kPqCentroids;
    tables_.resize(query_rows * table_size);
    parallel_for(query_rows, threads, [&](std::size_t t) {
      pq_inner_product_table(*books, queries + t * dim, tables_.data() + t * table_size);
    });
    return;
  }
  EMBED_ASSERT(takes(file));
  // Padded to whole tiles of zero rows, and each row to whole groups of 4 dims with zeros,
  // which add nothing.
  const std::size_t padded = (query_rows + kInt8QueryTile - 1) / kInt8QueryTile * kInt8QueryTile;
  const std::size_t stride = int8_query_stride(dim);
  std::vector<std::int8_t> quantized(query_rows * dim);
  query_scales_.assign(padded, 0.0f);
  quantize_int8_rows(queries, query_rows, dim, quantized.data(), query_scales_.data());
  int8_queries_.assign(padded * stride, 0);
  query_sums_.assign(padded, 0);
  for (std::size_t t = 0; t < query_rows; ++t) {
    for (std::size_t i = 0; i < dim; ++i) {
      int8_queries_[t * stride + i] = quantized[t * dim + i];
      query_sums_[t] += quantized[t * dim + i];
    }
  }
}

bool CompressedScan::takes(const EmbFile& file) {
  return file.storage() == RowStorage::pq || (file.storage() == RowStorage::int8 && has_vnni());
}

std::size_t CompressedScan::max_query_rows(const EmbFile& file, std::size_t dense_max) {
  const PqCodebooks* books = file.pq_codebooks();
  if (!books) return dense_max;
  return std::clamp<std::size_t>(kPqTableBytes / (books->m * kPqCentroids * sizeof(float)), 1, dense_max);
}

void CompressedScan::products(std::uint64_t first, std::size_t count, float* products) const {
  const std::span<const float> scales = file_.row_scales().subspan(first, count);
  if (const PqCodebooks* books = file_.pq_codebooks()) {
    const auto* codes = reinterpret_cast<const std::uint8_t*>(file_.vector_bytes()) + first * books->m;
    for (std::size_t t = 0; t < query_rows_; ++t) {
      pq_scores(tables_.data() + t * books->m * kPqCentroids, codes, books->m, count, scales.data(), products + t * count);
    }
    return;
  }
#if defined(__x86_64__)
  const std::size_t dim = file_.dim();
  const auto* rows = reinterpret_cast<const std::int8_t*>(file_.vector_bytes()) + first * dim;
  const std::size_t stride = int8_query_stride(dim);
  thread_local std::vector<std::int32_t> tile_dots;  // per worker, reused block after block
  if (query_rows_ < kTransposeQueryRows) {
    tile_dots.resize(kInt8QueryTile * count);
    for (std::size_t t = 0; t < query_rows_; t += kInt8QueryTile) {
      const std::size_t tile_rows = std::min(kInt8QueryTile, query_rows_ - t);
      int8_rows_vnni(rows, count, dim, int8_queries_.data() + t * stride, stride, tile_rows, query_sums_.data() + t,
                     tile_dots.data());
      scale_dots(t, tile_rows, count, count, tile_dots.data(), scales.data(), products);
    }
    return;
  }
  const std::size_t padded = (count + kVnniRows - 1) / kVnniRows * kVnniRows;
  const std::size_t groups = (dim + 3) / 4;
  thread_local std::vector<std::uint32_t> transposed;
  transposed.resize(groups * padded);
  tile_dots.resize(kInt8QueryTile * padded);
  transpose_groups(rows, count, dim, padded, transposed.data());
  for (std::size_t t = 0; t < query_rows_; t += kInt8QueryTile) {
    int8_tile_vnni(transposed.data(), padded, groups, int8_queries_.data() + t * stride, stride, query_sums_.data() + t,
                   tile_dots.data());
    scale_dots(t, std::min(kInt8QueryTile, query_rows_ - t), count, padded, tile_dots.data(), scales.data(), products);
  }
#endif
}

void CompressedScan::scale_dots(std::size_t first_query, std::size_t queries, std::size_t count, std::size_t dots_stride,
                                const std::int32_t* dots, const float* scales, float* products) const {
  for (std::size_t u = 0; u < queries; ++u) {
    const float query_scale = query_scales_[first_query + u];
    for (std::size_t j = 0; j < count; ++j) {
      products[(first_query + u) * count + j] = static_cast<float>(dots[u * dots_stride + j]) * query_scale * scales[j];
    }
  }
}

}  // namespace embed
