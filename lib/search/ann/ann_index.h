// The approximate index of an .emb (ann_storage.h) as one more implementation of Index
// (search/index.h): the HNSW graph searched where it lies in the mapped file. Every score
// it returns is the exact cosine (or 3CosMul) of a stored row; only which rows are looked
// at is approximate.
#pragma once

#include <cstddef>
#include <vector>

#include "search/ann/hnsw_graph.h"
#include "search/index.h"
#include "search/vector_space.h"

namespace embed {

// The default beam width of a search (embed-query --ef).
inline constexpr std::size_t kDefaultEf = 64;

class AnnIndex final : public Index {
 public:
  // The index stored in `space`'s .emb (open_ann's errors; a space converted from
  // another format has none).
  AnnIndex(const VectorSpace& space, std::size_t ef);

  // Neighbours and 3CosAdd: the graph searched with the query's vector and a beam of
  // max(ef, k + its words). 3CosMul: candidates found with the 3CosAdd vector, then
  // ranked by 3CosMul. Rows past restrict_rows and the query's own words are filtered
  // out of what the beam found, and the beam widened while too few remain.
  std::vector<std::vector<Hit>> search(std::span<const SearchQuery> queries, const SearchOptions& options) override;

 private:
  const VectorSpace& space_;
  HnswGraph graph_;
  std::size_t ef_;
  std::vector<VisitedRows> visited_;  // per worker, kept from batch to batch (a stamp per row)
};

}  // namespace embed
