#include "kernels/common/device_tables.h"

#include <algorithm>
#include <cstddef>

#include "core/error.h"
#include "kernels/common/row_movers.h"
#include "train/gpu/gpu_plan.h"

namespace embed::cuda {
namespace {

// Calls step(first row, elements, f32 device buffer) over `host`'s first `rows` rows in
// chunks of at most kTransferBufferBytes (the plan's fixed_bytes counts that buffer).
template <typename Step>
void in_chunks(const RowMatrix& host, std::size_t rows, Step step) {
  const std::size_t stride = host.stride();
  const std::size_t chunk_rows = std::max<std::size_t>(1, kTransferBufferBytes / (stride * sizeof(float)));
  DeviceBuffer buffer(std::min(chunk_rows, rows) * stride * sizeof(float), "converting a table");
  for (std::size_t first = 0; first < rows; first += chunk_rows) {
    step(first, std::min(chunk_rows, rows - first) * stride, buffer.get<float>());
  }
}

}  // namespace

DeviceTables::DeviceTables(const RowMatrix& first, const RowMatrix& second, std::size_t rows, Storage storage,
                           const char* first_name, const char* second_name)
    : storage_(storage), rows_(rows), row_bytes_(first.stride() * storage_bytes(storage)) {
  EMBED_ASSERT(rows <= first.rows() && rows <= second.rows());
  first_ = DeviceBuffer(rows * row_bytes_, first_name);
  second_ = DeviceBuffer(rows * row_bytes_, second_name);
  upload(first, first_);
  upload(second, second_);
}

void DeviceTables::copy_to_host(RowMatrix& first, RowMatrix& second) const {
  download(first_, first);
  download(second_, second);
}

void DeviceTables::upload(const RowMatrix& host, const DeviceBuffer& device) const {
  if (storage_ == Storage::f32) {
    check(cudaMemcpy(device.get(), host.data(), rows_ * row_bytes_, cudaMemcpyHostToDevice),
          "copying a table to the GPU");
    return;
  }
  in_chunks(host, rows_, [&](std::size_t first, std::size_t count, float* buffer) {
    check(cudaMemcpy(buffer, host.row(first), count * sizeof(float), cudaMemcpyHostToDevice),
          "copying a table to the GPU");
    // The legacy default stream (nullptr) runs after the copy above.
    check(launch_to_storage(buffer, device.get<std::byte>() + first * row_bytes_, count, storage_, nullptr),
          "launching a table conversion");
    check(cudaDeviceSynchronize(), "converting a table on the GPU");
  });
}

void DeviceTables::download(const DeviceBuffer& device, RowMatrix& host) const {
  if (storage_ == Storage::f32) {
    check(cudaMemcpy(host.data(), device.get(), rows_ * row_bytes_, cudaMemcpyDeviceToHost),
          "copying a table from the GPU");
    return;
  }
  in_chunks(host, rows_, [&](std::size_t first, std::size_t count, float* buffer) {
    check(launch_to_f32(device.get<std::byte>() + first * row_bytes_, buffer, count, storage_, nullptr),
          "launching a table conversion");
    check(cudaMemcpy(host.row(first), buffer, count * sizeof(float), cudaMemcpyDeviceToHost),
          "copying a table from the GPU");
  });
}

}  // namespace embed::cuda
