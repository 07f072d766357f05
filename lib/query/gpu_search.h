// What a build offers for searching on a GPU, as plain C++: lib/ never includes CUDA
// headers. The backend registry (lib/backend) fills this in when the CUDA backend was
// built; the Searcher (query/searcher.h) only sees these functions.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "query/gpu_search_plan.h"
#include "query/search.h"
#include "query/vector_space.h"

namespace embed {

struct GpuSearchDevice {
  int ordinal = 0;
  std::string description;          // "NVIDIA H100 80GB HBM3 (79.1 GiB, sm_90)"
  std::uint64_t free_memory = 0;    // bytes
  std::size_t shared_memory = 0;    // bytes of shared memory a thread block may opt in to
};

// A search bound to one VectorSpace, whose rows it holds on (or streams to) the device.
class MatrixSearcher {
 public:
  virtual ~MatrixSearcher() = default;
  // As search(): the best options.k rows per query, best first, with the same scores
  // up to the order of float sums. options.k ≤ the plan's k; options.restrict_rows (or
  // all rows) ≤ the rows the searcher holds; no query has more than kGpuMaxTerms words.
  virtual std::vector<std::vector<Hit>> search(std::span<const SearchQuery> queries, const SearchOptions& options) = 0;
};

struct GpuSearchRequest {
  const VectorSpace* space = nullptr;
  GpuSearchShape shape;  // shape.rows: the prefix of the space's rows to hold
  GpuSearchPlan plan;
  GpuSearchDevice device;
  unsigned threads = 1;  // CPU threads that copy rows into pinned buffers
};

struct GpuSearcher {
  // The first usable device, or nullopt with the reason (no device, no driver).
  std::function<std::optional<GpuSearchDevice>(std::string& why_not)> find_device;
  // Copies (or prepares to stream) the rows; throws embed::Error when the device cannot
  // hold what the plan promised.
  std::function<std::unique_ptr<MatrixSearcher>(const GpuSearchRequest&)> make;

  bool built() const { return static_cast<bool>(find_device); }
};

}  // namespace embed
