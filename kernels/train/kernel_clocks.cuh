// Thread 0's timer of a block's windows (kernel_clocks.h), for .cu files only: its sums
// in the block's shared memory, added to the batch's counters at the block's end. Every
// call is a test and nothing more when the batch asks for no clocks (KernelBatch::clocks
// null, the default).
#pragma once

#include <cstdint>

#include "kernels/train/kernel_clocks.h"

namespace embed::cuda {

// The shared memory a block's timer needs: the slots, the last reading and the first.
inline constexpr int kBlockClockWords = kClockSlots + 2;

class BlockClocks {
 public:
  // `sums`: kBlockClockWords in the block's shared memory.
  __device__ BlockClocks(unsigned long long* counters, unsigned long long* sums) : counters_(counters), sums_(sums) {
    if (!on()) return;
    for (int i = 0; i < kClockSlots; ++i) sums_[i] = 0;
    sums_[kLast] = sums_[kFirst] = clock64();
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
  }
  // The block's windows are done: its sums go to the batch's counters.
  __device__ void finish() {
    if (!on()) return;
    sums_[kClockBlockCycles] = sums_[kLast] - sums_[kFirst];
    sums_[kClockBlocks] = 1;
    for (int i = 0; i < kClockSlots; ++i) {
      if (sums_[i] != 0) atomicAdd(counters_ + i, sums_[i]);
    }
  }

 private:
  static constexpr int kLast = kClockSlots, kFirst = kClockSlots + 1;
  __device__ bool on() const { return counters_ != nullptr && threadIdx.x == 0; }

  unsigned long long* counters_;
  unsigned long long* sums_;
};

}  // namespace embed::cuda
