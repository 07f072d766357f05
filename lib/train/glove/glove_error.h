// A GloVe record's prediction error, shared by the CPU's per-record and summed steps:
// w·c + b_w + b_c - log X, each bias right after its row's vector (GloveLayout). Carries
// `#pragma omp simd`: include it from files built with -fopenmp-simd (lib/CMakeLists.txt).
#pragma once

#include <cstddef>

namespace embed {

__attribute__((always_inline)) inline float glove_error(const float* __restrict w, const float* __restrict c, std::size_t dim,
                                                        float log_count) {
  float dot = 0;
#pragma omp simd reduction(+ : dot)
  for (std::size_t k = 0; k < dim; ++k) dot += w[k] * c[k];
  return dot + w[dim] + c[dim] - log_count;
}

}  // namespace embed
