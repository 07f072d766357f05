#include "search/exact_search.h"

#include <algorithm>
#include <optional>

#include "core/parallel.h"
#include "math/sgemm.h"
#include "search/compressed_scan.h"
#include "search/query_matrix.h"

namespace embed {
namespace {

// Stored rows per SGEMM: their f32 copy (when converting from f16) stays in L2. At most
// 1024 rows, fewer when rows are wide, so that a worker's copy is at most 4 MB whatever
// width a file declares (a 800 KB file of one row of 200,000 dims took 820 MB a worker).
constexpr std::size_t kMaxBlockRows = 1024;
constexpr std::size_t kBlockBytes = 4 << 20;
std::size_t block_rows_for(std::size_t dim) {
  return std::clamp<std::size_t>(kBlockBytes / (std::max<std::size_t>(dim, 1) * sizeof(float)), 1, kMaxBlockRows);
}
// Bytes of query rows built at once (a mul query has a row per term: a chunk of queries
// may take up to three times this).
constexpr std::size_t kQueryMatrixBytes = 16 << 20;
// Query rows per pass over the matrix: bounds each thread's score block to 4 MB.
constexpr std::size_t kQueryRowsPerPass = 1024;

// The scores of one query against one block of rows, from that block's SGEMM output.
void combine_scores(const SearchQuery& query, const float* products, std::size_t products_stride,
                    const float* inverse_norms, std::size_t count, float* scores) {
  if (query.combination == Combination::add) {
    for (std::size_t j = 0; j < count; ++j) scores[j] = products[j] * inverse_norms[j];
    return;
  }
  for (std::size_t j = 0; j < count; ++j) {
    scores[j] = cos_mul_score(query, [&](std::size_t t) { return products[t * products_stride + j] * inverse_norms[j]; });
  }
}

// Pushes the block's scores that can enter `best`. Most blocks hold no candidate,
// so a vectorisable maximum over 16 scores at a time is checked first.
void select(const SearchQuery& query, const float* scores, std::size_t count, std::uint64_t first_row, TopK& best) {
  constexpr std::size_t kGroup = 16;
  float threshold = best.threshold();
  for (std::size_t g = 0; g < count; g += kGroup) {
    const std::size_t end = std::min(count, g + kGroup);
    float group_max = scores[g];
    for (std::size_t j = g + 1; j < end; ++j) group_max = std::max(group_max, scores[j]);
    if (!(group_max >= threshold)) continue;
    for (std::size_t j = g; j < end; ++j) {
      if (scores[j] >= threshold && !query.has_term(first_row + j)) {
        best.push({first_row + j, scores[j]});
        threshold = best.threshold();
      }
    }
  }
}

// Each worker's share: a top-k per query and its buffers.
struct Worker {
  std::vector<TopK> best;
  std::vector<float> converted, products, scores;
  std::vector<float> inverse_norms;
};

// The search of `queries` whose rows are `matrix`.
std::vector<std::vector<Hit>> search_matrix(const VectorSpace& space, std::span<const SearchQuery> queries,
                                            const QueryMatrix& matrix, const SearchOptions& options) {
  std::vector<std::vector<Hit>> results(queries.size());
  const std::uint64_t searched =
      options.restrict_rows ? std::min(options.restrict_rows, space.rows()) : space.rows();
  if (queries.empty() || searched == 0 || options.k == 0) return results;
  const std::size_t dim = space.dim();
  const std::span<const float> norms = space.norms();

  const EmbFile* compressed = space.compressed() && CompressedScan::takes(*space.emb()) ? space.emb() : nullptr;
  const std::size_t rows_per_pass =
      compressed ? CompressedScan::max_query_rows(*compressed, kQueryRowsPerPass) : kQueryRowsPerPass;

  // Passes over the matrix, each with as many whole queries as fit rows_per_pass rows.
  for (std::size_t first_query = 0; first_query < queries.size();) {
    const std::size_t end_query = pass_end(matrix, first_query, rows_per_pass);
    const std::size_t a_first = matrix.first_row[first_query];
    const std::size_t a_rows =
        (end_query < queries.size() ? matrix.first_row[end_query] : matrix.rows) - a_first;
    const float* a = matrix.values.data() + a_first * dim;

    const std::size_t block_rows = block_rows_for(dim);
    const std::size_t blocks = (searched + block_rows - 1) / block_rows;
    const unsigned threads = static_cast<unsigned>(std::clamp<std::size_t>(options.threads, 1, blocks));
    std::vector<Worker> workers(threads);
    std::optional<CompressedScan> scan;  // compressed rows' products, in place of SGEMM
    if (compressed) scan.emplace(*compressed, a, a_rows, threads);
    for (Worker& w : workers) {
      w.best.assign(end_query - first_query, TopK(options.k));
      if (space.dtype() != DType::f32 && !compressed) w.converted.resize(block_rows * dim);
      w.products.resize(a_rows * block_rows);
      w.scores.resize(block_rows);
      w.inverse_norms.resize(block_rows);
    }
    parallel_for_workers(blocks, threads, [&](std::size_t block, unsigned worker_id) {
      Worker& w = workers[worker_id];
      const std::uint64_t first_row = block * block_rows;
      const std::size_t count = static_cast<std::size_t>(std::min<std::uint64_t>(block_rows, searched - first_row));
      if (scan) {
        scan->products(first_row, count, w.products.data());
      } else {
        const float* b = space.rows_f32(first_row, count, w.converted.data());
        sgemm_abt(a_rows, count, dim, a, dim, b, dim, w.products.data(), count);
      }
      for (std::size_t j = 0; j < count; ++j) {
        const float norm = norms[first_row + j];
        w.inverse_norms[j] = norm > 0 ? 1.0f / norm : 0.0f;
      }
      for (std::size_t q = first_query; q < end_query; ++q) {
        const float* products = w.products.data() + (matrix.first_row[q] - a_first) * count;
        combine_scores(queries[q], products, count, w.inverse_norms.data(), count, w.scores.data());
        select(queries[q], w.scores.data(), count, first_row, w.best[q - first_query]);
      }
    });
    for (std::size_t q = first_query; q < end_query; ++q) {
      TopK& best = workers[0].best[q - first_query];
      for (std::size_t t = 1; t < workers.size(); ++t) best.merge(workers[t].best[q - first_query]);
      results[q] = best.sorted();
    }
    first_query = end_query;
    if (options.on_progress) options.on_progress(first_query);
  }
  return results;
}

}  // namespace

std::vector<std::vector<Hit>> search(const VectorSpace& space, std::span<const SearchQuery> queries,
                                     const SearchOptions& options) {
  // The query rows are built a chunk of queries at a time, at most kQueryMatrixBytes of
  // them (at least one query): an evaluation's 19,544 questions at a declared width of
  // 200,000 dims would otherwise take 15 GB for a file of one row.
  const std::size_t per_query = std::max<std::size_t>(space.dim(), 1) * sizeof(float);
  const std::size_t chunk = std::max<std::size_t>(1, kQueryMatrixBytes / per_query);
  if (queries.size() <= chunk) return search_matrix(space, queries, build_query_matrix(space, queries), options);
  std::vector<std::vector<Hit>> results;
  results.reserve(queries.size());
  SearchOptions part = options;
  for (std::size_t first = 0; first < queries.size(); first += chunk) {
    const std::span<const SearchQuery> some = queries.subspan(first, std::min(chunk, queries.size() - first));
    if (options.on_progress) part.on_progress = [&](std::size_t done) { options.on_progress(first + done); };
    for (auto& hits : search_matrix(space, some, build_query_matrix(space, some), part)) results.push_back(std::move(hits));
  }
  return results;
}

std::vector<std::vector<Hit>> search_vectors(const VectorSpace& space, std::span<const float> unit_vectors,
                                             const SearchOptions& options) {
  const std::size_t dim = space.dim();
  QueryMatrix matrix;
  matrix.values.assign(unit_vectors.begin(), unit_vectors.end());
  matrix.rows = dim == 0 ? 0 : unit_vectors.size() / dim;
  matrix.values.resize(matrix.rows * dim);
  for (std::size_t q = 0; q < matrix.rows; ++q) matrix.first_row.push_back(q);
  // Queries without words: 3CosAdd of their own row, and nothing excluded.
  const std::vector<SearchQuery> queries(matrix.rows);
  return search_matrix(space, queries, matrix, options);
}

float cosine(const VectorSpace& space, std::uint64_t a, std::uint64_t b) { return cosine(space.row_f32(a), space.row_f32(b)); }

float cosine(std::vector<float> va, std::vector<float> vb) {
  make_unit(va);
  make_unit(vb);
  float dot = 0;
  for (std::size_t x = 0; x < va.size(); ++x) dot += va[x] * vb[x];
  return dot;
}

}  // namespace embed
