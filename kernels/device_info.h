// CUDA device discovery, behind a plain C++ header: no CUDA type leaks to callers.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace embed::cuda {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  std::size_t total_memory = 0;  // bytes
  int compute_major = 0;
  int compute_minor = 0;

  // "NVIDIA H100 80GB HBM3 (79.1 GiB, sm_90)"
  std::string description() const;
};

// The usable devices: those this build has kernels for (device_support.h). A machine
// with no GPU, no driver, a driver older than the runtime, or only GPUs the build does
// not cover has none: that is not an error, and `why_none` receives the reason.
std::vector<DeviceInfo> list_devices(std::string* why_none = nullptr);

// "1 device: NVIDIA H100 80GB HBM3 (79.1 GiB, sm_90)" or "no usable device (reason)".
std::string describe_devices();

// "sm_80, sm_86, sm_89, sm_90 and PTX for compute_90" (or "unspecified").
std::string built_architectures();

// The first usable device, made current, with its free memory (which creates its
// context); nullopt with the reason otherwise.
struct SelectedDevice {
  DeviceInfo info;
  std::size_t free_memory = 0;
};
std::optional<SelectedDevice> select_first_device(std::string& why_not);

}  // namespace embed::cuda
