#include "kernels/train/device_tables.h"

#include <algorithm>
#include <cstddef>

#include "core/error.h"
#include "kernels/common/row_movers.h"
#include "train/gpu/gpu_plan.h"

namespace embed::cuda {
namespace {

// Calls step(first row, elements, f32 device buffer) over rows [first, end) of `stride`
// floats in chunks of at most kTransferBufferBytes (the plan's fixed_bytes counts that buffer).
template <typename Step>
void in_chunks(std::size_t stride, std::size_t first, std::size_t end, Step step) {
  const std::size_t chunk_rows = std::max<std::size_t>(1, kTransferBufferBytes / (stride * sizeof(float)));
  DeviceBuffer buffer(std::min(chunk_rows, end - first) * stride * sizeof(float), "converting a table");
  for (std::size_t row = first; row < end; row += chunk_rows) {
    step(row, std::min(chunk_rows, end - row) * stride, buffer.get<float>());
  }
}

}  // namespace

DeviceTables::DeviceTables(const RowMatrix& first, const RowMatrix& second, std::size_t rows, Storage storage,
                           const char* first_name, const char* second_name)
    : storage_(storage),
      first_rows_(std::min(rows, first.rows())),
      second_rows_(std::min(rows, second.rows())),
      row_bytes_(first.stride() * storage_bytes(storage)) {
  EMBED_ASSERT(first.stride() == second.stride());
  first_ = DeviceBuffer(first_rows_ * row_bytes_, first_name);
  second_ = DeviceBuffer(second_rows_ * row_bytes_, second_name);
  upload(false, first);
  upload(true, second);
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

void DeviceTables::add_to_rows(bool second, const float* added, std::size_t stride, std::size_t first, std::size_t end) const {
  EMBED_ASSERT(stride * storage_bytes(storage_) == row_bytes_);
  const std::size_t from = first;  // where `added` starts
  end = std::min(end, rows_of(second));
  if (first >= end) return;
  auto* table = (second ? second_ : first_).get<std::byte>();
  in_chunks(stride, first, end, [&](std::size_t row, std::size_t count, float* buffer) {
    check(cudaMemcpy(buffer, added + (row - from) * stride, count * sizeof(float), cudaMemcpyHostToDevice),
          "copying the ranks' changes to the GPU");
    // The legacy default stream runs the kernel after the copy; the batches' streams do
    // not wait for it (they are non-blocking), so only this thread waits.
    check(launch_add_f32(buffer, table + row * row_bytes_, count, storage_, nullptr), "launching the ranks' changes");
    check(cudaStreamSynchronize(nullptr), "adding the ranks' changes on the GPU");
  });
}

void DeviceTables::upload(bool second, const RowMatrix& host, std::size_t first, std::size_t end) const {
  end = std::min(end, rows_of(second));
  if (first >= end) return;
  auto* rows = (second ? second_ : first_).get<std::byte>();
  if (storage_ == Storage::f32) {
    check(cudaMemcpy(rows + first * row_bytes_, host.row(first), (end - first) * row_bytes_, cudaMemcpyHostToDevice),
          "copying a table to the GPU");
    return;
  }
  in_chunks(host.stride(), first, end, [&](std::size_t row, std::size_t count, float* buffer) {
    check(cudaMemcpy(buffer, host.row(row), count * sizeof(float), cudaMemcpyHostToDevice), "copying a table to the GPU");
    // The legacy default stream (nullptr) runs after the copy above.
    check(launch_to_storage(buffer, rows + row * row_bytes_, count, storage_, nullptr), "launching a table conversion");
    check(cudaStreamSynchronize(nullptr), "converting a table on the GPU");
  });
}

void DeviceTables::download(bool second, RowMatrix& host, std::size_t first, std::size_t end) const {
  end = std::min(end, rows_of(second));
  if (first >= end) return;
  const auto* rows = (second ? second_ : first_).get<std::byte>();
  if (storage_ == Storage::f32) {
    check(cudaMemcpy(host.row(first), rows + first * row_bytes_, (end - first) * row_bytes_, cudaMemcpyDeviceToHost),
          "copying a table from the GPU");
    return;
  }
  in_chunks(host.stride(), first, end, [&](std::size_t row, std::size_t count, float* buffer) {
    check(launch_to_f32(rows + row * row_bytes_, buffer, count, storage_, nullptr), "launching a table conversion");
    check(cudaMemcpy(host.row(row), buffer, count * sizeof(float), cudaMemcpyDeviceToHost), "copying a table from the GPU");
  });
}

}  // namespace embed::cuda
