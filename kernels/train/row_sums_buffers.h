// The device memory of one table's summed-step sums (summed_kernels.h's KernelRowSums),
// kept by a backend: a sum of `stride` floats, a listed flag and a list slot per row id
// its kernels see, and the list's count, all zero between steps. One set serves every
// batch slot, since the batches' kernels run one at a time on one stream, each batch's
// launches queued together (BatchPipeline::queue holds a lock while it queues them).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "kernels/common/cuda_memory.h"
#include "kernels/train/summed_kernels.h"

namespace embed::cuda {

struct RowSumsBuffers {
  DeviceBuffer sums, listed, rows, count;
  KernelRowSums kernel{};

  // Allocates and clears them for `row_ids` ids; `what` names them in errors.
  void allocate(std::size_t row_ids, std::size_t stride, const char* what) {
    sums = DeviceBuffer(row_ids * stride * sizeof(float), what);
    listed = DeviceBuffer(row_ids * sizeof(std::uint32_t), what);
    rows = DeviceBuffer(row_ids * sizeof(std::uint32_t), what);
    count = DeviceBuffer(sizeof(std::uint32_t), what);
    check(cudaMemset(sums.get(), 0, row_ids * stride * sizeof(float)), what);
    check(cudaMemset(listed.get(), 0, row_ids * sizeof(std::uint32_t)), what);
    check(cudaMemset(count.get(), 0, sizeof(std::uint32_t)), what);
    check(cudaDeviceSynchronize(), what);
    kernel = {sums.get<float>(), listed.get<std::uint32_t>(), rows.get<std::uint32_t>(), count.get<std::uint32_t>()};
  }
};

}  // namespace embed::cuda
