// An HNSW graph (Malkov and Yashunin, 2018) over the rows of a VectorSpace, searched in
// place: spans into a mapped .emb (docs/FORMAT.md, the "ann.hnsw.*" tensors) or into
// the arrays a build just made. The layout is faiss's HNSW (impl/HNSW.h), which builds
// it: row i is in layers 0 .. levels[i] - 1; its neighbour lists start at offsets[i] in
// `neighbors`, layer 0's 2M slots first, then M per layer above; kNoNeighbor pads a list
// (faiss's -1, stored as U32).
//
// Nothing here trusts the arrays: a neighbour, an offset or a level out of range is
// skipped at the moment it is read, so a damaged graph gives worse answers, never a read
// outside the file (the checksums, checked by --verify, tell whether it is damaged).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "search/top_k.h"
#include "search/vector_space.h"

namespace embed {

inline constexpr std::uint32_t kNoNeighbor = 0xFFFFFFFF;

struct HnswGraph {
  std::span<const std::uint8_t> levels;     // per row: the layers it is in (at least 1)
  std::span<const std::int64_t> offsets;    // per row, and one past the last
  std::span<const std::uint32_t> neighbors;  // every row's lists, kNoNeighbor padded
  std::uint32_t m = 16;                     // neighbours per list above layer 0 (2M in layer 0)
  std::int64_t entry_point = -1;            // a row in the top layer; -1: an empty graph
  unsigned max_level = 0;                   // the top layer

  std::uint64_t rows() const { return levels.size(); }
  // The neighbours of `row` in `layer` (padding included), or an empty span when the
  // graph's arrays do not hold that list.
  std::span<const std::uint32_t> neighbours(std::uint64_t row, unsigned layer) const;
  // What is wrong with the arrays' shapes and settings for `rows` rows (cheap: nothing is
  // scanned), or "" when they fit.
  std::string shape_problem(std::uint64_t rows) const;
};

// A row's similarity to the query: the cosine of the unit query with the row as stored.
// Reads the row from the VectorSpace (mapped f32, or f16/bf16 widened into scratch).
class RowScorer {
 public:
  RowScorer(const VectorSpace& space, std::span<const float> unit_query);
  float score(std::uint64_t row);
  // Asks the CPU to start loading `row` (a graph search's next rows are scattered over
  // the file: hnswlib prefetches them too).
  void prefetch(std::uint64_t row) const;

 private:
  const VectorSpace& space_;
  const std::byte* rows_;      // the stored rows, for prefetching
  std::size_t row_bytes_;
  std::span<const float> query_;
  std::vector<float> scratch_;
};

// Which rows one search has seen: a bit per row (1M rows: 125 KB, where a stamp per row
// would be 4 MB whose pages a visit lands on at random, a page fault each in a new
// process), and the words it set, so that the next search clears only those. One per
// thread, allocated on first use.
class VisitedRows {
 public:
  void start(std::uint64_t rows);
  // True the first time `row` is seen in this search.
  bool visit(std::uint64_t row) {
    std::uint64_t& word = bits_[row >> 6];
    const std::uint64_t bit = std::uint64_t{1} << (row & 63);
    if (word & bit) return false;
    if (word == 0) set_words_.push_back(row >> 6);
    word |= bit;
    return true;
  }

 private:
  std::vector<std::uint64_t> bits_;
  std::vector<std::uint64_t> set_words_;  // indexes of the non-zero words of bits_
};

// The `ef` best rows found by a search of the graph for `scorer`'s query, best first:
// a greedy descent through the upper layers from the entry point, then a beam of width
// ef in layer 0 (the paper's Algorithms 2 and 5). Scores are exact cosines.
std::vector<Hit> hnsw_search(const HnswGraph& graph, RowScorer& scorer, std::size_t ef, VisitedRows& visited);

}  // namespace embed
