// The query side of a search: each query as rows of a small row-major f32 matrix that
// multiplies the stored rows. Shared by the CPU search and the GPU searcher, so that
// both multiply exactly the same query rows.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "search/exact_search.h"
#include "search/vector_space.h"

namespace embed {

// For `add`, one row per query (the normalised weighted sum of the terms' unit
// vectors); for `mul`, one row per term (its unit vector).
struct QueryMatrix {
  std::vector<float> values;           // rows × dim
  std::vector<std::size_t> first_row;  // per query, its first row in `values`
  std::size_t rows = 0;

  // How many rows query q has (1 for add; its terms for mul).
  std::size_t rows_of(std::size_t q) const {
    return (q + 1 < first_row.size() ? first_row[q + 1] : rows) - first_row[q];
  }
};

QueryMatrix build_query_matrix(const VectorSpace& space, std::span<const SearchQuery> queries);

// The end of a pass that starts at `first_query`: as many whole queries as fit in
// `max_rows` rows, and always at least one.
std::size_t pass_end(const QueryMatrix& matrix, std::size_t first_query, std::size_t max_rows);

// Scales `v` to unit length in place; a zero vector stays zero (gensim's unitvec does the same).
void make_unit(std::vector<float>& v);

}  // namespace embed
