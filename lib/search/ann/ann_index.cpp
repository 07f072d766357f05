#include "search/ann/ann_index.h"

#include <algorithm>

#include "core/error.h"
#include "core/parallel.h"
#include "search/ann/ann_storage.h"
#include "search/query_matrix.h"

namespace embed {

AnnIndex::AnnIndex(const VectorSpace& space, std::size_t ef) : space_(space), ef_(std::max<std::size_t>(ef, 1)) {
  if (space.emb() == nullptr) {
    fail("{}: --ann needs an .emb with an approximate index; make one with: glove-convert --index ann {} -o OUT.emb",
         space.name(), space.name());
  }
  graph_ = open_ann(*space.emb());
}

std::vector<std::vector<Hit>> AnnIndex::search(std::span<const SearchQuery> queries, const SearchOptions& options) {
  std::vector<std::vector<Hit>> results(queries.size());
  const std::uint64_t rows = space_.rows();
  const std::uint64_t searched = options.restrict_rows ? std::min(options.restrict_rows, rows) : rows;
  if (queries.empty() || searched == 0 || options.k == 0) return results;
  const unsigned threads = static_cast<unsigned>(std::clamp<std::size_t>(options.threads, 1, queries.size()));
  if (visited_.size() < threads) visited_.resize(threads);
  parallel_for_workers(queries.size(), threads, [&](std::size_t q, unsigned worker) {
    const SearchQuery& query = queries[q];
    // For 3CosAdd the matrix is the query's one row. For 3CosMul it holds each term's unit
    // row, which score the candidates; the 3CosAdd row that finds them is built from those
    // rows as build_query_matrix builds it, so no row is read twice.
    const QueryMatrix matrix = build_query_matrix(space_, std::span(&query, 1));
    const std::size_t dim = space_.dim();
    std::vector<float> vector;
    std::vector<RowScorer> term_scorers;
    if (query.combination == Combination::add) {
      vector = matrix.values;
    } else {
      vector.assign(dim, 0.0f);
      term_scorers.reserve(matrix.rows);
      for (std::size_t t = 0; t < matrix.rows; ++t) {
        const float* term = matrix.values.data() + t * dim;
        for (std::size_t x = 0; x < dim; ++x) vector[x] += query.terms[t].weight * term[x];
        term_scorers.emplace_back(space_, std::span<const float>(term, dim));
      }
      make_unit(vector);
    }
    RowScorer scorer(space_, vector);
    // Widen the beam while filtering leaves fewer than k (a small --restrict, many terms).
    std::size_t ef = std::max(ef_, options.k + query.terms.size());
    for (;;) {
      TopK best(options.k);
      const std::vector<Hit> found = hnsw_search(graph_, scorer, ef, visited_[worker]);
      std::size_t kept = 0;
      for (const Hit& hit : found) {
        if (hit.row >= searched || query.has_term(hit.row)) continue;
        if (query.combination == Combination::mul) {
          best.push({hit.row, cos_mul_score(query, [&](std::size_t t) { return term_scorers[t].score(hit.row); })});
        } else {
          best.push(hit);
        }
        ++kept;
      }
      if (kept >= options.k || found.size() < ef || ef >= rows) {
        results[q] = best.sorted();
        break;
      }
      ef = static_cast<std::size_t>(std::min<std::uint64_t>(rows, ef * 4));
    }
  });
  if (options.on_progress) options.on_progress(queries.size());
  return results;
}

}  // namespace embed
