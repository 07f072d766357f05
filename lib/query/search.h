// Nearest-neighbour search by cosine similarity over a VectorSpace, for one query or
// thousands: the queries become the rows of a small matrix, and blocks of stored rows
// go through one SGEMM each, whose scores feed a top-k heap per query and thread
// (never a full sort, never the whole score matrix in memory).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "query/top_k.h"
#include "query/vector_space.h"

namespace embed {

// How an expression's words combine (Levy and Goldberg 2014):
//  add: cosine with the normalised sum of the words' unit vectors, each weighted +1 or
//       -1 (3CosAdd; a single word is a plain nearest-neighbour query), as gensim's most_similar;
//  mul: the product of (1 + cos) / 2 over positive words divided by the product over
//       negative words plus 1e-6 (3CosMul), as gensim's most_similar_cosmul.
enum class Combination { add, mul };

struct Term {
  std::uint64_t row;
  float weight;  // +1 or -1
};

struct SearchQuery {
  std::vector<Term> terms;  // the query's words, which are never among its answers
  Combination combination = Combination::add;
};

struct SearchOptions {
  std::size_t k = 10;
  std::uint64_t restrict_rows = 0;  // search only rows [0, restrict_rows); 0: all
  unsigned threads = 1;
  std::function<void(std::size_t queries_done)> on_progress;  // called after each pass over the matrix
};

// The best options.k rows for each query, best first.
std::vector<std::vector<Hit>> search(const VectorSpace& space, std::span<const SearchQuery> queries,
                                     const SearchOptions& options);

// Cosine similarity of two rows; 0 when either has zero length (never NaN).
float cosine(const VectorSpace& space, std::uint64_t a, std::uint64_t b);

}  // namespace embed
