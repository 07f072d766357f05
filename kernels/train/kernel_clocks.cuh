// Thread 0's timer of a block's windows (kernel_clocks.h), for .cu files only: its sums
// in the block's shared memory, added to the batch's counters at the block's end. Every
// call is a test and nothing more when the batch asks for no clocks (KernelBatch::clocks
// null, the default).
#pragma once

#include <cstdint>

#include "kernels/train/kernel_clocks.h"

namespace embed::cuda {

// The shared memory a block's timer needs: the slots, the last reading, the first, and the
// global timer's first and last.
inline constexpr int kBlockClockWords = kClockSlots + 4;

// The GPU's global timer, in nanoseconds: with the cycles counted over the same span it
// gives the clock the SMs ran at, which under load is below the peak the device reports.
__device__ inline unsigned long long global_nanoseconds() {
  unsigned long long now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

class BlockClocks {
 public:
  // `sums`: kBlockClockWords in the block's shared memory.
  __device__ BlockClocks(unsigned long long* counters, unsigned long long* sums) : counters_(counters), sums_(sums) {
    if (!on()) return;
    for (int i = 0; i < kClockSlots; ++i) sums_[i] = 0;
    sums_[kLast] = sums_[kFirst] = clock64();
    sums_[kFirstNanos] = sums_[kLastNanos] = global_nanoseconds();
  }
  // A window with `inputs` inputs starts.
  __device__ void window(std::uint32_t inputs) {
    if (!on()) return;
    sums_[kClockWindows] += 1;
    sums_[kClockInputs] += inputs;
  }
  // Phase `phase` of the window ends now.
  __device__ void mark(int phase) {
    if (!on()) return;
    const auto now = static_cast<unsigned long long>(clock64());
    sums_[phase] += now - sums_[kLast];
    sums_[kLast] = now;
    if (phase == kClockPhases - 1) sums_[kLastNanos] = global_nanoseconds();
  }
  // The block's windows are done: its sums go to the batch's counters. A block that
  // trained none (the last of a batch's ceil split, block_windows) counts for nothing: its
  // empty run would shorten the blocks' mean and lengthen the batch's tail beside it.
  __device__ void finish() {
    if (!on() || sums_[kClockWindows] == 0) return;
    sums_[kClockBlockCycles] = sums_[kLast] - sums_[kFirst];
    sums_[kClockBlockNanos] = sums_[kLastNanos] - sums_[kFirstNanos];
    sums_[kClockBlocks] = 1;
    for (int i = 0; i < kClockSlots; ++i) {
      if (sums_[i] != 0) atomicAdd(counters_ + i, sums_[i]);
    }
  }

 private:
  static constexpr int kLast = kClockSlots, kFirst = kClockSlots + 1, kFirstNanos = kClockSlots + 2,
                       kLastNanos = kClockSlots + 3;
  __device__ bool on() const { return counters_ != nullptr && threadIdx.x == 0; }

  unsigned long long* counters_;
  unsigned long long* sums_;
};

}  // namespace embed::cuda
