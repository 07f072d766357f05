// GloVe's update on the GPU: one warp per co-occurrence record, as the CPU trains one
// record per step. The warp computes w_i · w̃_j (+ biases) with a shuffle reduction,
// then applies the CPU's update rule element by element, lane k taking elements
// k, k + 32, .... Parameters and AdaGrad accumulators change by atomic adds, with each
// step computed from the accumulator value the add returned, so records that share a
// row in the same launch lose no update; one record alone gives the CPU's arithmetic.
// Plain structs in, so that this header needs nothing from lib/.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

#include "kernels/common/storage.h"
#include "kernels/train/kernel_rules.h"

namespace embed::cuda {

// lib/train/glove/glove_layout.h's GloveRecord, bit for bit.
struct KernelGloveRecord {
  std::uint32_t row;
  std::uint32_t column;
  float log_count;
  float weight;
};

// W and W̃ (storage.h's SplitTable: on the GPU, or partly a block's copies of their
// rows): rows of `width` f32 each, [vector (dim) | bias | pad] then the optimizer's
// state from `state`.
struct GloveTables {
  SplitTable words;
  SplitTable contexts;
  std::uint32_t width;
  std::uint32_t dim;
  std::uint32_t state;
};

// Trains `count` records; adds 0.5 f(X) (prediction - log X)² per trained record to
// *loss and the number trained to *trained (device memory). Records whose prediction
// is not finite are skipped, as on the CPU. Returns the launch's status
// (cudaGetLastError).
// At most `max_in_flight` records train at once (rounded up to whole blocks of 8 warps):
// records in flight all read their rows before any adds to them, and over a small
// vocabulary thousands at once pile stale steps on every row (bench/RESULTS.md, "Why
// the kernels cap the updates in flight").
cudaError_t launch_glove(const KernelGloveRecord* records, std::uint32_t count, const GloveTables& tables,
                         const KernelRuleSpec& rule, float learning_rate, double* loss, unsigned long long* trained,
                         unsigned max_in_flight, cudaStream_t stream);

}  // namespace embed::cuda
