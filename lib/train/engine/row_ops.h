// The vector loops of the CPU trainers' inner loops, over whole padded rows (n a multiple
// of 16, the padding zero): always inlined, so that each caller's target clone (AVX-512,
// AVX2, the baseline) vectorises them for its own instruction set (merely inline, GCC
// once called dot out of line from the subword loop's AVX-512 clone: the baseline's loop).
#pragma once

#include <cstddef>

namespace embed {

// The sum of a[i] × b[i] in 16 partial sums (sum j takes elements j, j + 16, j + 32, ...),
// added pairwise at the end (8 + 8, then 4 + 4, 2 + 2, 1 + 1): one register of them with
// AVX-512, two with AVX2, four with SSE2, and a reduction of four steps. With
// `omp simd reduction` GCC summed its lanes at the end one after another, a chain of 16
// dependent adds per dot with AVX-512, 8 with AVX2 (about a tenth of skip-gram's time).
__attribute__((always_inline)) inline float dot(const float* __restrict a, const float* __restrict b, std::size_t n) {
  float sums[16] = {};
  for (std::size_t i = 0; i < n; i += 16) {
#pragma omp simd
    for (std::size_t j = 0; j < 16; ++j) sums[j] += a[i + j] * b[i + j];
  }
  for (std::size_t half = 8; half > 0; half /= 2) {
#pragma omp simd
    for (std::size_t j = 0; j < half; ++j) sums[j] += sums[j + half];
  }
  return sums[0];
}

// dot(a, rows[r], n) for R rows at once, the same sums (bit for bit), a's elements loaded
// once for all R rows: skip-gram scores a context row against 1 + K output rows.
template <std::size_t R>
__attribute__((always_inline)) inline void dots(const float* __restrict a, const float* const* rows, std::size_t n,
                                                float* scores) {
  float sums[R][16] = {};
  for (std::size_t i = 0; i < n; i += 16) {
    for (std::size_t r = 0; r < R; ++r) {
      const float* b = rows[r] + i;
#pragma omp simd
      for (std::size_t j = 0; j < 16; ++j) sums[r][j] += a[i + j] * b[j];
    }
  }
  for (std::size_t r = 0; r < R; ++r) {
    for (std::size_t half = 8; half > 0; half /= 2) {
#pragma omp simd
      for (std::size_t j = 0; j < half; ++j) sums[r][j] += sums[r][j + half];
    }
    scores[r] = sums[r][0];
  }
}

// scores[r] = dot(a, rows[r], n) for r < count: six rows at a time, then three, then one.
__attribute__((always_inline)) inline void dots_of(const float* __restrict a, const float* const* rows, std::size_t count,
                                                   std::size_t n, float* scores) {
  std::size_t r = 0;
  for (; r + 6 <= count; r += 6) dots<6>(a, rows + r, n, scores + r);
  for (; r + 3 <= count; r += 3) dots<3>(a, rows + r, n, scores + r);
  for (; r < count; ++r) scores[r] = dot(a, rows[r], n);
}

// Whether a row is listed twice (a negative drawn twice): then a later row's score depends
// on an earlier one's step, and the rows cannot be scored first.
__attribute__((always_inline)) inline bool has_repeat(float* const* rows, std::size_t count) {
  for (std::size_t a = 1; a < count; ++a) {
    for (std::size_t b = 0; b < a; ++b) {
      if (rows[a] == rows[b]) return true;
    }
  }
  return false;
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

// Skip-gram's SGD steps for one context row, given its outputs' gradient scales g (SGD's,
// the learning rate folded in): the input's gradient Σ_o g_o × out_o, summed in o's order,
// each output row's step out_o += g_o × in, then (step_input) in += the gradient. One pass
// over the rows, 16 floats at a time, where scale_copy, axpy and SgdRule::add made
// 2 + 2 × outputs: each row is loaded once or twice instead of three times and the
// gradient stays in registers (on the dev VM's Zen 4 the separate loops ran at a fifth of
// the FMA peak with every row in L1, bound by loads and their chains through the
// gradient's memory). Per element the arithmetic is theirs, in their order, so the result
// is the same bit for bit; a row listed twice in `out` (a negative drawn twice) is read
// back after its first step, as there. n: a multiple of 16.
__attribute__((always_inline)) inline void sgd_context_steps(float* __restrict in, float* const* out, const float* g,
                                                             std::size_t outputs, std::size_t n, bool step_input) {
  for (std::size_t i = 0; i < n; i += 16) {
    float grad[16];
    const float* first = out[0] + i;
    const float g0 = g[0];
#pragma omp simd
    for (std::size_t j = 0; j < 16; ++j) grad[j] = g0 * first[j];
#pragma GCC unroll 1
    for (std::size_t o = 1; o < outputs; ++o) {
      const float* row = out[o] + i;
      const float go = g[o];
#pragma omp simd
      for (std::size_t j = 0; j < 16; ++j) grad[j] += go * row[j];
    }
#pragma GCC unroll 1
    for (std::size_t o = 0; o < outputs; ++o) {
      float* row = out[o] + i;
      const float go = g[o];
#pragma omp simd
      for (std::size_t j = 0; j < 16; ++j) row[j] += go * in[i + j];
    }
    if (step_input) {
#pragma omp simd
      for (std::size_t j = 0; j < 16; ++j) in[i + j] += grad[j];
    }
  }
}

// CBOW's SGD steps of a window's output rows (no row twice) against its mean: the mean's
// gradient grad += Σ_o g_o × out_o, summed in o's order, and each row's step
// out_o += g_o × mean, in one pass of 16 floats at a time (sgd_output_step per row, in
// order, made one pass per row); per element their arithmetic, in their order.
__attribute__((always_inline)) inline void sgd_output_steps(float* const* out, const float* g, std::size_t outputs,
                                                            const float* __restrict mean, float* __restrict grad,
                                                            std::size_t n) {
  for (std::size_t i = 0; i < n; i += 16) {
    float sum[16];
#pragma omp simd
    for (std::size_t j = 0; j < 16; ++j) sum[j] = grad[i + j];
    for (std::size_t o = 0; o < outputs; ++o) {
      float* row = out[o] + i;
      const float go = g[o];
#pragma omp simd
      for (std::size_t j = 0; j < 16; ++j) {
        const float value = row[j];
        sum[j] += go * value;
        row[j] = value + go * mean[i + j];
      }
    }
#pragma omp simd
    for (std::size_t j = 0; j < 16; ++j) grad[i + j] = sum[j];
  }
}

// CBOW's SGD step of one output row against the window's mean: the mean's gradient
// grad += g × out, then out += g × mean, in one pass (axpy then SgdRule::add made two,
// loading the row twice); per element their arithmetic, in their order.
__attribute__((always_inline)) inline void sgd_output_step(float* __restrict out, float g, const float* __restrict mean,
                                                           float* __restrict grad, std::size_t n) {
#pragma omp simd
  for (std::size_t i = 0; i < n; ++i) {
    const float row = out[i];
    grad[i] += g * row;
    out[i] = row + g * mean[i];
  }
}

}  // namespace embed
