#include "search/query_matrix.h"

#include <algorithm>
#include <cmath>

namespace embed {

void make_unit(std::vector<float>& v) {
  double sum = 0;
  for (float x : v) sum += double{x} * x;
  if (sum == 0) return;
  const float scale = static_cast<float>(1.0 / std::sqrt(sum));
  for (float& x : v) x *= scale;
}

QueryMatrix build_query_matrix(const VectorSpace& space, std::span<const SearchQuery> queries) {
  const std::size_t dim = space.dim();
  QueryMatrix matrix;
  std::vector<float> sum(dim), term(dim);
  auto append = [&](const std::vector<float>& row) {
    matrix.values.insert(matrix.values.end(), row.begin(), row.end());
    ++matrix.rows;
  };
  for (const SearchQuery& query : queries) {
    matrix.first_row.push_back(matrix.rows);
    std::fill(sum.begin(), sum.end(), 0.0f);
    std::size_t carried = 0;  // the query's own vectors used so far
    for (const Term& t : query.terms) {
      if (t.row == kNoRow) {
        const float* vector = query.vectors.data() + dim * carried++;
        term.assign(vector, vector + dim);
      } else {
        space.row_f32(t.row, term.data());
      }
      make_unit(term);
      if (query.combination == Combination::mul) {
        append(term);
      } else {
        for (std::size_t x = 0; x < dim; ++x) sum[x] += t.weight * term[x];
      }
    }
    if (query.combination == Combination::add) {
      make_unit(sum);
      append(sum);
    }
  }
  return matrix;
}

std::size_t pass_end(const QueryMatrix& matrix, std::size_t first_query, std::size_t max_rows) {
  const std::size_t queries = matrix.first_row.size();
  std::size_t end = first_query + 1;
  std::size_t rows = matrix.rows_of(first_query);
  while (end < queries && rows + matrix.rows_of(end) <= max_rows) rows += matrix.rows_of(end++);
  return end;
}

}  // namespace embed
