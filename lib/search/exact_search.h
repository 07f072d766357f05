// The exact search on the CPU: nearest neighbours by cosine similarity over a
// VectorSpace, for one query or thousands. The queries become the rows of a small
// matrix, and blocks of stored rows go through one SGEMM each, whose scores feed a
// top-k heap per query and thread (never a full sort, never the whole score matrix in
// memory).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "search/index.h"
#include "search/vector_space.h"

namespace embed {

// The best options.k rows for each query, best first.
std::vector<std::vector<Hit>> search(const VectorSpace& space, std::span<const SearchQuery> queries,
                                     const SearchOptions& options);

// The best options.k rows for each of `unit_vectors` (row-major, dim() floats each, unit
// length): points that need not be rows of the space, such as held-out queries.
std::vector<std::vector<Hit>> search_vectors(const VectorSpace& space, std::span<const float> unit_vectors,
                                             const SearchOptions& options);

// search() as an Index.
class ExactIndex final : public Index {
 public:
  explicit ExactIndex(const VectorSpace& space) : space_(space) {}
  std::vector<std::vector<Hit>> search(std::span<const SearchQuery> queries, const SearchOptions& options) override {
    return embed::search(space_, queries, options);
  }

 private:
  const VectorSpace& space_;
};

// Cosine similarity of two rows; 0 when either has zero length (never NaN).
float cosine(const VectorSpace& space, std::uint64_t a, std::uint64_t b);
// The cosine of two vectors of equal length (0 when either is zero).
float cosine(std::vector<float> a, std::vector<float> b);

}  // namespace embed
