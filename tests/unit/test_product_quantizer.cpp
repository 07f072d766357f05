#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "core/error.h"
#include "quant/product_quantizer.h"

using namespace embed;

namespace {
std::vector<float> gaussian_rows(std::size_t count, std::size_t dim, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> rows(count * dim);
  for (float& x : rows) x = normal(gen);
  return rows;
}
}  // namespace

TEST_CASE("product quantization: the same codebooks for any threads, another seed other ones", "[quant]") {
  constexpr std::size_t kRows = 3000, kDim = 24;
  const std::vector<float> rows = gaussian_rows(kRows, kDim, 3);
  PqTraining training;
  training.m = 6;
  training.sample_rows = 2000;
  training.iterations = 8;
  training.threads = 1;
  const PqCodebooks one = train_pq(rows.data(), kRows, kDim, training);
  training.threads = 3;
  const PqCodebooks three = train_pq(rows.data(), kRows, kDim, training);
  CHECK(one.centroids == three.centroids);
  CHECK(one.centroids.size() == 6 * kPqCentroids * 4);
  training.seed = 2;
  CHECK(train_pq(rows.data(), kRows, kDim, training).centroids != one.centroids);
  std::vector<std::uint8_t> codes1(kRows * 6), codes3(kRows * 6);
  pq_encode(one, rows.data(), kRows, codes1.data(), 1);
  pq_encode(one, rows.data(), kRows, codes3.data(), 3);
  CHECK(codes1 == codes3);
}

TEST_CASE("product quantization: codes name the nearest centroid, decodings are close, ADC is the decoding's dot",
          "[quant]") {
  constexpr std::size_t kRows = 4000, kDim = 16, kM = 4;
  const std::vector<float> rows = gaussian_rows(kRows, kDim, 5);
  PqTraining training;
  training.m = kM;
  const PqCodebooks books = train_pq(rows.data(), kRows, kDim, training);
  std::vector<std::uint8_t> codes(kRows * kM);
  pq_encode(books, rows.data(), kRows, codes.data(), 2);
  std::vector<float> decoded(kRows * kDim);
  pq_decode(books, codes.data(), kRows, decoded.data());
  // Each code is the nearest centroid of its sub-space.
  for (std::size_t r = 0; r < 50; ++r) {
    for (std::size_t s = 0; s < kM; ++s) {
      const float* x = &rows[r * kDim + s * 4];
      auto distance = [&](std::size_t k) {
        float d = 0;
        for (std::size_t j = 0; j < 4; ++j) d += (x[j] - books.centroid(s, k)[j]) * (x[j] - books.centroid(s, k)[j]);
        return d;
      };
      const float chosen = distance(codes[r * kM + s]);
      for (std::size_t k = 0; k < kPqCentroids; ++k) CHECK(chosen <= distance(k));
    }
  }
  // 256 centroids for 4-d Gaussians leave a small share of the variance (1 per element).
  double error = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) error += (rows[i] - decoded[i]) * (rows[i] - decoded[i]);
  CHECK(error / static_cast<double>(rows.size()) < 0.2);
  // ADC against the table equals the dot with the decoding.
  const std::vector<float> query = gaussian_rows(1, kDim, 9);
  std::vector<float> table(kM * kPqCentroids);
  pq_inner_product_table(books, query.data(), table.data());
  for (std::size_t r = 0; r < 100; ++r) {
    double dot = 0;
    for (std::size_t j = 0; j < kDim; ++j) dot += query[j] * decoded[r * kDim + j];
    CHECK(std::fabs(pq_adc_score(table.data(), &codes[r * kM], kM) - dot) <= 1e-4 * (1 + std::fabs(dot)));
  }
}

TEST_CASE("product quantization: sub-quantizers that do not divide the dimensions, and few rows", "[quant]") {
  const std::vector<float> rows = gaussian_rows(10, 12, 1);
  PqTraining training;
  training.m = 5;
  CHECK_THROWS_WITH(train_pq(rows.data(), 10, 12, training),
                    Catch::Matchers::Contains("5 sub-quantizers must divide the 12 dimensions"));
  training.m = 0;
  CHECK_THROWS_AS(train_pq(rows.data(), 10, 12, training), Error);
  // Fewer rows than centroids: every row decodes exactly (its own sub-vectors are centroids).
  training.m = 3;
  const PqCodebooks books = train_pq(rows.data(), 10, 12, training);
  std::vector<std::uint8_t> codes(10 * 3);
  pq_encode(books, rows.data(), 10, codes.data(), 1);
  std::vector<float> decoded(10 * 12);
  pq_decode(books, codes.data(), 10, decoded.data());
  CHECK(decoded == rows);
}
