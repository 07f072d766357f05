#include "quant/product_quantizer.h"

#include <algorithm>
#include <limits>
#include <mutex>
#include <numeric>
#include <random>

#include "core/error.h"
#include "core/parallel.h"

namespace embed {
namespace {

// A draw in [0, n) from the engine's raw output: std::mt19937_64's sequence is fixed by the
// standard, its distributions are not, so the bytes stay the same on every library.
std::size_t draw_below(std::mt19937_64& engine, std::size_t n) { return static_cast<std::size_t>(engine() % n); }

// The sample's row numbers, ascending: `wanted` distinct rows of `count` (all when fewer).
std::vector<std::size_t> sample_rows(std::size_t count, std::size_t wanted, std::uint64_t seed) {
  std::vector<std::size_t> rows(count);
  std::iota(rows.begin(), rows.end(), std::size_t{0});
  if (wanted >= count) return rows;
  std::mt19937_64 engine(seed);
  for (std::size_t i = 0; i < wanted; ++i) std::swap(rows[i], rows[i + draw_below(engine, count - i)]);
  rows.resize(wanted);
  std::sort(rows.begin(), rows.end());
  return rows;
}

float squared_distance(const float* a, const float* b, std::size_t n) {
  float sum = 0;
  for (std::size_t j = 0; j < n; ++j) {
    const float d = a[j] - b[j];
    sum += d * d;
  }
  return sum;
}

// The nearest of `centroids` (kPqCentroids of `sub` floats) to x, ties to the lowest index.
std::uint8_t nearest(const float* centroids, const float* x, std::size_t sub) {
  std::size_t best = 0;
  float best_distance = std::numeric_limits<float>::infinity();
  for (std::size_t k = 0; k < kPqCentroids; ++k) {
    const float d = squared_distance(centroids + k * sub, x, sub);
    if (d < best_distance) best_distance = d, best = k;
  }
  return static_cast<std::uint8_t>(best);
}

// Lloyd's iterations on `n` points of `sub` floats, from the kPqCentroids centroids in
// `centroids`; a centroid left empty restarts at a seeded point.
void lloyd(const float* points, std::size_t n, std::size_t sub, unsigned iterations, std::mt19937_64& engine,
           float* centroids) {
  std::vector<std::uint8_t> assigned(n);
  std::vector<double> sums(kPqCentroids * sub);
  std::vector<std::size_t> members(kPqCentroids);
  for (unsigned it = 0; it < iterations; ++it) {
    for (std::size_t i = 0; i < n; ++i) assigned[i] = nearest(centroids, points + i * sub, sub);
    std::fill(sums.begin(), sums.end(), 0.0);
    std::fill(members.begin(), members.end(), 0);
    for (std::size_t i = 0; i < n; ++i) {
      ++members[assigned[i]];
      for (std::size_t j = 0; j < sub; ++j) sums[assigned[i] * sub + j] += points[i * sub + j];
    }
    for (std::size_t k = 0; k < kPqCentroids; ++k) {
      if (members[k] == 0) {
        const float* from = points + draw_below(engine, n) * sub;
        std::copy(from, from + sub, centroids + k * sub);
        continue;
      }
      for (std::size_t j = 0; j < sub; ++j) centroids[k * sub + j] = static_cast<float>(sums[k * sub + j] / static_cast<double>(members[k]));
    }
  }
}

// Lloyd's k-means of `n` points of `sub` floats into kPqCentroids centroids (out), from
// seeded distinct points.
void kmeans(const float* points, std::size_t n, std::size_t sub, unsigned iterations, std::mt19937_64& engine,
            float* out) {
  const std::vector<std::size_t> starts = sample_rows(n, kPqCentroids, engine());
  for (std::size_t k = 0; k < kPqCentroids; ++k) {
    const float* from = points + starts[k % starts.size()] * sub;
    std::copy(from, from + sub, out + k * sub);
  }
  lloyd(points, n, sub, iterations, engine, out);
}

// Sub-space `space`'s sub-vectors of `count` rows, side by side.
std::vector<float> sub_vectors(const float* rows, std::size_t count, std::size_t dim, std::size_t space, std::size_t sub) {
  std::vector<float> points(count * sub);
  for (std::size_t i = 0; i < count; ++i) {
    const float* from = rows + i * dim + space * sub;
    std::copy(from, from + sub, points.data() + i * sub);
  }
  return points;
}

}  // namespace

PqCodebooks train_pq(const float* rows, std::size_t count, std::size_t dim, const PqTraining& training) {
  if (training.m == 0 || dim % training.m != 0) fail("product quantization: {} sub-quantizers must divide the {} dimensions", training.m, dim);
  if (count == 0) fail("product quantization needs at least one row");
  PqCodebooks books;
  books.dim = dim;
  books.m = training.m;
  const std::size_t sub = books.sub();
  books.centroids.resize(books.m * kPqCentroids * sub);
  const std::vector<std::size_t> sample = sample_rows(count, std::max<std::size_t>(training.sample_rows, 1), training.seed);
  std::mutex progress_mutex;
  std::size_t spaces_done = 0;
  // Each sub-space trains alone, from its own seeded stream: the same bytes for any threads.
  parallel_for(books.m, std::max(training.threads, 1u), [&](std::size_t space) {
    std::vector<float> points(sample.size() * sub);
    for (std::size_t i = 0; i < sample.size(); ++i) {
      const float* from = rows + sample[i] * dim + space * sub;
      std::copy(from, from + sub, points.data() + i * sub);
    }
    std::mt19937_64 engine(training.seed * 1'000'003 + space);
    kmeans(points.data(), sample.size(), sub, training.iterations, engine,
           books.centroids.data() + space * kPqCentroids * sub);
    if (training.on_progress) {
      const std::lock_guard lock(progress_mutex);
      training.on_progress(++spaces_done);
    }
  });
  return books;
}

void refine_pq(PqCodebooks& books, const float* rows, std::size_t count, unsigned iterations, std::uint64_t seed,
               unsigned threads) {
  EMBED_ASSERT(count > 0);
  const std::size_t sub = books.sub();
  parallel_for(books.m, std::max(threads, 1u), [&](std::size_t space) {
    const std::vector<float> points = sub_vectors(rows, count, books.dim, space, sub);
    std::mt19937_64 engine(seed * 1'000'003 + space);
    lloyd(points.data(), count, sub, iterations, engine, books.centroids.data() + space * kPqCentroids * sub);
  });
}

std::vector<std::size_t> pq_sample_rows(std::size_t count, std::size_t wanted, std::uint64_t seed) {
  return sample_rows(count, std::max<std::size_t>(wanted, 1), seed);
}

void pq_encode(const PqCodebooks& books, const float* rows, std::size_t count, std::uint8_t* codes, unsigned threads) {
  constexpr std::size_t kChunk = 4096;
  const std::size_t sub = books.sub();
  parallel_for((count + kChunk - 1) / kChunk, std::max(threads, 1u), [&](std::size_t chunk) {
    const std::size_t end = std::min(count, (chunk + 1) * kChunk);
    for (std::size_t r = chunk * kChunk; r < end; ++r) {
      for (std::size_t s = 0; s < books.m; ++s) {
        codes[r * books.m + s] = nearest(books.centroid(s, 0), rows + r * books.dim + s * sub, sub);
      }
    }
  });
}

void pq_decode(const PqCodebooks& books, const std::uint8_t* codes, std::size_t count, float* out) {
  const std::size_t sub = books.sub();
  for (std::size_t r = 0; r < count; ++r) {
    for (std::size_t s = 0; s < books.m; ++s) {
      const float* c = books.centroid(s, codes[r * books.m + s]);
      std::copy(c, c + sub, out + r * books.dim + s * sub);
    }
  }
}

void pq_inner_product_table(const PqCodebooks& books, const float* query, float* table) {
  const std::size_t sub = books.sub();
  for (std::size_t s = 0; s < books.m; ++s) {
    for (std::size_t k = 0; k < kPqCentroids; ++k) {
      const float* c = books.centroid(s, k);
      float dot = 0;
      for (std::size_t j = 0; j < sub; ++j) dot += query[s * sub + j] * c[j];
      table[s * kPqCentroids + k] = dot;
    }
  }
}

}  // namespace embed
