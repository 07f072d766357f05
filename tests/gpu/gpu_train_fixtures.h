// What the GPU training tests share: the device they run on, the table placements
// they try, and a Catch2 runner that exits 77 (skipped) where no device is usable.
#pragma once

#include <catch2/catch.hpp>

#include <cstdio>
#include <optional>
#include <string>

#include "backend/registry.h"

namespace embed::test {

inline GpuDevice the_device;

struct Placement {
  TablePlacement table;
  HostTransfer transfer;
  const char* name;
};
inline const Placement kPlacements[] = {{TablePlacement::device, HostTransfer::gather, "device"},
                                        {TablePlacement::host, HostTransfer::gather, "host, gather"},
                                        {TablePlacement::host, HostTransfer::mapped, "host, mapped"}};

// The body of main(): finds the device, or returns 77 without one.
inline int run_gpu_tests(int argc, char** argv) {
  std::string why;
  const GpuTrainer trainer = gpu_trainer();
  const std::optional<GpuDevice> device = trainer.built() ? trainer.find_device(0, why) : std::nullopt;
  if (!device) {
    std::printf("skipped: no usable CUDA device (%s)\n", why.c_str());
    return 77;
  }
  the_device = *device;
  std::printf("device: %s, %.1f GiB free\n", device->description().c_str(),
              static_cast<double>(device->free_memory) / (1u << 30));
  return Catch::Session().run(argc, argv);
}

}  // namespace embed::test
