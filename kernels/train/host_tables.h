// Host placement, shared by the CUDA training backends: two tables stay in host memory
// and each batch trains a copy of just the rows it touches in its slot (the first
// table's rows, then the second's). The rows go to the device and their changes come
// back as deltas (new − old), which commute, so batches in flight at once lose nothing
// as long as no two adds to one row overlap:
// - gather: CPU threads copy the rows into pinned staging buffers, and the worker that
//   completes a batch adds its deltas holding each row's stripe lock (row_locks.h); f16
//   tables store the trained row whole where no other batch wrote it meanwhile
//   (row_versions.h: one row copied instead of three converted);
// - mapped: the tables (f32, or f16 host tables) are pinned and mapped into the device's
//   address space; kernels read the rows through it and store them back whole where no
//   other batch in flight holds the row (rows_in_flight.h); the other rows they stage, as
//   gathered and as trained, and the worker that completes the batch adds their changes
//   as gather does. The CPU copies nothing else, and the host's memory carries a row once
//   each way. The write-backs run one at a time on one stream, in the order the batches
//   claimed their rows (write_back_turns.h), so that every add follows the store it must
//   not be lost under.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
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
#include "train/gpu/rows_in_flight.h"
#include "train/gpu/write_back_turns.h"

namespace embed::cuda {

// The kernels' name for a vector dtype (f32, f16, bf16).
Storage storage_of(DType dtype);

// The rows a batch touches, as the slot holds them: on the host (its pinned ids, where
// mapped transfers flag rows before the upload: claim_rows) and on the device (its
// uploaded ids).
struct BatchRows {
  std::span<std::uint32_t> first, second;
  const std::uint32_t* device_first;
  const std::uint32_t* device_second;
};

class HostTables {
 public:
  HostTables() = default;
  // Both tables are f32 on the host (or both f16: row_matrix.h, the slot's copies f16
  // too); the slot copies are in `storage`. Mapped transfers pin and map the tables (the
  // device must be current); gather transfers leave them be.
  HostTables(RowMatrix& first, RowMatrix& second, DType storage, HostTransfer transfer, const char* first_name,
             const char* second_name);

  // Where the second table's rows start in the slot's copy.
  std::size_t second_offset(const BatchRows& rows) const { return rows.first.size() * row_bytes_; }
  // Mapped transfers, before the slot's ids go to the device: counts the batch's copy of
  // each row, and flags (kRowAddsChange) the rows whose change complete() must add rather
  // than the write-back store the row: another batch in flight holds them
  // (rows_in_flight.h). Returns the batch's turn: write_back is queued between its wait()
  // and its pass(), so that write-backs queue in the order their batches claimed rows.
  // Gather transfers: no claims, and a turn that waits for nothing.
  [[nodiscard]] WriteBackTurns::Turn claim_rows(const BatchRows& rows) const;
  // Brings the rows' claim counts into the cache before the claims' lock is taken.
  void prefetch_claims(const BatchRows& rows) const;
  // Queues the copy of the rows into slot.rows, before the batch's kernels.
  void gather(BatchSlot& slot, const BatchRows& rows, cudaStream_t stream) const;
  // Queues what brings the trained rows home, after the batch's kernels: their copy
  // back (gather) or their write-back into the mapped tables and staging (mapped), after
  // which `stream` goes on.
  void write_back(BatchSlot& slot, const BatchRows& rows, cudaStream_t stream) const;
  // Once the batch is done: adds its deltas to the host tables (mapped: those of the
  // flagged rows) and, mapped, releases its rows. Safe from several threads at once.
  void complete(const BatchSlot& slot, const BatchRows& rows) const;
  // Other writers (mpirun's rounds: rank_averaging.h) add to the host rows while batches
  // train, uncounted: from now on every write-back adds its changes.
  void add_every_change() {
    first_versions_.reset();
    second_versions_.reset();
    if (claims_) claims_->add_every_change = true;
  }
  // Bytes that gather and write_back move over the bus for `rows` (claimed): {to the
  // GPU, back}. Gather copies the rows in the slot's storage both ways; mapped kernels
  // read each host row once and store it once, or stage a flagged row twice.
  std::pair<std::uint64_t, std::uint64_t> bytes_moved(const BatchRows& rows) const;

 private:
  RowMatrix* first_ = nullptr;
  RowMatrix* second_ = nullptr;
  DType storage_ = DType::f32;
  HostTransfer transfer_ = HostTransfer::gather;
  std::size_t row_bytes_ = 0;  // one row of the slot's copy
  // mapped
  HostRegistration pinned_first_, pinned_second_;
  MappedTable mapped_first_{}, mapped_second_{};
  std::unique_ptr<Stream> write_back_stream_;
  // Which rows batches in flight hold, and the order their write-backs queue in.
  struct Claims {
    Claims(std::size_t first_rows, std::size_t second_rows) : first(first_rows), second(second_rows) {}
    RowsInFlight first, second;
    WriteBackTurns turns;
    // mpirun's rounds add to the host rows, or the copies are rounded (f32 host tables,
    // f16 or bf16 copies): no row is stored whole.
    std::atomic<bool> add_every_change{false};
  };
  std::unique_ptr<Claims> claims_;
  std::unique_ptr<RowLocks> first_locks_, second_locks_;
  // gather
  std::unique_ptr<RowVersions> first_versions_, second_versions_;  // f16 tables; none: add every change
};

}  // namespace embed::cuda
