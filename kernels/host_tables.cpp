#include "host_tables.h"

#include "core/error.h"
#include "train/row_remap.h"

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

HostTables::HostTables(RowMatrix& first, RowMatrix& second, DType storage, HostTransfer transfer,
                       const char* first_name, const char* second_name)
    : first_(&first),
      second_(&second),
      storage_(storage),
      transfer_(transfer),
      row_bytes_(first.stride() * dtype_size(storage)),
      pinned_first_(first.data(), first.span().size_bytes(), first_name),
      pinned_second_(second.data(), second.span().size_bytes(), second_name),
      mapped_first_(static_cast<float*>(pinned_first_.device_pointer())),
      mapped_second_(static_cast<float*>(pinned_second_.device_pointer())) {
  EMBED_ASSERT(first.stride() == second.stride() && first.dim() == second.dim());
}

void HostTables::gather(BatchSlot& slot, const BatchRows& rows, cudaStream_t stream) const {
  auto* copy = slot.rows.get<std::byte>();
  const std::size_t offset = second_offset(rows);
  const std::size_t bytes = offset + rows.second.size() * row_bytes_;
  if (transfer_ == HostTransfer::gather) {
    auto* staged = slot.staged.get<std::byte>();
    gather_rows(*first_, rows.first, storage_, staged);
    gather_rows(*second_, rows.second, storage_, staged + offset);
    check(cudaMemcpyAsync(copy, staged, bytes, cudaMemcpyHostToDevice, stream), "copying rows to the GPU");
    return;
  }
  const auto stride = static_cast<std::uint32_t>(first_->stride());
  const Storage storage = storage_of(storage_);
  launch_gather_mapped(mapped_first_, stride, rows.device_first, static_cast<std::uint32_t>(rows.first.size()), copy,
                       storage, stream);
  launch_gather_mapped(mapped_second_, stride, rows.device_second, static_cast<std::uint32_t>(rows.second.size()),
                       copy + offset, storage, stream);
  check(cudaMemcpyAsync(slot.originals.get(), copy, bytes, cudaMemcpyDeviceToDevice, stream),
        "keeping the gathered rows");
}

void HostTables::write_back(BatchSlot& slot, const BatchRows& rows, cudaStream_t stream) const {
  const auto* copy = slot.rows.get<std::byte>();
  const std::size_t offset = second_offset(rows);
  if (transfer_ == HostTransfer::gather) {
    check(cudaMemcpyAsync(slot.updated.get(), copy, offset + rows.second.size() * row_bytes_, cudaMemcpyDeviceToHost,
                          stream),
          "copying trained rows back");
    return;
  }
  // The padding beyond dim() stays zero, as scatter_deltas leaves it.
  const auto stride = static_cast<std::uint32_t>(first_->stride());
  const auto elements = static_cast<std::uint32_t>(first_->dim());
  const Storage storage = storage_of(storage_);
  const auto* originals = slot.originals.get<std::byte>();
  launch_scatter_mapped(mapped_first_, stride, elements, rows.device_first, static_cast<std::uint32_t>(rows.first.size()),
                        copy, originals, storage, stream);
  launch_scatter_mapped(mapped_second_, stride, elements, rows.device_second,
                        static_cast<std::uint32_t>(rows.second.size()), copy + offset, originals + offset, storage,
                        stream);
  check(cudaGetLastError(), "launching the row write-back");
}

void HostTables::add_deltas(const BatchSlot& slot, const BatchRows& rows) const {
  if (transfer_ != HostTransfer::gather) return;
  const std::size_t offset = second_offset(rows);
  const auto* updated = slot.updated.get<std::byte>();
  const auto* staged = slot.staged.get<std::byte>();
  scatter_deltas(*first_, rows.first, storage_, updated, staged);
  scatter_deltas(*second_, rows.second, storage_, updated + offset, staged + offset);
}

}  // namespace embed::cuda
