// Device placement, shared by the CUDA training backends: both tables copied to GPU
// memory in the storage type (f32 rows stay f32; f16 and bf16 are converted on the
// device), trained there in place, and copied back to the host's f32 tables for
// checkpoints and output (f16 host tables, row_matrix.h, are copied as they are). Host
// placement keeps its hot rows here the same way: the tables' first rows (the most
// frequent words'), and with --subwords some of the input table's n-gram buckets
// (hot_rows.h) after its first rows.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "format/dtype.h"
#include "kernels/common/cuda_memory.h"
#include "kernels/common/storage.h"
#include "train/engine/row_matrix.h"

namespace embed::cuda {

class DeviceTables {
 public:
  DeviceTables() = default;
  // Copies the first `first_rows` and `second_rows` rows of the two tables to the device
  // (the device must be current), or all of a table that has fewer; with `first_buckets`
  // (ascending; host placement with --subwords: hot_rows.h) the first table's
  // first first_rows - first_buckets.size() rows, then those rows, in that order.
  // `first_name` and `second_name` name them in messages ("the input table").
  DeviceTables(const RowMatrix& first, const RowMatrix& second, std::size_t first_rows, std::size_t second_rows, Storage storage,
               const char* first_name, const char* second_name, std::span<const std::uint32_t> first_buckets = {});

  void* first() const { return first_.get(); }
  void* second() const { return second_.get(); }

  // Rows held of the larger table (0: none).
  std::size_t rows() const { return std::max(first_rows_, second_rows_); }
  // Copies the rows back into the host tables, once no kernel still writes them.
  void copy_to_host(RowMatrix& first, RowMatrix& second) const;

  // A data-parallel round (mpirun) on rows [first, end) of the first table (`second`
  // false) or the second, from the calling thread while kernels may train them (they see
  // whatever the rows hold at that moment, as Hogwild threads do): copied into `host`; set
  // from `host`; or `added` (f32, (end - first) rows of the host's stride) added to them.
  // Rows not held here (host placement keeps them in the host tables) are left alone.
  void rows_to_host(bool second, RowMatrix& host, std::size_t first, std::size_t end) const;
  void rows_from_host(bool second, const RowMatrix& host, std::size_t first, std::size_t end) const;
  void add_to_rows(bool second, const float* added, std::size_t stride, std::size_t first, std::size_t end) const;
  // Makes the f32 buffer, of up to kTransferBufferBytes, that add_to_rows passes the ranks'
  // changes through (rows of `stride` floats), unless it is made already. Called before
  // training: cudaFree waits for the whole device, so a buffer made and freed at every
  // round would stall every batch's kernels in flight. The constructor makes it where the
  // tables are converted between the host's f32 and the device's storage.
  void reserve_transfer(std::size_t stride);

 private:
  // The rows of [first, end) held of the first table (`second` false) or the second (all
  // of them by default), to or from the device.
  void upload(bool second, const RowMatrix& host, std::size_t first = 0, std::size_t end = SIZE_MAX) const;
  void download(bool second, RowMatrix& host, std::size_t first = 0, std::size_t end = SIZE_MAX) const;
  // Whether `host`'s rows are held as the device holds them (f32 and f32, or f16 host
  // tables and f16: row_matrix.h), so that they are copied as they are, not converted.
  bool stored_alike(const RowMatrix& host) const;
  // The first rows of a table held at their own index.
  std::size_t first_rows_of(bool second) const { return second ? second_rows_ : first_rows_ - buckets_.size(); }
  // Calls run(bucket index k, count) for the runs of at most one transfer buffer's rows of
  // buckets_[k, k + count) that lie in [first, end).
  template <typename Run>
  void bucket_runs(std::size_t stride, std::size_t first, std::size_t end, Run run) const;
  // Calls step(first row, elements, the f32 transfer buffer) over rows [first, end) of
  // `stride` floats in chunks of at most kTransferBufferBytes, one after another.
  template <typename Step>
  void in_chunks(std::size_t stride, std::size_t first, std::size_t end, Step step) const;

  // Device rows [place, place + count) of a table, to or from `rows` (count host rows of
  // `stride` elements one after another: in the storage type where `as_stored`, else f32),
  // or with `added` (f32) added to them.
  void put(bool second, const std::byte* rows, bool as_stored, std::size_t stride, std::size_t place, std::size_t count) const;
  void get(bool second, std::byte* rows, bool as_stored, std::size_t stride, std::size_t place, std::size_t count) const;
  void add(bool second, const float* added, std::size_t stride, std::size_t place, std::size_t count) const;

  Storage storage_ = Storage::f32;
  std::size_t first_rows_ = 0, second_rows_ = 0;
  std::vector<std::uint32_t> buckets_;  // the first table's rows held after its first rows
  std::size_t row_bytes_ = 0;           // one row in the storage type
  DeviceBuffer first_, second_;
  DeviceBuffer transfer_;           // reserve_transfer's, or none
  std::size_t transfer_rows_ = 0;  // of the stride it was made for
  // One caller at a time in transfer_ (a round, a checkpoint's copy): a pointer, so that
  // the tables move.
  std::unique_ptr<std::mutex> transfer_lock_ = std::make_unique<std::mutex>();
};

}  // namespace embed::cuda
