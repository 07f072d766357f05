// Host placement, shared by the CUDA training backends: two tables stay in host memory
// and each batch trains a copy of just the rows it touches in its slot (the first
// table's rows, then the second's). The rows go to the device and their changes come
// back as deltas (new − old), which commute, so batches in flight at once lose nothing
// as long as no two adds to one row overlap:
// - gather: CPU threads copy the rows into pinned staging buffers, and the worker that
//   completes a batch adds its deltas holding each row's stripe lock (row_locks.h); f16
//   tables store the trained row whole where no other batch wrote it meanwhile
//   (row_versions.h: one row copied instead of three converted);
// - mapped: the tables are pinned and mapped into the device's address space; kernels
//   read the rows through it and add the deltas there, all write-back kernels queued on
//   one stream so that no two run at once (a scatter lists each row once).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <utility>

#include <cuda_runtime.h>

#include "format/dtype.h"
#include "kernels/common/cuda_memory.h"
#include "kernels/common/row_movers.h"
#include "kernels/train/batch_slot.h"
#include "train/engine/row_matrix.h"
#include "train/gpu/gpu_plan.h"
#include "train/gpu/row_locks.h"
#include "train/gpu/row_versions.h"

namespace embed::cuda {

// The kernels' name for a vector dtype (f32, f16, bf16).
Storage storage_of(DType dtype);

// The rows a batch touches, as the slot holds them: on the host (its pinned ids) and
// on the device (its uploaded ids).
struct BatchRows {
  std::span<const std::uint32_t> first, second;
  const std::uint32_t* device_first;
  const std::uint32_t* device_second;
};

class HostTables {
 public:
  HostTables() = default;
  // Both tables are f32 on the host (or both f16, gathered: row_matrix.h); the slot
  // copies are in `storage`. Mapped transfers pin and map the tables (the device must be
  // current); gather transfers leave them be.
  HostTables(RowMatrix& first, RowMatrix& second, DType storage, HostTransfer transfer, const char* first_name,
             const char* second_name);

  // Where the second table's rows start in the slot's copy.
  std::size_t second_offset(const BatchRows& rows) const { return rows.first.size() * row_bytes_; }
  // Queues the copy of the rows into slot.rows, before the batch's kernels.
  void gather(BatchSlot& slot, const BatchRows& rows, cudaStream_t stream) const;
  // Queues what brings the trained rows home, after the batch's kernels: their copy
  // back (gather) or the delta scatter into the mapped tables (mapped), after which
  // `stream` goes on.
  void write_back(BatchSlot& slot, const BatchRows& rows, cudaStream_t stream) const;
  // Once the batch is done: gather transfers add its deltas to the host tables. Safe
  // from several threads at once.
  void add_deltas(const BatchSlot& slot, const BatchRows& rows) const;
  // Other writers (mpirun's rounds: rank_averaging.h) add to the host rows while batches
  // train, uncounted: from now on every write-back adds its changes.
  void add_every_change() {
    first_versions_.reset();
    second_versions_.reset();
  }
  // Bytes that gather and write_back move over the bus for `rows`: {to the GPU, back}.
  // Gather copies the rows in the slot's storage both ways; mapped kernels read each f32
  // row twice (the gather, and the scatter's add) and write it once.
  std::pair<std::uint64_t, std::uint64_t> bytes_moved(const BatchRows& rows) const {
    const std::uint64_t n = rows.first.size() + rows.second.size();
    if (transfer_ == HostTransfer::gather) return {n * row_bytes_, n * row_bytes_};
    const std::uint64_t f32_row = first_->stride() * sizeof(float);
    return {2 * n * f32_row, n * f32_row};
  }

 private:
  RowMatrix* first_ = nullptr;
  RowMatrix* second_ = nullptr;
  DType storage_ = DType::f32;
  HostTransfer transfer_ = HostTransfer::gather;
  std::size_t row_bytes_ = 0;  // one row of the slot's copy
  // mapped
  HostRegistration pinned_first_, pinned_second_;
  float* mapped_first_ = nullptr;
  float* mapped_second_ = nullptr;
  std::unique_ptr<Stream> write_back_stream_;
  // gather
  std::unique_ptr<RowLocks> first_locks_, second_locks_;
  std::unique_ptr<RowVersions> first_versions_, second_versions_;  // f16 tables; none: add every change
};

}  // namespace embed::cuda
