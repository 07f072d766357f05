// The vector loops of the CPU trainers' inner loops, over whole padded rows (n a multiple
// of 16, the padding zero): always inlined, so that each caller's target clone (AVX-512,
// AVX2, the baseline) vectorises them for its own instruction set (merely inline, GCC
// once called dot out of line from the subword loop's AVX-512 clone: the baseline's loop).
#pragma once

#include <cstddef>

namespace embed {

__attribute__((always_inline)) inline float dot(const float* __restrict a, const float* __restrict b, std::size_t n) {
  float sum = 0;
#pragma omp simd reduction(+ : sum)
  for (std::size_t i = 0; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

// y += alpha × x. The trainers accumulate gradient directions with it (not steps: the
// optimizer's rule makes steps).
__attribute__((always_inline)) inline void axpy(float alpha, const float* __restrict x, float* __restrict y, std::size_t n) {
#pragma omp simd
  for (std::size_t i = 0; i < n; ++i) y[i] += alpha * x[i];
}

// y = alpha × x.
__attribute__((always_inline)) inline void scale_copy(float alpha, const float* __restrict x, float* __restrict y,
                                                      std::size_t n) {
#pragma omp simd
  for (std::size_t i = 0; i < n; ++i) y[i] = alpha * x[i];
}

}  // namespace embed
