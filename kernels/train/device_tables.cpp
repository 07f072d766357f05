#include "kernels/train/device_tables.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "core/error.h"
#include "kernels/common/row_movers.h"
#include "train/gpu/gpu_plan.h"

namespace embed::cuda {
namespace {

// Rows of `stride` floats in kTransferBufferBytes (the plan's fixed_bytes counts that buffer).
std::size_t rows_per_transfer(std::size_t stride) {
  return std::max<std::size_t>(1, kTransferBufferBytes / (stride * sizeof(float)));
}

}  // namespace

template <typename Step>
void DeviceTables::in_chunks(std::size_t stride, std::size_t first, std::size_t end, Step step) const {
  const std::size_t chunk_rows = rows_per_transfer(stride);
  EMBED_ASSERT(transfer_.get() != nullptr && transfer_rows_ >= std::min(chunk_rows, end - first));
  const std::lock_guard hold(*transfer_lock_);
  for (std::size_t row = first; row < end; row += chunk_rows) {
    step(row, std::min(chunk_rows, end - row) * stride, transfer_.get<float>());
  }
}

DeviceTables::DeviceTables(const RowMatrix& first, const RowMatrix& second, std::size_t first_rows, std::size_t second_rows,
                           Storage storage, const char* first_name, const char* second_name,
                           std::span<const std::uint32_t> first_buckets)
    : storage_(storage),
      first_rows_(std::min(first_rows, first.rows())),
      second_rows_(std::min(second_rows, second.rows())),
      buckets_(first_buckets.begin(), first_buckets.end()),
      row_bytes_(first.stride() * storage_bytes(storage)) {
  EMBED_ASSERT(first.stride() == second.stride() && buckets_.size() <= first_rows_);
  EMBED_ASSERT(std::is_sorted(buckets_.begin(), buckets_.end()));
  EMBED_ASSERT(buckets_.empty() || (buckets_.front() >= first_rows_of(false) && buckets_.back() < first.rows()));
  first_ = DeviceBuffer(first_rows_ * row_bytes_, first_name);
  second_ = DeviceBuffer(second_rows_ * row_bytes_, second_name);
  if (!stored_alike(first)) reserve_transfer(first.stride());
  upload(false, first);
  upload(true, second);
}

void DeviceTables::reserve_transfer(std::size_t stride) {
  if (transfer_.get() != nullptr || rows() == 0) return;
  transfer_rows_ = std::min(rows_per_transfer(stride), rows());
  transfer_ = DeviceBuffer(transfer_rows_ * stride * sizeof(float), "the tables' f32 transfer buffer");
}

void DeviceTables::copy_to_host(RowMatrix& first, RowMatrix& second) const {
  download(false, first);
  download(true, second);
}

void DeviceTables::rows_to_host(bool second, RowMatrix& host, std::size_t first, std::size_t end) const {
  download(second, host, first, end);
}

void DeviceTables::rows_from_host(bool second, const RowMatrix& host, std::size_t first, std::size_t end) const {
  upload(second, host, first, end);
}

template <typename Run>
void DeviceTables::bucket_runs(std::size_t stride, std::size_t first, std::size_t end, Run run) const {
  const auto begin = std::lower_bound(buckets_.begin(), buckets_.end(), first);
  const auto stop = std::lower_bound(begin, buckets_.end(), end);
  const std::size_t chunk = rows_per_transfer(stride);
  for (auto k = static_cast<std::size_t>(begin - buckets_.begin()); k < static_cast<std::size_t>(stop - buckets_.begin());
       k += chunk) {
    run(k, std::min<std::size_t>(chunk, static_cast<std::size_t>(stop - buckets_.begin()) - k));
  }
}

void DeviceTables::add_to_rows(bool second, const float* added, std::size_t stride, std::size_t first, std::size_t end) const {
  if (rows() == 0) return;  // host placement with no hot rows: nothing held here
  EMBED_ASSERT(stride * storage_bytes(storage_) == row_bytes_);
  const std::size_t from = first;  // where `added` starts
  const std::size_t first_end = std::min(end, first_rows_of(second));
  if (first < first_end) add(second, added, stride, first, first_end - first);
  if (second) return;
  std::vector<float> staged;
  bucket_runs(stride, first, end, [&](std::size_t k, std::size_t count) {
    staged.resize(count * stride);
    for (std::size_t i = 0; i < count; ++i)
      std::memcpy(&staged[i * stride], added + (buckets_[k + i] - from) * stride, stride * sizeof(float));
    add(false, staged.data(), stride, first_rows_of(false) + k, count);
  });
}

void DeviceTables::upload(bool second, const RowMatrix& host, std::size_t first, std::size_t end) const {
  const std::size_t stride = host.stride(), host_row = host.row_bytes();
  const bool as_stored = stored_alike(host);
  const std::size_t first_end = std::min(end, first_rows_of(second));
  if (first < first_end) put(second, host.row_bytes_at(first), as_stored, stride, first, first_end - first);
  if (second) return;
  std::vector<std::byte> staged;
  bucket_runs(stride, first, end, [&](std::size_t k, std::size_t count) {
    staged.resize(count * host_row);
    for (std::size_t i = 0; i < count; ++i) std::memcpy(&staged[i * host_row], host.row_bytes_at(buckets_[k + i]), host_row);
    put(false, staged.data(), as_stored, stride, first_rows_of(false) + k, count);
  });
}

void DeviceTables::download(bool second, RowMatrix& host, std::size_t first, std::size_t end) const {
  const std::size_t stride = host.stride(), host_row = host.row_bytes();
  const bool as_stored = stored_alike(host);
  const std::size_t first_end = std::min(end, first_rows_of(second));
  if (first < first_end) get(second, host.row_bytes_at(first), as_stored, stride, first, first_end - first);
  if (second) return;
  std::vector<std::byte> staged;
  bucket_runs(stride, first, end, [&](std::size_t k, std::size_t count) {
    staged.resize(count * host_row);
    get(false, staged.data(), as_stored, stride, first_rows_of(false) + k, count);
    for (std::size_t i = 0; i < count; ++i) std::memcpy(host.row_bytes_at(buckets_[k + i]), &staged[i * host_row], host_row);
  });
}

bool DeviceTables::stored_alike(const RowMatrix& host) const {
  // f16 host tables (row_matrix.h) go with f16 rows on the device only.
  EMBED_ASSERT(!host.half() || storage_ == Storage::f16);
  return host.row_bytes() == row_bytes_;
}

void DeviceTables::put(bool second, const std::byte* rows, bool as_stored, std::size_t stride, std::size_t place,
                       std::size_t count) const {
  auto* table = (second ? second_ : first_).get<std::byte>() + place * row_bytes_;
  if (as_stored) {
    // From pageable memory, cudaMemcpy returns once `rows` has been read (staged for the
    // DMA), so the caller may reuse it.
    check(cudaMemcpy(table, rows, count * row_bytes_, cudaMemcpyHostToDevice), "copying a table to the GPU");
    return;
  }
  const auto* floats = reinterpret_cast<const float*>(rows);
  in_chunks(stride, 0, count, [&](std::size_t row, std::size_t elements, float* buffer) {
    check(cudaMemcpy(buffer, floats + row * stride, elements * sizeof(float), cudaMemcpyHostToDevice),
          "copying a table to the GPU");
    // The legacy default stream (nullptr) runs after the copy above.
    check(launch_to_storage(buffer, table + row * row_bytes_, elements, storage_, nullptr), "launching a table conversion");
    check(cudaStreamSynchronize(nullptr), "converting a table on the GPU");
  });
}

void DeviceTables::get(bool second, std::byte* rows, bool as_stored, std::size_t stride, std::size_t place,
                       std::size_t count) const {
  const auto* table = (second ? second_ : first_).get<std::byte>() + place * row_bytes_;
  if (as_stored) {
    check(cudaMemcpy(rows, table, count * row_bytes_, cudaMemcpyDeviceToHost), "copying a table from the GPU");
    return;
  }
  auto* floats = reinterpret_cast<float*>(rows);
  in_chunks(stride, 0, count, [&](std::size_t row, std::size_t elements, float* buffer) {
    check(launch_to_f32(table + row * row_bytes_, buffer, elements, storage_, nullptr), "launching a table conversion");
    check(cudaMemcpy(floats + row * stride, buffer, elements * sizeof(float), cudaMemcpyDeviceToHost),
          "copying a table from the GPU");
  });
}

void DeviceTables::add(bool second, const float* added, std::size_t stride, std::size_t place, std::size_t count) const {
  auto* table = (second ? second_ : first_).get<std::byte>() + place * row_bytes_;
  in_chunks(stride, 0, count, [&](std::size_t row, std::size_t elements, float* buffer) {
    check(cudaMemcpy(buffer, added + row * stride, elements * sizeof(float), cudaMemcpyHostToDevice),
          "copying the ranks' changes to the GPU");
    // The legacy default stream runs the kernel after the copy; the batches' streams do
    // not wait for it (they are non-blocking), so only this thread waits.
    check(launch_add_f32(buffer, table + row * row_bytes_, elements, storage_, nullptr), "launching the ranks' changes");
    check(cudaStreamSynchronize(nullptr), "adding the ranks' changes on the GPU");
  });
}

}  // namespace embed::cuda
