// Word2vec's kernels (skip-gram and CBOW), behind launch functions. Plain structs in, so that this header needs nothing from
// lib/.
//
// Each window is trained as the CPU backend trains it: skip-gram loads the window's C
// input rows and 1 + K output rows (target, negatives shared by the window) into shared
// memory and takes the inputs in turn, as word2vec does: an input's 1 + K scores read the
// output copies as the previous input left them, its gradient goes to the table at once,
// and the copies take their step. The output rows' steps are added to the tables at the
// end of the window. Every update is an atomic add, so that windows training the same
// rows at once lose no update. CBOW averages the inputs and trains the outputs one after
// another, as word2vec does.
//
// Every kernel trains a window per thread block of 256 threads (a warp per score, a
// thread per element pair). Skip-gram with SGD can instead train a window per warp
// (SkipgramKernel::warp, under EMBED_GPU_SKIPGRAM_KERNEL=warp, for experiments): lane l
// owns element pairs l, l + 32, ... of every row in every phase, so a window needs no
// barrier beyond its sums' shuffles. It was written to fit more windows on the GPU (the
// block kernel's 40 registers a thread let an SM hold 6 blocks, 792 windows on 132 SMs),
// but windows in flight are capped at 512 (below), where every block is resident
// already: there a window's latency bounds the words/s, and one warp takes longer over a
// window than eight. On an H200 (2026-11-28, text8-head x 43, 16 threads) the warp
// kernel gave 25.9M words/s at dim 100 and 13.6M at dim 300, the block kernel 58.0M and
// 41.2M. Whether it wins with more windows in flight (as many warps as the block
// kernel's 4,096) is what the throughput benchmark's device-warp mode measures.
// SkipgramKernel::rows (EMBED_GPU_SKIPGRAM_KERNEL=rows, for experiments, written
// 2026-11-28 without a GPU) goes the other way: a block per window as now, but warp r
// owns output row r for the whole window, so that the inputs go by without the block
// kernel's two barriers each (word2vec_kernels.cu's skipgram_rows_kernel; the throughput
// benchmark's device-rows).
// Tables are stored as f32, f16 or bf16 and every product is computed in f32. The
// sigmoid and loss come from the CPU's tables, so one window gives the CPU's result up
// to the order of float sums.
//
// A block (skip-gram's SGD: a warp) trains a run of consecutive windows in order, and
// the grid is capped (max_blocks): windows trained at once all read a row before any of them adds to it,
// so thousands at once over a Zipfian vocabulary ("the" is a negative in one window of
// twelve) add hundreds of stale steps to the same rows and the loss diverges. The cap
// bounds how many windows train at once. Each block's run is at least max_inputs + 1
// windows long, so that the windows training at once lie at least a window's width
// apart: neighbouring windows share most of their rows, and trained at once each misses
// the others' steps on all of them. (bench/RESULTS.md, "Why the kernels cap the updates
// in flight", has the runs that showed both.)
//
// The optimizer's update rule (train/engine/update_rules.h) is a template parameter,
// built by kernel_rules.cuh, one kernel per rule. SGD's steps are plain adds, and the
// kernels above are as they were before rules. A rule with state (every other) needs f32
// rows, whose state follows the padded vector (Word2vecLayout), and steps through the
// rule's element form: an input row's state in the table, by atomic adds where the rule
// is `concurrent` (adagrad, rowadagrad), in place otherwise (Adam's moments: windows
// that step one row at once may lose each other's change to its state, as Hogwild
// threads on the CPU may), as GloVe's kernel does; skip-gram's output rows in the
// block's shared copies, whole rows with their state, stepped per input as on the CPU,
// then each copy's change (new - loaded) added to the table at the end of the window. A
// rule whose step sums over its row (rowadagrad) takes a block sum per row step. One
// departure from the CPU's arithmetic beyond the order of float sums: with such a rule, a
// negative drawn twice for one input steps its row twice with the row's accumulator as
// it was before both (the CPU updates it in between; the difference is of the order of
// one step's square, a millionth of the scale).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "kernels/common/storage.h"
#include "kernels/train/kernel_rules.h"

namespace embed::cuda {

// A packed batch on the device (lib/train/gpu/packed_batch.h describes the layout).
struct KernelBatch {
  const std::uint32_t* targets;
  const std::uint32_t* offsets;  // windows + 1
  const std::uint32_t* inputs;
  const std::uint32_t* negatives;  // negatives_per_window per window
  std::uint32_t windows;
  std::uint32_t negatives_per_window;
  std::uint32_t max_inputs;  // per window, at most
  // EMBED_GPU_KERNEL_CLOCKS: where skip-gram's block and rows kernels add their windows'
  // phase cycles (kernel_clocks.h), kClockSlots counters; null (the default) for none.
  unsigned long long* clocks = nullptr;
};

struct KernelTables {
  SplitTable input;  // rows of `width` elements of `storage`
  SplitTable output;
  std::uint32_t stride;  // the padded vector: where a row's optimizer state starts
  std::uint32_t width;   // stride plus the state (f32 rows only); stride for SGD
  std::uint32_t dim;
  Storage storage;
};

struct KernelLogistic {
  const float* sigmoid;  // steps + 1 values over [-range, range]
  const float* loss;
  float range;
  int steps;
};

// Which kernel trains skip-gram with SGD: a warp per window, a block of 256 threads, or a
// block with a warp per output row (rows).
enum class SkipgramKernel { warp, block, rows };

// Shared memory one skip-gram window needs (with SGD, `kernel`'s); more than the device
// allows per block means the window or dimension is too large for these kernels.
// `width` as in KernelTables: the output rows' copies hold their state too.
std::size_t skipgram_shared_bytes(std::uint32_t max_inputs, std::uint32_t negatives, std::uint32_t stride, std::uint32_t width,
                                  SkipgramKernel kernel = SkipgramKernel::block);
std::size_t cbow_shared_bytes(std::uint32_t stride);
// Shared memory the kernels declare statically, on top of the above.
inline constexpr std::size_t kStaticSharedBytes = 1024;
// A window's output rows at most: its target and --negative's largest value (60).
inline constexpr std::uint32_t kMaxWindowOutputs = 61;
// Lets the kernels use up to `bytes` of shared memory per block (above the 48 KB default).
cudaError_t allow_shared_memory(std::size_t bytes);

// The launchers queue their kernel on `stream` and return the launch's status
// (cudaGetLastError), which the caller checks: a launch can fail (no kernel image for
// the device, too much shared memory) without any later call saying why.

// Adds the batch's loss to *loss (device memory).
// At most `max_blocks` windows at once (blocks, or warps for SkipgramKernel::warp; 0: no
// cap). A rule with state needs f32 tables whose width exceeds their stride (else
// cudaErrorInvalidValue); it always takes a block per window.
cudaError_t launch_skipgram(const KernelBatch& batch, const KernelTables& tables, const KernelLogistic& logistic,
                            const KernelRuleSpec& rule, float learning_rate, double* loss, unsigned max_blocks,
                            cudaStream_t stream, SkipgramKernel kernel = SkipgramKernel::block);
cudaError_t launch_cbow(const KernelBatch& batch, const KernelTables& tables, const KernelLogistic& logistic,
                        const KernelRuleSpec& rule, float learning_rate, double* loss, unsigned max_blocks, cudaStream_t stream);

}  // namespace embed::cuda
