// What a build offers for searching on a GPU, as plain C++: lib/ never includes CUDA
// headers. The backend registry (lib/backend) fills this in when the CUDA backend was
// built; the Searcher (searcher.h) only sees these functions. The index they make
// holds the rows on (or streams them to) the device and answers as search() does, up
// to the order of float sums, for k ≤ the plan's k, restrict_rows (or all rows) ≤ the
// rows it holds, and no query of more than kGpuMaxTerms words.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "device/gpu_device.h"
#include "search/gpu_search_plan.h"
#include "search/index.h"
#include "search/vector_space.h"

namespace embed {

struct GpuSearchRequest {
  const VectorSpace* space = nullptr;
  GpuSearchShape shape;  // shape.rows: the prefix of the space's rows to hold
  GpuSearchPlan plan;
  GpuDevice device;
  unsigned threads = 1;  // CPU threads that copy rows into pinned buffers
};

struct GpuSearcher {
  // Device `ordinal` (--gpu) made current with cuBLAS loaded, when it is usable;
  // nullopt with the reason otherwise (no such device, no driver, no cuBLAS).
  std::function<std::optional<GpuDevice>(int ordinal, std::string& why_not)> find_device;
  // Copies (or prepares to stream) the rows; throws embed::Error when the device cannot
  // hold what the plan promised.
  std::function<std::unique_ptr<Index>(const GpuSearchRequest&)> make;

  bool built() const { return static_cast<bool>(find_device); }
};

}  // namespace embed
