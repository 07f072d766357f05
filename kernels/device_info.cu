#include "device_info.h"

#include <cstdio>

#include <cuda_runtime.h>

namespace embed::cuda {

std::vector<DeviceInfo> list_devices(std::string* why_none) {
  std::vector<DeviceInfo> devices;
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    if (why_none) *why_none = cudaGetErrorString(status);
    cudaGetLastError();  // clear the sticky error so later calls start clean
    return devices;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
    devices.push_back({i, prop.name, prop.totalGlobalMem, prop.major, prop.minor});
  }
  if (devices.empty() && why_none) *why_none = "no CUDA device found";
  return devices;
}

std::string describe_devices() {
  std::string why;
  const auto devices = list_devices(&why);
  if (devices.empty()) return "no usable device (" + why + ")";
  std::string text = std::to_string(devices.size()) + (devices.size() == 1 ? " device: " : " devices: ");
  for (std::size_t i = 0; i < devices.size(); ++i) {
    char line[256];
    std::snprintf(line, sizeof line, "%s%s (%.1f GiB, sm_%d%d)", i ? "; " : "", devices[i].name.c_str(),
                  static_cast<double>(devices[i].total_memory) / (1u << 30), devices[i].compute_major,
                  devices[i].compute_minor);
    text += line;
  }
  return text;
}

}  // namespace embed::cuda
