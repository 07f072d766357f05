// The CUDA searcher behind lib's Index interface (lib/search/index.h, gpu_index.h),
// and the device probe the registry hands to embed-query.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "search/gpu_index.h"

namespace embed::cuda {

// Device `ordinal` made current with cuBLAS loaded; nullopt with the reason otherwise.
std::optional<GpuDevice> find_search_device(int ordinal, std::string& why_not);

std::unique_ptr<Index> make_cuda_searcher(const GpuSearchRequest& request);

}  // namespace embed::cuda
