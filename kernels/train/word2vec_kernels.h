// Word2vec's kernels (skip-gram and CBOW), behind launch functions. Plain structs in, so that this header needs nothing from lib/.
//
// One thread block trains one window, as the CPU backend does (HogBatch): skip-gram
// loads the window's C input rows and 1 + K output rows (target, shared negatives)
// into shared memory, computes the C × (1+K) scores a warp per score, then adds both
// gradients, computed from the old values, with atomics, so that windows training
// the same rows at once lose no update. CBOW averages the inputs and trains the
// outputs one after another, as word2vec does. Tables are stored as f32, f16 or bf16
// and every product is computed in f32. The sigmoid and loss come from the CPU's
// tables, so one window gives the CPU's result up to the order of float sums.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "kernels/common/storage.h"

namespace embed::cuda {

// A packed batch on the device (lib/train/gpu/packed_batch.h describes the layout).
struct KernelBatch {
  const std::uint32_t* targets;
  const std::uint32_t* offsets;    // windows + 1
  const std::uint32_t* inputs;
  const std::uint32_t* negatives;  // negatives_per_window per window
  std::uint32_t windows;
  std::uint32_t negatives_per_window;
  std::uint32_t max_inputs;        // per window, at most
};

struct KernelTables {
  void* input;   // rows × stride elements of `storage`
  void* output;
  std::uint32_t stride;
  std::uint32_t dim;
  Storage storage;
};

struct KernelLogistic {
  const float* sigmoid;  // steps + 1 values over [-range, range]
  const float* loss;
  float range;
  int steps;
};

// Shared memory one skip-gram window needs; more than the device allows per block
// means the window or dimension is too large for these kernels.
std::size_t skipgram_shared_bytes(std::uint32_t max_inputs, std::uint32_t negatives, std::uint32_t stride);
std::size_t cbow_shared_bytes(std::uint32_t stride);
// Shared memory the kernels declare statically, on top of the above.
inline constexpr std::size_t kStaticSharedBytes = 256;
// Lets the kernels use up to `bytes` of shared memory per block (above the 48 KB default).
cudaError_t allow_shared_memory(std::size_t bytes);

// The launchers queue their kernel on `stream` and return the launch's status
// (cudaGetLastError), which the caller checks: a launch can fail (no kernel image for
// the device, too much shared memory) without any later call saying why.

// Adds the batch's loss to *loss (device memory).
cudaError_t launch_skipgram(const KernelBatch& batch, const KernelTables& tables, const KernelLogistic& logistic,
                     float learning_rate, double* loss, cudaStream_t stream);
cudaError_t launch_cbow(const KernelBatch& batch, const KernelTables& tables, const KernelLogistic& logistic,
                 float learning_rate, double* loss, cudaStream_t stream);

}  // namespace embed::cuda
