#include "kernels/train/kernel_clocks.h"

#include <fmt/format.h>

namespace embed::cuda {

double measured_clock_mhz(const std::uint64_t (&counters)[kClockSlots], double peak_mhz) {
  if (counters[kClockBlockNanos] == 0) return peak_mhz;
  // Cycles per nanosecond are GHz: a thousand times that is MHz.
  return 1e3 * static_cast<double>(counters[kClockBlockCycles]) / static_cast<double>(counters[kClockBlockNanos]);
}

std::string describe_kernel_clocks(const std::uint64_t (&counters)[kClockSlots], bool rows_kernel, double peak_mhz) {
  const double clock_mhz = measured_clock_mhz(counters, peak_mhz);
  const std::uint64_t windows = counters[kClockWindows];
  if (windows == 0) return {};
  std::uint64_t window_cycles = 0;
  for (int phase = 0; phase < kClockPhases; ++phase) window_cycles += counters[phase];
  const double per_window = static_cast<double>(window_cycles) / static_cast<double>(windows);
  const char* const* names = rows_kernel ? kRowsKernelPhases : kBlockKernelPhases;
  std::string phases;
  for (int phase = 0; phase < kClockPhases; ++phase) {
    phases +=
        fmt::format("{}{} {:.1f}%", phase ? ", " : "", names[phase],
                    window_cycles ? 100.0 * static_cast<double>(counters[phase]) / static_cast<double>(window_cycles) : 0.0);
  }
  const std::uint64_t blocks = counters[kClockBlocks];
  const double block_cycles = blocks ? static_cast<double>(counters[kClockBlockCycles]) / static_cast<double>(blocks) : 0.0;
  return fmt::format(
      "kernel clocks ({} kernel): {} windows, {:.2f} inputs each; a window {:.0f} cycles ({:.2f} us at {:.0f} MHz{}): {}; "
      "a block's run of windows {:.0f} cycles ({:.1f} us, {:.1f} windows), {} blocks",
      rows_kernel ? "rows" : "block", windows, static_cast<double>(counters[kClockInputs]) / static_cast<double>(windows),
      per_window, clock_mhz > 0 ? per_window / clock_mhz : 0.0, clock_mhz,
      counters[kClockBlockNanos] > 0 ? fmt::format(" measured, {:.0f} peak", peak_mhz) : " peak", phases, block_cycles,
      clock_mhz > 0 ? block_cycles / clock_mhz : 0.0, blocks ? static_cast<double>(windows) / static_cast<double>(blocks) : 0.0,
      blocks);
}

}  // namespace embed::cuda
