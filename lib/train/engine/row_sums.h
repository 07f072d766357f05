// Summed steps (train/word2vec/summed_steps.h, train/glove/glove_summed_steps.h): each
// table's gradients summed per row over a run of windows or records, for the rows the run
// touches only. A row's sum is listed when the run first
// touches it, in first-touch order; clear() forgets the run's rows by walking its list,
// not the table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

namespace embed {

class RowSums {
 public:
  RowSums(std::size_t rows, std::size_t width) : slot_(rows, kUnlisted), width_(width) {}

  // Row `row`'s sum (`width` floats), zero when the run first touches it. The pointer
  // holds until the next call of of() or clear().
  float* of(std::uint32_t row) {
    std::uint32_t& slot = slot_[row];
    if (slot == kUnlisted) {
      slot = static_cast<std::uint32_t>(rows_.size());
      rows_.push_back(row);
      sums_.resize(sums_.size() + width_, 0.0f);
    }
    return sums_.data() + std::size_t{slot} * width_;
  }
  // The rows touched, and the k-th one's sum.
  std::span<const std::uint32_t> rows() const { return rows_; }
  const float* sum(std::size_t k) const { return sums_.data() + k * width_; }

  void clear() {
    for (std::uint32_t row : rows_) slot_[row] = kUnlisted;
    rows_.clear();
    sums_.clear();
  }

 private:
  static constexpr std::uint32_t kUnlisted = ~std::uint32_t{0};
  std::vector<std::uint32_t> slot_;  // per table row: its place in rows_, or kUnlisted
  std::vector<std::uint32_t> rows_;
  std::vector<float> sums_;
  std::size_t width_;
};

// The environment variable `name` as a positive count (the CPU's summed steps, for
// measuring them: EMBED_SUMMED_WINDOWS, EMBED_SUMMED_RECORDS), else 0.
inline std::size_t summed_steps_override(const char* name) {
  const char* value = std::getenv(name);
  const long count = value ? std::atol(value) : 0;
  return count > 0 ? static_cast<std::size_t>(count) : 0;
}

}  // namespace embed
