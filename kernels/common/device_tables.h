// Device placement, shared by the CUDA training backends: both tables copied to GPU
// memory in the storage type (f32 rows stay f32; f16 and bf16 are converted on the
// device), trained there in place, and copied back to the host's f32 tables for
// checkpoints and output.
#pragma once

#include "format/dtype.h"
#include "kernels/common/cuda_memory.h"
#include "kernels/common/storage.h"
#include "train/row_matrix.h"

namespace embed::cuda {

class DeviceTables {
 public:
  DeviceTables() = default;
  // Copies both tables to the device (the device must be current); `first_name` and
  // `second_name` name them in messages ("the input table").
  DeviceTables(const RowMatrix& first, const RowMatrix& second, Storage storage, const char* first_name,
               const char* second_name);

  void* first() const { return first_.get(); }
  void* second() const { return second_.get(); }

  // Copies both tables back into the host tables, once no kernel still writes them.
  void copy_to_host(RowMatrix& first, RowMatrix& second) const;

 private:
  void upload(const RowMatrix& host, const DeviceBuffer& device) const;
  void download(const DeviceBuffer& device, RowMatrix& host) const;

  Storage storage_ = Storage::f32;
  std::size_t row_bytes_ = 0;  // one row in the storage type
  DeviceBuffer first_, second_;
};

}  // namespace embed::cuda
