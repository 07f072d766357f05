#include "kernels/train/host_tables.h"

#include <vector>

#include "core/error.h"
#include "train/gpu/row_remap.h"

namespace embed::cuda {

Storage storage_of(DType dtype) {
  switch (dtype) {
    case DType::f32: return Storage::f32;
    case DType::f16: return Storage::f16;
    case DType::bf16: return Storage::bf16;
    default: EMBED_ASSERT(false && "not a vector dtype");
  }
  return Storage::f32;
}

HostTables::HostTables(RowMatrix& first, RowMatrix& second, DType storage, HostTransfer transfer, const char* first_name,
                       const char* second_name)
    : first_(&first), second_(&second), storage_(storage), transfer_(transfer), row_bytes_(first.stride() * dtype_size(storage)) {
  EMBED_ASSERT(first.stride() == second.stride() && first.dim() == second.dim());
  // f16 host tables (row_matrix.h) travel in f16.
  EMBED_ASSERT(first.half() == second.half() && (!first.half() || storage == DType::f16));
  // The CPU adds changes to rows that several batches may hold at once.
  first_locks_ = std::make_unique<RowLocks>();
  second_locks_ = std::make_unique<RowLocks>();
  if (transfer_ == HostTransfer::gather) {
    // f16 tables store a row no other batch wrote meanwhile whole (row_versions.h): a copy
    // where adding converts three rows. An f32 table's write-back is bound by the row's
    // own misses, and gained nothing measurable so (bench-host-rows --write-back).
    if (first.half()) {
      first_versions_ = std::make_unique<RowVersions>(first.rows());
      second_versions_ = std::make_unique<RowVersions>(second.rows());
    }
    return;
  }
  // Flagged row ids (kRowAddsChange) need the top bit free.
  EMBED_ASSERT(first.rows() <= kRowAddsChange && second.rows() <= kRowAddsChange);
  pinned_first_ = HostRegistration(first.row_bytes_at(0), first.bytes().size(), first_name);
  pinned_second_ = HostRegistration(second.row_bytes_at(0), second.bytes().size(), second_name);
  const auto stride = static_cast<std::uint32_t>(first.stride());
  mapped_first_ = {pinned_first_.device_pointer(), first.half(), stride};
  mapped_second_ = {pinned_second_.device_pointer(), second.half(), stride};
  write_back_stream_ = std::make_unique<Stream>();
  claims_ = std::make_unique<Claims>(first.rows(), second.rows());
  // f32 host tables trained as f16 or bf16 copies keep their f32 bits: only the change is
  // added, by the CPU, as gather transfers do. Copies in the host tables' own type are the
  // row.
  if (storage != DType::f32 && !first.half()) claims_->add_every_change = true;
}

WriteBackTurns::Turn HostTables::claim_rows(const BatchRows& rows) const {
  if (!claims_) return {};
  const bool add_all = claims_->add_every_change.load(std::memory_order_relaxed);
  auto claim = [add_all](const RowsInFlight& holders, std::span<std::uint32_t> ids) {
    for (std::uint32_t& id : ids) {
      EMBED_ASSERT((id & kRowAddsChange) == 0);
      if (!holders.claim(id) || add_all) id |= kRowAddsChange;
    }
  };
  return claims_->turns.claim([&] {
    claim(claims_->first, rows.first);
    claim(claims_->second, rows.second);
  });
}

void HostTables::prefetch_claims(const BatchRows& rows) const {
  if (!claims_) return;
  for (const std::uint32_t id : rows.first) claims_->first.prefetch(id);
  for (const std::uint32_t id : rows.second) claims_->second.prefetch(id);
}

std::pair<std::uint64_t, std::uint64_t> HostTables::bytes_moved(const BatchRows& rows) const {
  const std::uint64_t n = rows.first.size() + rows.second.size();
  if (transfer_ == HostTransfer::gather) return {n * row_bytes_, n * row_bytes_};
  std::uint64_t adds = 0;
  for (const auto ids : {rows.first, rows.second}) {
    for (const std::uint32_t id : ids) adds += (id & kRowAddsChange) != 0;
  }
  // Every row read from the table; stored back whole, or for the CPU's add staged twice
  // (as gathered and as trained) in the slot's type.
  const std::uint64_t host_row = first_->row_bytes();
  return {n * host_row, (n - adds) * host_row + 2 * adds * row_bytes_};
}

void HostTables::gather(BatchSlot& slot, const BatchRows& rows, cudaStream_t stream) const {
  auto* copy = slot.rows.get<std::byte>();
  const std::size_t offset = second_offset(rows);
  if (transfer_ == HostTransfer::gather) {
    const std::size_t bytes = offset + rows.second.size() * row_bytes_;
    auto* staged = slot.staged.get<std::byte>();
    EMBED_ASSERT(slot.seen.size() >= rows.first.size() + rows.second.size());
    gather_rows(*first_, rows.first, storage_, staged, first_versions_.get(), slot.seen.data());
    gather_rows(*second_, rows.second, storage_, staged + offset, second_versions_.get(), slot.seen.data() + rows.first.size());
    check(cudaMemcpyAsync(copy, staged, bytes, cudaMemcpyHostToDevice, stream), "copying rows to the GPU");
    return;
  }
  // The rows whose change the CPU adds are kept as gathered too, in host staging.
  auto* originals = slot.staged.get<std::byte>();
  const Storage storage = storage_of(storage_);
  check(launch_gather_mapped(mapped_first_, rows.device_first, static_cast<std::uint32_t>(rows.first.size()), copy, originals,
                             storage, stream),
        "launching the row gather");
  check(launch_gather_mapped(mapped_second_, rows.device_second, static_cast<std::uint32_t>(rows.second.size()), copy + offset,
                             originals + offset, storage, stream),
        "launching the row gather");
}

void HostTables::write_back(BatchSlot& slot, const BatchRows& rows, cudaStream_t stream) const {
  const auto* copy = slot.rows.get<std::byte>();
  const std::size_t offset = second_offset(rows);
  if (transfer_ == HostTransfer::gather) {
    check(cudaMemcpyAsync(slot.updated.get(), copy, offset + rows.second.size() * row_bytes_, cudaMemcpyDeviceToHost, stream),
          "copying trained rows back");
    return;
  }
  // The padding beyond dim() stays zero, as scatter_deltas leaves it. The write-backs run
  // one at a time on the write-back stream in the order their batches claimed rows (the
  // caller queues this in the batch's turn: claim_rows), so a row stored whole is stored
  // before the batch that claimed it next is done, and that batch's change is added
  // (complete) after the store, not under it.
  const auto elements = static_cast<std::uint32_t>(first_->dim());
  const Storage storage = storage_of(storage_);
  auto* flagged = slot.updated.get<std::byte>();
  cudaStream_t serial = write_back_stream_->get();
  check(cudaEventRecord(slot.trained.get(), stream), "ordering the row write-back");
  check(cudaStreamWaitEvent(serial, slot.trained.get(), 0), "ordering the row write-back");
  check(launch_write_back_mapped(mapped_first_, elements, rows.device_first, static_cast<std::uint32_t>(rows.first.size()), copy,
                                 flagged, storage, serial),
        "launching the row write-back");
  check(launch_write_back_mapped(mapped_second_, elements, rows.device_second, static_cast<std::uint32_t>(rows.second.size()),
                                 copy + offset, flagged + offset, storage, serial),
        "launching the row write-back");
  check(cudaEventRecord(slot.written.get(), serial), "ordering the row write-back");
  check(cudaStreamWaitEvent(stream, slot.written.get(), 0), "ordering the row write-back");
}

void HostTables::complete(const BatchSlot& slot, const BatchRows& rows) const {
  const std::size_t offset = second_offset(rows);
  const auto* updated = slot.updated.get<std::byte>();
  const auto* staged = slot.staged.get<std::byte>();
  if (claims_) {
    // The flagged rows' changes (as trained − as gathered, staged by the kernels), each
    // under its stripe lock, then the batch lets go of its rows.
    auto add_flagged = [&](RowMatrix& table, std::span<const std::uint32_t> ids, std::size_t at, RowLocks& locks,
                           const RowsInFlight& holders) {
      // The worker's lists, kept from batch to batch (thousands of batches a second).
      thread_local std::vector<std::uint32_t> rows_of_ids, flagged;
      rows_of_ids.resize(ids.size());
      flagged.clear();
      for (std::size_t k = 0; k < ids.size(); ++k) {
        rows_of_ids[k] = ids[k] & ~kRowAddsChange;
        if (ids[k] & kRowAddsChange) flagged.push_back(static_cast<std::uint32_t>(k));
      }
      add_deltas_at(table, rows_of_ids, flagged, storage_, updated + at, staged + at, locks);
      for (const std::uint32_t row : rows_of_ids) holders.release(row);
    };
    add_flagged(*first_, rows.first, 0, *first_locks_, claims_->first);
    add_flagged(*second_, rows.second, offset, *second_locks_, claims_->second);
    return;
  }
  scatter_deltas(*first_, rows.first, storage_, updated, staged, first_locks_.get(), first_versions_.get(), slot.seen.data());
  scatter_deltas(*second_, rows.second, storage_, updated + offset, staged + offset, second_locks_.get(), second_versions_.get(),
                 slot.seen.data() + rows.first.size());
}

}  // namespace embed::cuda
