// Building the HNSW graph of a set of vectors with hnswlib (Debian's libhnswlib-dev, header
// only), on unit-length copies of the rows (inner product = cosine), and taking the graph
// out of hnswlib as the arrays an .emb stores (hnsw_graph.h). hnswlib builds; it does not
// search here, because its index keeps a copy of the vectors next to its links, where ours
// is searched in place in the mapped file and reads the .emb's own rows.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "search/ann/hnsw_graph.h"

namespace embed {

struct HnswBuildOptions {
  std::uint32_t m = 16;                // neighbours per node (2M in layer 0): index size and recall
  std::uint32_t ef_construction = 80;  // beam width while linking: build time and graph quality
  std::uint64_t seed = 1;              // the layers rows are drawn into
  unsigned threads = 1;                // rows inserted at once; 1 is deterministic
  std::function<void(std::uint64_t rows_added)> on_progress;  // called from the calling thread
};

// The graph's arrays, owned.
struct HnswArrays {
  std::vector<std::uint8_t> levels;
  std::vector<std::int64_t> offsets;
  std::vector<std::uint32_t> neighbors;
  std::uint32_t m = 0;
  std::int64_t entry_point = -1;
  unsigned max_level = 0;

  HnswGraph view() const { return {levels, offsets, neighbors, m, entry_point, max_level}; }
};

// Builds the graph of `rows` row-major vectors of `dim` values (zero rows allowed).
HnswArrays build_hnsw(std::span<const float> rows, std::size_t dim, const HnswBuildOptions& options);

}  // namespace embed
