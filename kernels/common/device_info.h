// CUDA device discovery, behind a plain C++ header: no CUDA type leaks to callers.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "device/gpu_device.h"

namespace embed::cuda {

// The usable devices: those this build has kernels for (device_support.h). A machine
// with no GPU, no driver, a driver older than the runtime, or only GPUs the build does
// not cover has none: that is not an error, and `why_none` receives the reason.
std::vector<GpuDevice> list_devices(std::string* why_none = nullptr);

// "1 device: NVIDIA H100 80GB HBM3 (79.1 GiB, sm_90)" or "no usable device (reason)".
std::string describe_devices();
// Every usable device with its ordinal: "0 NVIDIA H100 80GB HBM3 (79.1 GiB, sm_90); 1 ..."
// or "none (reason)".
std::string list_device_ordinals();
// The usable devices' ordinals, in order.
std::vector<int> usable_ordinals();

// "sm_80, sm_86, sm_89, sm_90 and PTX for compute_90" (or "unspecified").
std::string built_architectures();

// Device `ordinal` when it is usable, made current, with its free memory (which
// creates its context) and its shared memory per block; nullopt with the reason
// otherwise (no such device among the usable ones, no driver, a CUDA error).
std::optional<GpuDevice> open_device(int ordinal, std::string& why_not);

}  // namespace embed::cuda
