#include "kernels/train/host_tables.h"

#include "core/error.h"
#include "train/gpu/row_remap.h"

namespace embed::cuda {

Storage storage_of(DType dtype) {
  switch (dtype) {
    case DType::f32: return Storage::f32;
    case DType::f16: return Storage::f16;
    case DType::bf16: return Storage::bf16;
    default: EMBED_ASSERT(!"not a vector dtype");
  }
  return Storage::f32;
}

HostTables::HostTables(RowMatrix& first, RowMatrix& second, DType storage, HostTransfer transfer, const char* first_name,
                       const char* second_name)
    : first_(&first), second_(&second), storage_(storage), transfer_(transfer), row_bytes_(first.stride() * dtype_size(storage)) {
  EMBED_ASSERT(first.stride() == second.stride() && first.dim() == second.dim());
  // f16 host tables (row_matrix.h) are gathered in f16.
  EMBED_ASSERT(first.half() == second.half() && (!first.half() || (storage == DType::f16 && transfer == HostTransfer::gather)));
  if (transfer_ == HostTransfer::gather) {
    first_locks_ = std::make_unique<RowLocks>();
    second_locks_ = std::make_unique<RowLocks>();
    // f16 tables store a row no other batch wrote meanwhile whole (row_versions.h): a copy
    // where adding converts three rows. An f32 table's write-back is bound by the row's
    // own misses, and gained nothing measurable so (bench-host-rows --write-back).
    if (first.half()) {
      first_versions_ = std::make_unique<RowVersions>(first.rows());
      second_versions_ = std::make_unique<RowVersions>(second.rows());
    }
    return;
  }
  pinned_first_ = HostRegistration(first.data(), first.span().size_bytes(), first_name);
  pinned_second_ = HostRegistration(second.data(), second.span().size_bytes(), second_name);
  mapped_first_ = static_cast<float*>(pinned_first_.device_pointer());
  mapped_second_ = static_cast<float*>(pinned_second_.device_pointer());
  write_back_stream_ = std::make_unique<Stream>();
}

void HostTables::gather(BatchSlot& slot, const BatchRows& rows, cudaStream_t stream) const {
  auto* copy = slot.rows.get<std::byte>();
  const std::size_t offset = second_offset(rows);
  const std::size_t bytes = offset + rows.second.size() * row_bytes_;
  if (transfer_ == HostTransfer::gather) {
    auto* staged = slot.staged.get<std::byte>();
    EMBED_ASSERT(slot.seen.size() >= rows.first.size() + rows.second.size());
    gather_rows(*first_, rows.first, storage_, staged, first_versions_.get(), slot.seen.data());
    gather_rows(*second_, rows.second, storage_, staged + offset, second_versions_.get(), slot.seen.data() + rows.first.size());
    check(cudaMemcpyAsync(copy, staged, bytes, cudaMemcpyHostToDevice, stream), "copying rows to the GPU");
    return;
  }
  const auto stride = static_cast<std::uint32_t>(first_->stride());
  const Storage storage = storage_of(storage_);
  check(launch_gather_mapped(mapped_first_, stride, rows.device_first, static_cast<std::uint32_t>(rows.first.size()), copy,
                             storage, stream),
        "launching the row gather");
  check(launch_gather_mapped(mapped_second_, stride, rows.device_second, static_cast<std::uint32_t>(rows.second.size()),
                             copy + offset, storage, stream),
        "launching the row gather");
  check(cudaMemcpyAsync(slot.originals.get(), copy, bytes, cudaMemcpyDeviceToDevice, stream), "keeping the gathered rows");
}

void HostTables::write_back(BatchSlot& slot, const BatchRows& rows, cudaStream_t stream) const {
  const auto* copy = slot.rows.get<std::byte>();
  const std::size_t offset = second_offset(rows);
  if (transfer_ == HostTransfer::gather) {
    check(cudaMemcpyAsync(slot.updated.get(), copy, offset + rows.second.size() * row_bytes_, cudaMemcpyDeviceToHost, stream),
          "copying trained rows back");
    return;
  }
  // The padding beyond dim() stays zero, as scatter_deltas leaves it. Each scatter lists
  // a row once, and scatters run one at a time on the write-back stream, so the plain
  // adds of the kernel never overlap on one element.
  const auto stride = static_cast<std::uint32_t>(first_->stride());
  const auto elements = static_cast<std::uint32_t>(first_->dim());
  const Storage storage = storage_of(storage_);
  const auto* originals = slot.originals.get<std::byte>();
  cudaStream_t serial = write_back_stream_->get();
  check(cudaEventRecord(slot.trained.get(), stream), "ordering the row write-back");
  check(cudaStreamWaitEvent(serial, slot.trained.get(), 0), "ordering the row write-back");
  check(launch_scatter_mapped(mapped_first_, stride, elements, rows.device_first, static_cast<std::uint32_t>(rows.first.size()),
                              copy, originals, storage, serial),
        "launching the row write-back");
  check(launch_scatter_mapped(mapped_second_, stride, elements, rows.device_second,
                              static_cast<std::uint32_t>(rows.second.size()), copy + offset, originals + offset, storage, serial),
        "launching the row write-back");
  check(cudaEventRecord(slot.written.get(), serial), "ordering the row write-back");
  check(cudaStreamWaitEvent(stream, slot.written.get(), 0), "ordering the row write-back");
}

void HostTables::add_deltas(const BatchSlot& slot, const BatchRows& rows) const {
  if (transfer_ != HostTransfer::gather) return;
  const std::size_t offset = second_offset(rows);
  const auto* updated = slot.updated.get<std::byte>();
  const auto* staged = slot.staged.get<std::byte>();
  scatter_deltas(*first_, rows.first, storage_, updated, staged, first_locks_.get(), first_versions_.get(), slot.seen.data());
  scatter_deltas(*second_, rows.second, storage_, updated + offset, staged + offset, second_locks_.get(), second_versions_.get(),
                 slot.seen.data() + rows.first.size());
}

}  // namespace embed::cuda
