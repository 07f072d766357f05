// Moving table rows between host and device, shared by the training backends of every
// model: gathering the rows a batch touches from a mapped pinned host table, adding
// their changes back as deltas, and converting whole tables between f32 and the
// storage type. Plain structs in, so that this header needs nothing from lib/.
// The launchers queue their kernel on `stream` and return the launch's status.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "kernels/common/storage.h"

namespace embed::cuda {

// out[k] = host_table[rows[k]] converted to `storage`; host_table is the device
// address of mapped pinned f32 memory, rows of `stride` floats.
cudaError_t launch_gather_mapped(const float* host_table, std::uint32_t stride, const std::uint32_t* rows,
                          std::uint32_t count, void* out, Storage storage, cudaStream_t stream);
// host_table[rows[k]][e] += updated[k][e] - original[k][e] for e < dim.
cudaError_t launch_scatter_mapped(float* host_table, std::uint32_t stride, std::uint32_t dim, const std::uint32_t* rows,
                           std::uint32_t count, const void* updated, const void* original, Storage storage,
                           cudaStream_t stream);

// table[e] += added[e] for e < count (table in the storage type): a data-parallel round's
// changes to device-resident rows while kernels train them.
cudaError_t launch_add_f32(const float* added, void* table, std::size_t count, Storage storage, cudaStream_t stream);

// Element-wise conversions between f32 and the storage type (count elements).
cudaError_t launch_to_storage(const float* in, void* out, std::size_t count, Storage storage, cudaStream_t stream);
cudaError_t launch_to_f32(const void* in, float* out, std::size_t count, Storage storage, cudaStream_t stream);

}  // namespace embed::cuda
