// Where skip-gram's block and rows kernels spend a window's time, for experiments
// (EMBED_GPU_KERNEL_CLOCKS=1): thread 0 of each block reads the SM's cycle counter
// (clock64) at the end of each phase of each window, most phases ending at a barrier that
// every thread of the block passes, so that they add up to the block's time. Each block
// adds its sums to counters in GPU memory (KernelBatch::clocks) when its run of windows
// ends; the backend reads them when training ends and logs them (describe_kernel_clocks).
//
// Why: at 512 windows in flight, device placement's words/s is bound by how long a window
// takes (word2vec_kernels.h). On an H200 the block kernel's 58M words/s at dim 100 is
// about 17 µs per window, three to five times its arithmetic; the phases say where the
// rest goes, and the blocks' mean cycles beside the batches' kernel time (--metrics'
// batch_kernel_s) say how much a batch's slowest block (its tail) adds. Nsight Compute
// (run.sh profile) says why a phase is slow, where the machine lets it read counters.
#pragma once

#include <cstdint>
#include <string>

namespace embed::cuda {

// The counters: each phase's cycles summed over windows, then the windows timed, their
// inputs, the blocks' cycles (a block's whole run of windows, from its first reading to
// its last), the same runs in nanoseconds of the GPU's global timer, and the blocks (those
// that trained a window).
inline constexpr int kClockPhases = 6;
enum KernelClockSlot : int {
  kClockWindows = kClockPhases,
  kClockInputs,
  kClockBlockCycles,
  kClockBlockNanos,
  kClockBlocks,
  kClockSlots
};

// The phases of a window, as each kernel's thread 0 marks them (word2vec_kernels.cu).
// The block kernel: listing the outputs, loading the rows, each input's scores and steps
// (summed over the inputs), the loss, and the output rows' adds. The rows kernel: listing,
// loading, the inputs as warp 0 takes them, its output rows' adds and the wait for every
// warp, the inputs' gradients replayed, and thread 0's share of their adds (the next
// window's listing waits for the rest).
inline constexpr const char* kBlockKernelPhases[kClockPhases] = {"lists", "loads", "scores", "steps", "loss", "outputs"};
inline constexpr const char* kRowsKernelPhases[kClockPhases] = {"lists", "loads", "inputs", "outputs", "replay", "adds"};

// The clock the SMs ran at while the blocks ran, in MHz: their cycles over the global
// timer's nanoseconds; `peak_mhz` (the device's reported clock) where no time was read.
double measured_clock_mhz(const std::uint64_t (&counters)[kClockSlots], double peak_mhz);

// One line: the windows, their inputs, a window's cycles (and µs at the measured clock,
// beside the peak) and each phase's share, a block's run of windows. Empty when no window
// was timed.
std::string describe_kernel_clocks(const std::uint64_t (&counters)[kClockSlots], bool rows_kernel, double peak_mhz);

}  // namespace embed::cuda
