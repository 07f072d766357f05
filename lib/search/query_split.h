// Query rows for a 16-bit GEMM that still computes f32 products. The GPU multiplies
// f16/bf16 stored rows in their own type (tensor-core GEMM, f32 accumulation), but the
// CPU multiplies f32 queries by those rows converted to f32: the stored values are the
// same exactly, so only the query must not lose precision. Each f32 query row a is
// split into 16-bit parts whose sum is a to about f32 precision,
//   f16:  hi = f16(a·s), lo = f16(a·s − hi)                         (11 + 11 bits)
//   bf16: hi = bf16(a), mid = bf16(a − hi), lo = bf16(a − hi − mid) (8 + 8 + 8 bits)
// and the parts go through the GEMM as extra query rows; a part times a stored 16-bit
// value is exact in f32, so Σ_parts(part · b) / s is a · b with f32 accumulation only.
// s = 2^8 for f16 lifts unit-vector entries (|a_i| ≤ 1) away from f16's subnormals
// (below 2^-14) while keeping them far below its largest value (65504); bf16 has f32's
// exponent range and needs no scale.
#pragma once

#include <cstddef>
#include <cstdint>

#include "format/dtype.h"

namespace embed {

struct QuerySplit {
  std::size_t parts = 1;  // rows per query row in the GEMM: 1 (f32), 2 (f16), 3 (bf16)
  float scale = 1.0f;     // the parts sum to a · scale (a power of two, so dividing is exact)
};

// How queries against rows stored as `storage` are split (f32: not at all).
QuerySplit query_split(DType storage);

// Splits `count` rows of `dim` f32 values into split.parts 16-bit rows each (storage's
// bit patterns): part p of row i is out[(i * parts + p) * dim, + dim). `storage` is f16 or bf16.
void split_query_rows(const float* rows, std::size_t count, std::size_t dim, DType storage, std::uint16_t* out);

}  // namespace embed
