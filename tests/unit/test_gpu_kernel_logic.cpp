// The word2vec kernels' launch arithmetic and their clocks' report (kernels/train/
// kernel_lanes.h, kernel_clocks.h: plain C++, checked on every build).
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "kernels/train/kernel_clocks.h"
#include "kernels/train/kernel_lanes.h"

using namespace embed::cuda;

TEST_CASE("a batch's kernel runs at most a block per run of max inputs + 1 windows", "[gpu-kernels]") {
  // Skip-gram at window 5: 10 inputs at most, runs of 11 windows.
  CHECK(full_batch_blocks(20000, 10) == 1818);
  CHECK(full_batch_blocks(10593, 10) == 963);  // a 20,000-word batch after subsampling
  CHECK(full_batch_blocks(5, 10) == 1);        // never none
  CHECK(full_batch_blocks(0, 10) == 1);
}

TEST_CASE("kernel lanes are what EMBED_GPU_KERNEL_LANES asks, within the windows in flight", "[gpu-kernels]") {
  CHECK(kernel_lanes_from(nullptr, 512, 963) == 1);
  CHECK(kernel_lanes_from("4", 4096, 963) == 4);
  CHECK(kernel_lanes_from("0", 512, 963) == 1);
  CHECK(kernel_lanes_from("junk", 512, 963) == 1);
  CHECK(kernel_lanes_from("99", 512, 963) == 16);
  // Never more lanes than windows in flight: each lane runs at least one block, and the
  // lanes' blocks together no more than EMBED_GPU_WINDOWS allows (issue 71's point 4).
  CHECK(kernel_lanes_from("8", 4, 963) == 4);
  CHECK(kernel_lanes_from("16", 1, 963) == 1);
  // auto: as many full batches' kernels as fit, 1 to 8.
  CHECK(kernel_lanes_from("auto", 512, 236) == 2);   // host placement at 1/4
  CHECK(kernel_lanes_from("auto", 512, 59) == 8);    // at 1/16: capped at 8
  CHECK(kernel_lanes_from("auto", 512, 1818) == 1);  // device placement's full batches
  CHECK(kernel_lanes_from("auto", 4, 1) == 4);       // within the windows in flight
}

TEST_CASE("the windows in flight are the lanes' caps or their batches' blocks", "[gpu-kernels]") {
  CHECK(lane_blocks(512, 1) == 512);
  CHECK(lane_blocks(4096, 4) == 1024);
  CHECK(lane_blocks(3, 4) == 1);
  CHECK(windows_in_flight(512, 1, 1818) == 512);
  // device-warp's 4,096 windows: one lane runs one batch's 963 blocks (issue 71's point 1),
  // four lanes about four times that.
  CHECK(windows_in_flight(4096, 1, 963) == 963);
  CHECK(windows_in_flight(4096, 4, 963) == 3852);
  CHECK(windows_in_flight(4096, 4, 2000) == 4096);
  CHECK(windows_in_flight(512, 2, 236) == 472);
}

namespace {

// Counters as the kernels' blocks leave them: `blocks` blocks, each timing `windows_each`
// windows of `phase_cycles` per phase over `nanos_each` nanoseconds.
void fill(std::uint64_t (&counters)[kClockSlots], std::uint64_t blocks, std::uint64_t windows_each, std::uint64_t phase_cycles,
          std::uint64_t nanos_each) {
  for (auto& counter : counters) counter = 0;
  for (int phase = 0; phase < kClockPhases; ++phase) counters[phase] = blocks * windows_each * phase_cycles;
  counters[kClockWindows] = blocks * windows_each;
  counters[kClockInputs] = blocks * windows_each * 8;
  counters[kClockBlockCycles] = blocks * windows_each * kClockPhases * phase_cycles;
  counters[kClockBlockNanos] = blocks * nanos_each;
  counters[kClockBlocks] = blocks;
}

}  // namespace

TEST_CASE("the kernels' clocks convert at the clock the SMs ran at", "[gpu-kernels]") {
  std::uint64_t counters[kClockSlots];
  // 10 blocks of 4 windows, 600 cycles each (100 a phase) in 0.5 us a window: 1,200 MHz,
  // where the device reports a peak of 1,980.
  fill(counters, 10, 4, 100, 2000);
  CHECK(measured_clock_mhz(counters, 1980) == Approx(1200));
  const std::string line = describe_kernel_clocks(counters, false, 1980);
  INFO(line);
  CHECK(line.find("40 windows, 8.00 inputs each; a window 600 cycles (0.50 us at 1200 MHz measured, 1980 peak)") !=
        std::string::npos);
  CHECK(line.find("lists 16.7%, loads 16.7%, scores 16.7%, steps 16.7%, loss 16.7%, outputs 16.7%") != std::string::npos);
  CHECK(line.find("a block's run of windows 2400 cycles (2.0 us, 4.0 windows), 10 blocks") != std::string::npos);
  // No time read: the peak, said to be one.
  counters[kClockBlockNanos] = 0;
  CHECK(measured_clock_mhz(counters, 1980) == 1980);
  CHECK(describe_kernel_clocks(counters, true, 1980).find("us at 1980 MHz peak)") != std::string::npos);
  // Nothing timed: nothing to say.
  fill(counters, 0, 0, 0, 0);
  CHECK(describe_kernel_clocks(counters, false, 1980).empty());
}
