#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "core/error.h"
#include "quant/int8_rows.h"

using namespace embed;

namespace {
// `count` rows of `dim` values, normal with a scale that differs per row (as word vectors' norms do).
std::vector<float> random_rows(std::size_t count, std::size_t dim, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> rows(count * dim);
  for (std::size_t r = 0; r < count; ++r) {
    const float scale = 0.01f + static_cast<float>(r % 7);
    for (std::size_t j = 0; j < dim; ++j) rows[r * dim + j] = scale * normal(gen);
  }
  return rows;
}

struct Quantized {
  std::vector<std::int8_t> values;
  std::vector<float> scales, decoded;
};
// `rows` quantized, and decoded again.
Quantized quantized(const std::vector<float>& rows, std::size_t count, std::size_t dim) {
  Quantized q{std::vector<std::int8_t>(count * dim), std::vector<float>(count), std::vector<float>(count * dim)};
  quantize_int8_rows(rows.data(), count, dim, q.values.data(), q.scales.data());
  dequantize_int8_rows(q.values.data(), q.scales.data(), count, dim, q.decoded.data());
  return q;
}
}  // namespace

TEST_CASE("int8 rows: within half a step of the originals, the largest element exact", "[quant]") {
  constexpr std::size_t kRows = 50, kDim = 300;
  const std::vector<float> rows = random_rows(kRows, kDim, 7);
  const auto [values, scales, decoded] = quantized(rows, kRows, kDim);
  for (std::size_t r = 0; r < kRows; ++r) {
    float largest = 0;
    int largest_value = 0;
    for (std::size_t j = 0; j < kDim; ++j) {
      const std::size_t i = r * kDim + j;
      CHECK(std::fabs(decoded[i] - rows[i]) <= scales[r] * 0.5f * (1 + 1e-5f));
      CHECK(values[i] != -128);
      if (std::fabs(rows[i]) > largest) largest = std::fabs(rows[i]), largest_value = values[i];
    }
    CHECK(std::abs(largest_value) == kInt8Limit);
    CHECK(scales[r] == largest / kInt8Limit);
  }
}

TEST_CASE("int8 rows: a zero row, and values that are not finite", "[quant]") {
  const std::vector<float> zero(8, 0.0f);
  std::vector<std::int8_t> values(8, 5);
  float scale = 1;
  quantize_int8_rows(zero.data(), 1, 8, values.data(), &scale);
  CHECK(scale == 0);
  CHECK(values == std::vector<std::int8_t>(8, 0));
  std::vector<float> decoded(8, 1);
  dequantize_int8_rows(values.data(), &scale, 1, 8, decoded.data());
  CHECK(decoded == zero);
  for (const float bad : {std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()}) {
    std::vector<float> row = {0.5f, bad, -1.0f};
    std::vector<float> two_rows = {1.0f, 2.0f, 3.0f};
    two_rows.insert(two_rows.end(), row.begin(), row.end());
    std::vector<std::int8_t> v(6);
    float s[2];
    try {
      quantize_int8_rows(two_rows.data(), 2, 3, v.data(), s);
      FAIL("a row that is not finite was quantized");
    } catch (const Error& e) {
      CHECK_THAT(e.what(), Catch::Matchers::Contains("row 1 has a value that is not finite"));
    }
  }
}

TEST_CASE("int8 rows: integer dots equal the decoded rows' dots", "[quant]") {
  constexpr std::size_t kRows = 20, kDim = 257;  // an odd width: no vector-width tail assumed
  const std::vector<float> rows = random_rows(kRows, kDim, 11);
  const auto [values, scales, decoded] = quantized(rows, kRows, kDim);
  for (std::size_t a = 0; a < kRows; ++a) {
    for (std::size_t b = 0; b < kRows; ++b) {
      std::int64_t exact = 0;
      double decoded_dot = 0, original_dot = 0, bound = 0;
      for (std::size_t j = 0; j < kDim; ++j) {
        exact += std::int64_t{values[a * kDim + j]} * values[b * kDim + j];
        decoded_dot += double{decoded[a * kDim + j]} * decoded[b * kDim + j];
        original_dot += double{rows[a * kDim + j]} * rows[b * kDim + j];
        // |x y - x' y'| <= |x| e_b + |y| e_a + e_a e_b, with e = scale / 2.
        bound += std::fabs(rows[a * kDim + j]) * scales[b] / 2 + std::fabs(rows[b * kDim + j]) * scales[a] / 2 +
                 scales[a] * scales[b] / 4;
      }
      const std::int32_t dot = int8_dot(&values[a * kDim], &values[b * kDim], kDim);
      CHECK(dot == exact);
      CHECK(std::fabs(double{scales[a]} * scales[b] * dot - decoded_dot) <= 1e-4 * (1 + std::fabs(decoded_dot)));
      CHECK(std::fabs(decoded_dot - original_dot) <= bound * 1.001 + 1e-9);
    }
  }
  // The largest sum the type allows at the widest dim the tools take.
  const std::vector<std::int8_t> most(10'000, std::int8_t{-127});
  CHECK(int8_dot(most.data(), most.data(), most.size()) == 10'000 * 127 * 127);
}
