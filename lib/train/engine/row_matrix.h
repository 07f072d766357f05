// A trainable table: rows × dim floats in one contiguous, 2 MB-aligned host
// allocation (so a GPU backend can pin it and the kernel can back it with huge pages),
// rows padded to a multiple of 16 floats (64 bytes) so that every row starts on a
// cache line and the vector loops need no remainder. Padding stays zero.
//
// Its elements are f32, except where a GPU trains the tables from host memory in f16
// (--table host --dtype f16, SGD): the host tables are then f16 too, half the memory
// and half the bytes each batch moves, so that a table twice as large fits the host.
// Only that backend (and the files: checkpoints, outputs, --init) handles f16 tables;
// row(), data() and span() are for f32 tables.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "core/error.h"
#include "format/dtype.h"

namespace embed {

class RowMatrix {
 public:
  RowMatrix() = default;
  // Zero-filled; `element` is f32 or f16.
  RowMatrix(std::size_t rows, std::size_t dim, DType element = DType::f32);
  // Zero too, f32, but its pages untouched until written (anonymous mmap): a buffer sized
  // for the worst case costs the memory of the rows used (a sharded run's round area).
  static RowMatrix untouched(std::size_t rows, std::size_t dim);
  ~RowMatrix();
  RowMatrix(RowMatrix&& other) noexcept;
  RowMatrix& operator=(RowMatrix&& other) noexcept;
  RowMatrix(const RowMatrix&) = delete;
  RowMatrix& operator=(const RowMatrix&) = delete;

  static std::size_t stride_for(std::size_t dim) { return (dim + 15) / 16 * 16; }

  std::size_t rows() const { return rows_; }
  std::size_t dim() const { return dim_; }
  std::size_t stride() const { return stride_; }
  DType element() const { return element_; }
  bool half() const { return element_ == DType::f16; }
  std::size_t row_bytes() const { return stride_ * dtype_size(element_); }

  // f32 tables.
  float* row(std::size_t r) { return data() + r * stride_; }
  const float* row(std::size_t r) const { return data() + r * stride_; }
  float* data() {
    EMBED_ASSERT(!half());
    return static_cast<float*>(data_);
  }
  const float* data() const {
    EMBED_ASSERT(!half());
    return static_cast<const float*>(data_);
  }
  // All rows × stride floats, padding included.
  std::span<float> span() { return {data(), rows_ * stride_}; }
  std::span<const float> span() const { return {data(), rows_ * stride_}; }

  // Either element type.
  std::byte* row_bytes_at(std::size_t r) { return static_cast<std::byte*>(data_) + r * row_bytes(); }
  const std::byte* row_bytes_at(std::size_t r) const { return static_cast<const std::byte*>(data_) + r * row_bytes(); }
  std::span<const std::byte> bytes() const { return {static_cast<const std::byte*>(data_), rows_ * row_bytes()}; }
  // The first `count` elements of row r, widened to f32 (f16: exactly).
  void load_row(std::size_t r, float* out, std::size_t count) const;
  // Sets them from `in` (f16: rounded to nearest).
  void store_row(std::size_t r, const float* in, std::size_t count);

 private:
  std::size_t rows_ = 0, dim_ = 0, stride_ = 0;
  DType element_ = DType::f32;
  void* data_ = nullptr;
  std::size_t mapped_ = 0;  // bytes mapped from data_ (untouched()), or 0: aligned_alloc's
};

// The same rows in f32 (a run that goes on where f16 tables cannot: the CPU).
RowMatrix widened(const RowMatrix& matrix);

// The input table's starting values: uniform in [-1, 1) / dim, as gensim 4 draws them
// (word2vec draws from half that range; on text8-head the wider range alone adds about
// 0.6 points of analogy accuracy and 0.02 of WS-353 Spearman after 5 epochs). Drawn per
// row from (seed, row), so they do not depend on the thread count.
void init_uniform(RowMatrix& matrix, std::uint64_t seed, unsigned threads);
// The same for vectors of `dim` floats at the start of wider rows (an optimizer's state after them).
void init_uniform(RowMatrix& matrix, std::size_t dim, std::uint64_t seed, unsigned threads);
// Row `r`'s `dim` values as init_uniform draws them, into `out`: a table split across ranks
// (train/shards) draws each row by its number in the whole table.
void init_uniform_row(float* out, std::size_t dim, std::uint64_t seed, std::uint64_t r);

}  // namespace embed
