// OPQ (quant/opq.h): the rotation is orthogonal, lowers the quantization error of rows
// whose variance sits in a few correlated directions, and trains to the same bytes for
// any threads.
#include <cmath>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "quant/opq.h"

using namespace embed;

namespace {

// Rows whose 24 dims mix 6 latent factors of falling strength: most variance in a few
// directions that cross the sub-spaces, where a rotation helps PQ.
std::vector<float> correlated_rows(std::size_t count, std::size_t dim, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> mixing(6 * dim);
  for (float& x : mixing) x = normal(gen);
  std::vector<float> rows(count * dim);
  for (std::size_t r = 0; r < count; ++r) {
    for (std::size_t f = 0; f < 6; ++f) {
      const float z = normal(gen) * static_cast<float>(6 - f);
      for (std::size_t j = 0; j < dim; ++j) rows[r * dim + j] += z * mixing[f * dim + j];
    }
    for (std::size_t j = 0; j < dim; ++j) rows[r * dim + j] += 0.1f * normal(gen);
  }
  return rows;
}

// Mean squared error of rows against their decodings (rotated back).
double quantization_error(const std::vector<float>& rows, std::size_t dim, const PqCodebooks& books,
                          const std::vector<float>& rotation) {
  const std::size_t count = rows.size() / dim;
  std::vector<float> rotated(rows.size()), decoded(rows.size()), back(rows.size());
  rotate_rows(rows.data(), count, dim, rotation.data(), rotated.data(), 2);
  std::vector<std::uint8_t> codes(count * books.m);
  pq_encode(books, rotated.data(), count, codes.data(), 2);
  pq_decode(books, codes.data(), count, decoded.data());
  rotate_rows_back(decoded.data(), count, dim, rotation.data(), back.data(), 2);
  double error = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) error += (rows[i] - back[i]) * (rows[i] - back[i]);
  return error / static_cast<double>(count);
}

}  // namespace

TEST_CASE("OPQ: an orthogonal rotation with less error than PQ, the same for any threads", "[quant]") {
  constexpr std::size_t kRows = 2000, kDim = 24;
  const std::vector<float> rows = correlated_rows(kRows, kDim, 4);
  PqTraining pq;
  pq.m = 6;
  pq.iterations = 10;
  pq.threads = 1;
  OpqTraining opq;
  opq.rounds = 8;
  const OpqModel one = train_opq(rows.data(), kRows, kDim, pq, opq);
  pq.threads = 3;
  const OpqModel three = train_opq(rows.data(), kRows, kDim, pq, opq);
  CHECK(one.rotation == three.rotation);
  CHECK(one.codebooks.centroids == three.codebooks.centroids);
  // RᵀR = I.
  for (std::size_t i = 0; i < kDim; ++i) {
    for (std::size_t j = 0; j < kDim; ++j) {
      double dot = 0;
      for (std::size_t k = 0; k < kDim; ++k) dot += double{one.rotation[k * kDim + i]} * one.rotation[k * kDim + j];
      CHECK(dot == Approx(i == j ? 1.0 : 0.0).margin(1e-4));
    }
  }
  std::vector<float> identity(kDim * kDim, 0.0f);
  for (std::size_t i = 0; i < kDim; ++i) identity[i * kDim + i] = 1.0f;
  const PqCodebooks plain = train_pq(rows.data(), kRows, kDim, pq);
  const double pq_error = quantization_error(rows, kDim, plain, identity);
  const double opq_error = quantization_error(rows, kDim, one.codebooks, one.rotation);
  INFO("PQ error " << pq_error << ", OPQ error " << opq_error);
  CHECK(opq_error < 0.9 * pq_error);
}

TEST_CASE("OPQ: rotating and rotating back is the identity; m must divide dim", "[quant]") {
  const std::vector<float> rows = correlated_rows(50, 12, 7);
  PqTraining pq;
  pq.m = 4;
  pq.iterations = 3;
  OpqTraining opq;
  opq.rounds = 2;
  const OpqModel model = train_opq(rows.data(), 50, 12, pq, opq);
  std::vector<float> rotated(rows.size()), back(rows.size());
  rotate_rows(rows.data(), 50, 12, model.rotation.data(), rotated.data(), 1);
  rotate_rows_back(rotated.data(), 50, 12, model.rotation.data(), back.data(), 1);
  for (std::size_t i = 0; i < rows.size(); ++i) CHECK(back[i] == Approx(rows[i]).margin(1e-3));
  pq.m = 5;
  CHECK_THROWS_WITH(train_opq(rows.data(), 50, 12, pq, opq), Catch::Matchers::Contains("must divide the 12 dimensions"));
}
