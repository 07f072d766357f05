// Product quantization (issue 69; ../shared/design/compressed-vectors.md, points 1, 3 and 5):
// a row of `dim` floats is cut into m sub-vectors of dim / m, and each is stored as the byte
// that names the nearest of its sub-space's 256 centroids. The centroids are trained by
// k-means (Lloyd) on a sample of rows, each sub-space on its own, so that training is the
// same bytes for any number of threads: a seeded sample, centroids started from seeded
// sample rows, a fixed number of iterations, as faiss and fastText's quantizer train.
//
// Search scores a row by asymmetric distance (ADC): the query, uncompressed, against each
// sub-space's centroids gives a table of m x 256 inner products once per query; a row's
// score is the sum of its m entries, equal to the query's dot with the row's decoding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace embed {

inline constexpr std::size_t kPqCentroids = 256;  // 8-bit codes

// What training is allowed: the sample bounds its time and memory (65,536 rows and 25
// iterations, the design's bounds: faiss's and fastText's order of magnitude).
struct PqTraining {
  std::size_t m = 0;                 // sub-quantizers; must divide dim
  std::size_t sample_rows = 65'536;  // rows k-means sees, drawn with the seed (all when fewer)
  unsigned iterations = 25;
  std::uint64_t seed = 1;
  unsigned threads = 1;
  // Called with the number of sub-spaces trained so far, one call at a time, from any thread.
  std::function<void(std::size_t)> on_progress;
};

struct PqCodebooks {
  std::size_t dim = 0, m = 0;
  std::size_t sub() const { return dim / m; }
  // [m][kPqCentroids][sub()], row-major: faiss's and finalfusion's order.
  std::vector<float> centroids;
  const float* centroid(std::size_t space, std::size_t k) const { return centroids.data() + (space * kPqCentroids + k) * sub(); }
};

// Trains codebooks on `count` rows of `dim` floats. Throws embed::Error when m does not
// divide dim or is 0, or when there are no rows. With fewer distinct sub-vectors than 256
// in a sub-space, some centroids repeat (codes still name the nearest).
PqCodebooks train_pq(const float* rows, std::size_t count, std::size_t dim, const PqTraining& training);

// More Lloyd iterations of trained codebooks on `count` rows (all of them), each sub-space
// from its own stream seeded with `seed` (for restarting empty centroids): the same bytes
// for any threads. OPQ's inner step (opq.h).
void refine_pq(PqCodebooks& codebooks, const float* rows, std::size_t count, unsigned iterations, std::uint64_t seed,
               unsigned threads);

// The rows train_pq() trains on: `wanted` distinct row numbers of `count` (all when fewer),
// ascending, drawn with `seed`. For a caller that gathers (and transforms) the sample itself.
std::vector<std::size_t> pq_sample_rows(std::size_t count, std::size_t wanted, std::uint64_t seed);

// codes[r * m + s]: the nearest centroid (squared L2, ties to the lowest index) of row r's
// sub-vector s.
void pq_encode(const PqCodebooks& codebooks, const float* rows, std::size_t count, std::uint8_t* codes, unsigned threads);

// out[r * dim + ...]: the rows' decodings, their centroids side by side.
void pq_decode(const PqCodebooks& codebooks, const std::uint8_t* codes, std::size_t count, float* out);

// table[s * 256 + k] = <query's sub-vector s, centroid k of s>.
void pq_inner_product_table(const PqCodebooks& codebooks, const float* query, float* table);

// A row's ADC score: the sum over its m codes of their table entries.
inline float pq_adc_score(const float* table, const std::uint8_t* code, std::size_t m) {
  float score = 0;
  for (std::size_t s = 0; s < m; ++s) score += table[s * kPqCentroids + code[s]];
  return score;
}

}  // namespace embed
