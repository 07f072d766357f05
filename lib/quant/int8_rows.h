// Symmetric per-row int8 vectors (issue 69; ../shared/design/compressed-vectors.md, point 6):
// a row x is kept as one f32 scale s = max|x| / 127 and dim values v = round(x / s) in
// [-127, 127], decoded as s * v. One scale per row needs no calibration data and no offset
// terms: the dot of two rows is s_a * s_b * sum(v_a * v_b), summed exactly in integers.
// The error per element is at most s / 2; a row's exact norm is kept beside it by the file
// (its "norms" tensor), so cosines divide by true norms.
#pragma once

#include <cstddef>
#include <cstdint>

namespace embed {

// The largest magnitude a value takes: -128 is never written, so that negation is exact.
inline constexpr int kInt8Limit = 127;

// Quantizes `count` rows of `dim` floats (row-major) into values[count * dim] and
// scales[count]. A row of zeros gets scale 0 and zero values. Throws embed::Error for a
// row holding an infinity or a NaN.
void quantize_int8_rows(const float* rows, std::size_t count, std::size_t dim, std::int8_t* values, float* scales);

// Decodes `count` rows: out[r * dim + j] = scales[r] * values[r * dim + j].
void dequantize_int8_rows(const std::int8_t* values, const float* scales, std::size_t count, std::size_t dim, float* out);

// sum(a[j] * b[j]) over dim values, exact: |sum| <= dim * 127^2 fits an int32 up to
// dim = 133,144 (the tools take at most 10,000).
std::int32_t int8_dot(const std::int8_t* a, const std::int8_t* b, std::size_t dim);

}  // namespace embed
