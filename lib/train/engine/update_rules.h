// The update rules the trainers' inner loops call, one struct per optimizer, shared by
// the CPU backends and the CUDA kernels (plain C++17 with host-device annotations under
// nvcc; no includes beyond <cstddef>). A rule sees a row's gradient as the backend forms
// it: a coefficient (word2vec: label - sigmoid(score)) times a direction (the other
// row), summed over a step's terms for an input row.
//
//   gradient_scale(c)  what the backend multiplies a direction by as it accumulates:
//                      SGD folds its learning rate in here, as word2vec does, so that
//                      its sums are already steps; a rule with state (AdaGrad, Adam) keeps
//                      the plain gradient and turns it into a step in its update.
//   add(row, s, x, n)  row += s × x for a term applied at once (an output row's step);
//   add_sum(row, g, n) row += the accumulated g (an input row's step).
//
// Which optimizers a model takes: its TrainingModel::supports (word2vec: SGD). A new
// rule is a struct here; the backends instantiate their loops with it: word2vec's CPU
// backend through a target-cloned train_batch_<rule> entry point and CpuBackend::train's
// dispatch on TrainSettings::optimizer, its kernels in launch_skipgram and launch_cbow.
#pragma once

#include <cstddef>

#ifdef __CUDACC__
#define EMBED_HOST_DEVICE __host__ __device__
#else
#define EMBED_HOST_DEVICE
#endif

namespace embed {

// Plain SGD with word2vec's schedule (the learning rate falls linearly, epoch_loop.h).
struct SgdRule {
  float lr;

  EMBED_HOST_DEVICE float gradient_scale(float coefficient) const { return coefficient * lr; }

#ifndef __CUDACC__
  // The CPU's loops: whole padded rows, vectorised (each caller is a target clone).
  static void add(float* __restrict row, float scale, const float* __restrict x, std::size_t n) {
#pragma omp simd
    for (std::size_t i = 0; i < n; ++i) row[i] += scale * x[i];
  }
  static void add_sum(float* __restrict row, const float* __restrict sum, std::size_t n) {
#pragma omp simd
    for (std::size_t i = 0; i < n; ++i) row[i] += 1.0f * sum[i];
  }
#endif
};

}  // namespace embed
