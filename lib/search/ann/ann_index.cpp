#include "search/ann/ann_index.h"

#include <algorithm>

#include "core/error.h"
#include "core/parallel.h"
#include "search/ann/ann_storage.h"
#include "search/query_matrix.h"

namespace embed {
namespace {

// The query's 3CosAdd vector: for `mul` queries, what finds their candidates.
std::vector<float> add_vector(const VectorSpace& space, const SearchQuery& query) {
  SearchQuery as_add = query;
  as_add.combination = Combination::add;
  return build_query_matrix(space, std::span(&as_add, 1)).values;
}

bool is_term(const SearchQuery& query, std::uint64_t row) {
  return std::any_of(query.terms.begin(), query.terms.end(), [&](const Term& t) { return t.row == row; });
}

// 3CosMul from each term's exact cosine, as the exact search computes it (exact_search.cpp).
float cos_mul(std::span<RowScorer> term_scorers, const SearchQuery& query, std::uint64_t row) {
  float positive = 1.0f, negative = 1.0f;
  for (std::size_t t = 0; t < query.terms.size(); ++t) {
    const float shifted = (1.0f + term_scorers[t].score(row)) / 2.0f;
    (query.terms[t].weight > 0 ? positive : negative) *= shifted;
  }
  return positive / (negative + 0.000001f);
}

}  // namespace

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
    const std::vector<float> vector = add_vector(space_, query);
    RowScorer scorer(space_, vector);
    std::vector<RowScorer> term_scorers;
    std::vector<std::vector<float>> term_vectors;
    if (query.combination == Combination::mul) {
      const QueryMatrix terms = build_query_matrix(space_, std::span(&query, 1));
      term_vectors.resize(terms.rows);
      for (std::size_t t = 0; t < terms.rows; ++t) {
        term_vectors[t].assign(terms.values.begin() + static_cast<std::ptrdiff_t>(t * space_.dim()),
                               terms.values.begin() + static_cast<std::ptrdiff_t>((t + 1) * space_.dim()));
      }
      for (const auto& v : term_vectors) term_scorers.emplace_back(space_, v);
    }
    // Widen the beam while filtering leaves fewer than k (a small --restrict, many terms).
    std::size_t ef = std::max(ef_, options.k + query.terms.size());
    for (;;) {
      TopK best(options.k);
      const std::vector<Hit> found = hnsw_search(graph_, scorer, ef, visited_[worker]);
      std::size_t kept = 0;
      for (const Hit& hit : found) {
        if (hit.row >= searched || is_term(query, hit.row)) continue;
        best.push(query.combination == Combination::mul ? Hit{hit.row, cos_mul(term_scorers, query, hit.row)} : hit);
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
