#include "quant/int8_rows.h"

#include <cmath>

#include "core/error.h"

namespace embed {

void quantize_int8_rows(const float* rows, std::size_t count, std::size_t dim, std::int8_t* values, float* scales) {
  for (std::size_t r = 0; r < count; ++r) {
    const float* x = rows + r * dim;
    std::int8_t* v = values + r * dim;
    float largest = 0;
    bool finite = true;
    for (std::size_t j = 0; j < dim; ++j) {
      finite &= std::isfinite(x[j]);  // fmax would pass a NaN over
      largest = std::fmax(largest, std::fabs(x[j]));
    }
    if (!finite) fail("row {} has a value that is not finite: int8 cannot hold it", r);
    const float scale = largest / kInt8Limit;
    scales[r] = scale;
    // Dividing by the scale (not multiplying by its inverse) keeps the largest element at
    // exactly +-127: x / (x / 127) rounds to 127 in f32.
    constexpr float kLimit = kInt8Limit;
    for (std::size_t j = 0; j < dim; ++j) {
      v[j] = scale == 0 ? std::int8_t{0} : static_cast<std::int8_t>(std::lrint(std::fmin(std::fmax(x[j] / scale, -kLimit), kLimit)));
    }
  }
}

void dequantize_int8_rows(const std::int8_t* values, const float* scales, std::size_t count, std::size_t dim, float* out) {
  for (std::size_t r = 0; r < count; ++r) {
    const float scale = scales[r];
    for (std::size_t j = 0; j < dim; ++j) out[r * dim + j] = scale * static_cast<float>(values[r * dim + j]);
  }
}

std::int32_t int8_dot(const std::int8_t* a, const std::int8_t* b, std::size_t dim) {
  std::int32_t sum = 0;
  for (std::size_t j = 0; j < dim; ++j) sum += std::int32_t{a[j]} * std::int32_t{b[j]};
  return sum;
}

}  // namespace embed
