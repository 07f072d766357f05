#include "quant/opq.h"

#include <cmath>

#include "core/error.h"
#include "core/parallel.h"
#include "math/sgemm.h"

namespace embed {
namespace {

// Rows per parallel task of a product with a dim x dim matrix.
constexpr std::size_t kRotateRows = 1024;
// Newton-Schulz stops when QᵀQ is this close to I (Frobenius), or after this many steps.
constexpr double kOrthogonalTolerance = 1e-5;
constexpr unsigned kMaxPolarSteps = 100;

// out = a (n x k) · bᵀ where b is given as its own rows (m x k): C = A·Bᵀ, split by rows of A.
void product_abt(const float* a, std::size_t n, std::size_t k, const float* b, std::size_t m, float* out, unsigned threads) {
  parallel_for((n + kRotateRows - 1) / kRotateRows, std::max(threads, 1u), [&](std::size_t block) {
    const std::size_t first = block * kRotateRows;
    const std::size_t rows = std::min(kRotateRows, n - first);
    sgemm_abt(rows, m, k, a + first * k, k, b, k, out + first * m, m);
  });
}

double frobenius(const std::vector<float>& m) {
  double sum = 0;
  for (float x : m) sum += double{x} * x;
  return std::sqrt(sum);
}

// The orthogonal polar factor of the square matrix m (dim x dim): U·Vᵀ for m = U·S·Vᵀ, the
// orthogonal matrix nearest to m. Newton-Schulz: Q ← Q·(3I − QᵀQ)/2 from m/|m|, whose
// singular values all lie in (0, 1] and go to 1. Returns false when m is (nearly) singular
// and the steps do not reach an orthogonal matrix.
bool polar_factor(std::vector<float> m, std::size_t dim, std::vector<float>& q) {
  const double scale = frobenius(m);
  if (!(scale > 0)) return false;
  for (float& x : m) x = static_cast<float>(x / scale);
  q = std::move(m);
  std::vector<float> qt(dim * dim), qtq(dim * dim), next(dim * dim);
  for (unsigned step = 0; step < kMaxPolarSteps; ++step) {
    qt = transposed(q.data(), dim, dim);
    sgemm_abt(dim, dim, dim, qt.data(), dim, qt.data(), dim, qtq.data(), dim);  // QᵀQ = Qᵀ·(Qᵀ)ᵀ
    double off = 0;
    for (std::size_t i = 0; i < dim; ++i) {
      for (std::size_t j = 0; j < dim; ++j) {
        const double d = qtq[i * dim + j] - (i == j ? 1.0 : 0.0);
        off += d * d;
      }
    }
    if (std::sqrt(off) < kOrthogonalTolerance) return true;
    // next = Q·(3I − QᵀQ)/2; (3I − QᵀQ) is symmetric, so it is its own transpose for A·Bᵀ.
    for (std::size_t i = 0; i < dim; ++i) {
      for (std::size_t j = 0; j < dim; ++j) qtq[i * dim + j] = ((i == j ? 3.0f : 0.0f) - qtq[i * dim + j]) / 2;
    }
    sgemm_abt(dim, dim, dim, q.data(), dim, qtq.data(), dim, next.data(), dim);
    q.swap(next);
  }
  return false;
}

}  // namespace

std::vector<float> transposed(const float* matrix, std::size_t rows, std::size_t columns) {
  std::vector<float> t(rows * columns);
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < columns; ++j) t[j * rows + i] = matrix[i * columns + j];
  }
  return t;
}

void rotate_rows(const float* rows, std::size_t count, std::size_t dim, const float* rotation, float* out, unsigned threads) {
  const std::vector<float> rt = transposed(rotation, dim, dim);  // x·R = x·(Rᵀ)ᵀ
  product_abt(rows, count, dim, rt.data(), dim, out, threads);
}

void rotate_rows_back(const float* rows, std::size_t count, std::size_t dim, const float* rotation, float* out,
                      unsigned threads) {
  product_abt(rows, count, dim, rotation, dim, out, threads);  // x·Rᵀ
}

OpqModel train_opq(const float* rows, std::size_t count, std::size_t dim, const PqTraining& pq, const OpqTraining& opq) {
  if (pq.m == 0 || dim % pq.m != 0) fail("product quantization: {} sub-quantizers must divide the {} dimensions", pq.m, dim);
  if (count == 0) fail("product quantization needs at least one row");
  const unsigned threads = std::max(pq.threads, 1u);
  OpqModel model;
  model.rotation.assign(dim * dim, 0.0f);
  for (std::size_t i = 0; i < dim; ++i) model.rotation[i * dim + i] = 1.0f;
  std::vector<float> rotated(rows, rows + count * dim);  // x·I
  PqTraining first = pq;
  first.sample_rows = count;
  first.on_progress = nullptr;
  model.codebooks = train_pq(rotated.data(), count, dim, first);
  if (pq.on_progress) pq.on_progress(1);
  const std::vector<float> xt = transposed(rows, count, dim);  // Xᵀ, dim x count
  std::vector<std::uint8_t> codes(count * pq.m);
  std::vector<float> decoded(count * dim), m(dim * dim);
  for (unsigned round = 0; round < opq.rounds; ++round) {
    // R: the orthogonal matrix nearest to taking the rows onto their decodings.
    pq_encode(model.codebooks, rotated.data(), count, codes.data(), threads);
    pq_decode(model.codebooks, codes.data(), count, decoded.data());
    const std::vector<float> yt = transposed(decoded.data(), count, dim);
    product_abt(xt.data(), dim, count, yt.data(), dim, m.data(), threads);  // Xᵀ·Y = Xᵀ·(Yᵀ)ᵀ
    std::vector<float> rotation;
    if (!polar_factor(m, dim, rotation)) break;  // a degenerate sample: keep the rotation so far
    model.rotation = std::move(rotation);
    rotate_rows(rows, count, dim, model.rotation.data(), rotated.data(), threads);
    refine_pq(model.codebooks, rotated.data(), count, opq.pq_iterations, pq.seed + round + 1, threads);
    if (pq.on_progress) pq.on_progress(round + 2);
  }
  return model;
}

}  // namespace embed
