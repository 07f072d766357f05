// Moving table rows between host and device, shared by the training backends of every
// model: gathering the rows a batch touches from a mapped pinned host table, storing
// them back whole or staging them for the CPU to add their changes, and converting whole
// tables between f32 and the storage type. Plain structs in, so that this header needs nothing from lib/.
// The launchers queue their kernel on `stream` and return the launch's status.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "kernels/common/storage.h"

namespace embed::cuda {

// Mapped host tables: a row id with this bit set (rows < 2^31) is one whose change the
// CPU adds once the batch is done, because another batch in flight holds a copy of the
// row (rows_in_flight.h); the kernels below store the others whole.
constexpr std::uint32_t kRowAddsChange = 0x80000000u;

// A mapped pinned host table: its device address, rows of `stride` elements, f32 or
// (f16 host tables, row_matrix.h) f16 as the slot's copies are.
struct MappedTable {
  void* rows;
  bool half;
  std::uint32_t stride;
};

// out[k] = table's row rows[k] (without kRowAddsChange) in `storage`; rows flagged
// kRowAddsChange are copied to originals[k] too (pinned host memory, for the CPU's add).
// `max_blocks` (0: 128) caps the blocks, a warp per row at a time (bench-gpu-bandwidth
// --rows tries others).
cudaError_t launch_gather_mapped(const MappedTable& table, const std::uint32_t* rows, std::uint32_t count, void* out,
                                 void* originals, Storage storage, cudaStream_t stream, unsigned max_blocks = 0);
// The trained rows come home: row rows[k] of the table becomes updated[k] (its first
// `dim` elements, converted; the padding stays zero), or for rows flagged kRowAddsChange
// updated[k] is copied to flagged[k] (pinned host memory, in `storage`) for the CPU to
// add its change.
cudaError_t launch_write_back_mapped(const MappedTable& table, std::uint32_t dim, const std::uint32_t* rows, std::uint32_t count,
                                     const void* updated, void* flagged, Storage storage, cudaStream_t stream,
                                     unsigned max_blocks = 0);

// table[e] += added[e] for e < count (table in the storage type), each add atomic: a
// data-parallel round's changes to device-resident rows while kernels train them.
cudaError_t launch_add_f32(const float* added, void* table, std::size_t count, Storage storage, cudaStream_t stream);

// Element-wise conversions between f32 and the storage type (count elements).
cudaError_t launch_to_storage(const float* in, void* out, std::size_t count, Storage storage, cudaStream_t stream);
cudaError_t launch_to_f32(const void* in, float* out, std::size_t count, Storage storage, cudaStream_t stream);

}  // namespace embed::cuda
