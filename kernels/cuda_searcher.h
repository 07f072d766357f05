// The CUDA searcher behind lib's MatrixSearcher interface (lib/query/gpu_search.h), and
// the device probe the registry hands to embed-query.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "query/gpu_search.h"

namespace embed::cuda {

// The first usable device, its free memory and its shared memory per block; nullopt
// with the reason otherwise.
std::optional<GpuSearchDevice> find_search_device(std::string& why_not);

std::unique_ptr<MatrixSearcher> make_cuda_searcher(const GpuSearchRequest& request);

}  // namespace embed::cuda
