#include "train/engine/row_matrix.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/half_array.h"
#include "core/parallel.h"
#include "train/engine/random.h"

namespace embed {
namespace {
constexpr std::size_t kHugePage = 2u << 20;
}

RowMatrix::RowMatrix(std::size_t rows, std::size_t dim, DType element)
    : rows_(rows), dim_(dim), stride_(stride_for(dim)), element_(element) {
  EMBED_ASSERT(element == DType::f32 || element == DType::f16);
  const std::size_t bytes = std::max<std::size_t>(rows_ * row_bytes(), 1);
  const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  data_ = std::aligned_alloc(kHugePage, rounded);
  if (data_ == nullptr) throw std::bad_alloc();
  ::madvise(data_, rounded, MADV_HUGEPAGE);  // advice only: failure is harmless
  // Zeroing is the pages' first touch too, where the kernel finds and clears each page: on
  // one thread two 6.9 GB tables took 31 s on the dev VM (20 s of it the kernel's
  // clear_page), and the largest run's 69 GB would take minutes. So a big table is zeroed
  // in parts on every core; a small one (a part or less) on the calling thread.
  constexpr std::size_t kZeroPart = 64u << 20;
  const std::size_t parts = (rounded + kZeroPart - 1) / kZeroPart;
  parallel_for(parts, parts > 1 ? default_thread_count() : 1, [&](std::size_t part) {
    const std::size_t first = part * kZeroPart;
    std::memset(static_cast<std::byte*>(data_) + first, 0, std::min(kZeroPart, rounded - first));
  });
}

RowMatrix RowMatrix::untouched(std::size_t rows, std::size_t dim) {
  RowMatrix m;
  m.rows_ = rows;
  m.dim_ = dim;
  m.stride_ = stride_for(dim);
  m.mapped_ = std::max<std::size_t>(rows * m.row_bytes(), 1);
  m.data_ = ::mmap(nullptr, m.mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m.data_ == MAP_FAILED) {
    m.data_ = nullptr;
    m.mapped_ = 0;
    throw std::bad_alloc();
  }
  return m;
}

namespace {
void release(void* data, std::size_t mapped) {
  if (mapped > 0) {
    ::munmap(data, mapped);
  } else {
    std::free(data);
  }
}
}  // namespace

RowMatrix::~RowMatrix() { release(data_, mapped_); }

RowMatrix::RowMatrix(RowMatrix&& other) noexcept
    : rows_(std::exchange(other.rows_, 0)),
      dim_(std::exchange(other.dim_, 0)),
      stride_(std::exchange(other.stride_, 0)),
      element_(std::exchange(other.element_, DType::f32)),
      data_(std::exchange(other.data_, nullptr)),
      mapped_(std::exchange(other.mapped_, 0)) {}

RowMatrix& RowMatrix::operator=(RowMatrix&& other) noexcept {
  if (this != &other) {
    release(data_, mapped_);
    rows_ = std::exchange(other.rows_, 0);
    dim_ = std::exchange(other.dim_, 0);
    stride_ = std::exchange(other.stride_, 0);
    element_ = std::exchange(other.element_, DType::f32);
    data_ = std::exchange(other.data_, nullptr);
    mapped_ = std::exchange(other.mapped_, 0);
  }
  return *this;
}

void RowMatrix::load_row(std::size_t r, float* out, std::size_t count) const {
  EMBED_ASSERT(count <= stride_);
  if (half()) {
    f16_to_f32_array(reinterpret_cast<const std::uint16_t*>(row_bytes_at(r)), out, count);
  } else {
    std::memcpy(out, row(r), count * sizeof(float));
  }
}

void RowMatrix::store_row(std::size_t r, const float* in, std::size_t count) {
  EMBED_ASSERT(count <= stride_);
  if (half()) {
    f32_to_f16_array(in, reinterpret_cast<std::uint16_t*>(row_bytes_at(r)), count);
  } else {
    std::memcpy(row(r), in, count * sizeof(float));
  }
}

RowMatrix widened(const RowMatrix& matrix) {
  RowMatrix wide(matrix.rows(), matrix.dim());
  for (std::size_t r = 0; r < matrix.rows(); ++r) matrix.load_row(r, wide.row(r), matrix.stride());
  return wide;
}

void init_uniform(RowMatrix& matrix, std::uint64_t seed, unsigned threads) { init_uniform(matrix, matrix.dim(), seed, threads); }

void init_uniform(RowMatrix& matrix, std::size_t dim, std::uint64_t seed, unsigned threads) {
  EMBED_ASSERT(dim <= matrix.stride());
  constexpr std::size_t kRowsPerTask = 4096;
  const std::size_t tasks = (matrix.rows() + kRowsPerTask - 1) / kRowsPerTask;
  parallel_for(tasks, threads, [&](std::size_t task) {
    const std::size_t end = std::min(matrix.rows(), (task + 1) * kRowsPerTask);
    std::vector<float> drawn(dim);  // an f16 table's row before rounding
    for (std::size_t r = task * kRowsPerTask; r < end; ++r) {
      float* row = matrix.half() ? drawn.data() : matrix.row(r);
      init_uniform_row(row, dim, seed, r);
      if (matrix.half()) matrix.store_row(r, drawn.data(), dim);
    }
  });
}

void init_uniform_row(float* out, std::size_t dim, std::uint64_t seed, std::uint64_t r) {
  const float scale = 2.0f / static_cast<float>(dim);
  Random random(seed, 0x1000000000ull + r);
  for (std::size_t i = 0; i < dim; ++i) out[i] = (random.uniform() - 0.5f) * scale;
}

}  // namespace embed
