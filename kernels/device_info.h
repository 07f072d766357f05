// CUDA device discovery, behind a plain C++ header: no CUDA type leaks to callers.
#pragma once

#include <string>
#include <vector>

namespace embed::cuda {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  std::size_t total_memory = 0;  // bytes
  int compute_major = 0;
  int compute_minor = 0;
};

// The usable devices. A machine with no GPU, or no driver (cudaGetDeviceCount fails),
// has none: that is not an error. `why_none` receives the runtime's reason when empty.
std::vector<DeviceInfo> list_devices(std::string* why_none = nullptr);

// "1 device: NVIDIA H100 80GB HBM3 (79.1 GiB, sm_90)" or "no usable device (reason)".
std::string describe_devices();

}  // namespace embed::cuda
