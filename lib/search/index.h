// The one interface every nearest-neighbour index implements, in the spirit of
// faiss's Index::search: a batch of queries in, for each the best k rows out, under the
// query's scoring rule, within a prefix of the rows (restrict) and never returning the
// query's own words (its exclusions). The exact CPU search (exact_search.h) and the
// CUDA searcher (kernels/search/) implement it; Searcher (searcher.h) chooses between
// them per batch. An approximate index is one more implementation.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "core/enum_names.h"
#include "search/top_k.h"

namespace embed {

// How an expression's words combine (Levy and Goldberg 2014):
//  add: cosine with the normalised sum of the words' unit vectors, each weighted +1 or
//       -1 (3CosAdd; a single word is a plain nearest-neighbour query), as gensim's most_similar;
//  mul: the product of (1 + cos) / 2 over positive words divided by the product over
//       negative words plus 1e-6 (3CosMul), as gensim's most_similar_cosmul.
enum class Combination { add, mul };
// embed-query's --method spellings, gensim's names for the two rules.
inline constexpr EnumName<Combination> kCombinationNames[] = {{Combination::add, "3cosadd"}, {Combination::mul, "3cosmul"}};

// The row of a term that is a word outside the vocabulary, whose vector the query carries
// (a fastText model's subword vector). Never a row, so nothing is excluded for it.
inline constexpr std::uint64_t kNoRow = ~std::uint64_t{0};

struct Term {
  std::uint64_t row;  // kNoRow: the next of SearchQuery::vectors
  float weight;       // +1 or -1
};

struct SearchQuery {
  std::vector<Term> terms;  // the query's words, which are never among its answers
  Combination combination = Combination::add;
  // The vectors (dim floats each, in term order) of the terms whose row is kNoRow.
  std::vector<float> vectors{};

  bool has_term(std::uint64_t row) const {
    for (const Term& t : terms) {
      if (t.row == row) return true;
    }
    return false;
  }
};

// 3CosMul of one row, as gensim's most_similar_cosmul: cosines mapped to [0, 1] so that the
// product is well behaved. `term_cosine(t)` is the row's cosine with term t. One rule for
// the exact search (from its SGEMM products) and the approximate index (from exact scores).
template <typename TermCosine>
float cos_mul_score(const SearchQuery& query, TermCosine&& term_cosine) {
  float positive = 1.0f, negative = 1.0f;
  for (std::size_t t = 0; t < query.terms.size(); ++t) {
    const float shifted = (1.0f + term_cosine(t)) / 2.0f;
    (query.terms[t].weight > 0 ? positive : negative) *= shifted;
  }
  return positive / (negative + 0.000001f);
}

struct SearchOptions {
  std::size_t k = 10;
  std::uint64_t restrict_rows = 0;  // search only rows [0, restrict_rows); 0: all
  unsigned threads = 1;
  std::function<void(std::size_t queries_done)> on_progress;  // called after each pass over the matrix
};

class Index {
 public:
  virtual ~Index() = default;
  // The best options.k rows for each query, best first (equal scores by lower row).
  virtual std::vector<std::vector<Hit>> search(std::span<const SearchQuery> queries, const SearchOptions& options) = 0;
};

}  // namespace embed
