#include "kernels/common/device_info.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <span>

#include <cuda_runtime.h>

#include "cuda_architectures.h"
#include "kernels/common/device_support.h"

namespace embed::cuda {
namespace {

// From kernels/CMakeLists.txt: the architectures nvcc built for, each followed by a comma.
constexpr int kRealArchitectures[] = {EMBED_CUDA_REAL_ARCHS 0};
constexpr int kPtxArchitectures[] = {EMBED_CUDA_PTX_ARCHS 0};

// The lists above without their terminating 0 (an array cannot be empty).
std::span<const int> real_architectures() { return {kRealArchitectures, std::size(kRealArchitectures) - 1}; }
std::span<const int> ptx_architectures() { return {kPtxArchitectures, std::size(kPtxArchitectures) - 1}; }

// Why cudaGetDeviceCount failed, in the user's terms where the driver explains it.
std::string no_device_reason(cudaError_t status) {
  int driver = 0;
  if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;
  std::string reason = driver_problem(driver, CUDART_VERSION);
  return reason.empty() ? cudaGetErrorString(status) : reason;
}

// "0 NVIDIA H100 80GB HBM3 (79.1 GiB, sm_90); 1 ...".
std::string ordinals_of(const std::vector<GpuDevice>& devices) {
  std::string text;
  for (const GpuDevice& device : devices) {
    text += (text.empty() ? "" : "; ") + std::to_string(device.ordinal) + " " + device.description();
  }
  return text;
}

}  // namespace

std::string built_architectures() {
  const std::string text = describe_build_architectures(real_architectures(), ptx_architectures());
  return text.empty() ? "unspecified" : text;
}

std::vector<GpuDevice> list_devices(std::string* why_none) {
  std::vector<GpuDevice> devices;
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();  // clear the error so later calls start clean
    if (why_none) *why_none = no_device_reason(status);
    return devices;
  }
  std::string refused;
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) {
      cudaGetLastError();
      continue;
    }
    GpuDevice device;
    device.ordinal = i;
    device.name = prop.name;
    device.total_memory = prop.totalGlobalMem;
    device.compute_major = prop.major;
    device.compute_minor = prop.minor;
    device.shared_memory = prop.sharedMemPerBlockOptin;
    // Refused here rather than failing at the first launch with "no kernel image".
    if (!build_covers(real_architectures(), ptx_architectures(), prop.major, prop.minor)) {
      refused += (refused.empty() ? "" : "; ") + device.name + " is sm_" + std::to_string(prop.major) +
                 std::to_string(prop.minor) + ", which this build has no code for (it has " + built_architectures() +
                 "; rebuild with -DCMAKE_CUDA_ARCHITECTURES=" + std::to_string(prop.major) + std::to_string(prop.minor) + ")";
      continue;
    }
    devices.push_back(std::move(device));
  }
  if (devices.empty() && why_none) *why_none = refused.empty() ? "no CUDA device found" : refused;
  return devices;
}

std::string describe_devices() {
  std::string why;
  const auto devices = list_devices(&why);
  if (devices.empty()) return "no usable device (" + why + ")";
  std::string text = std::to_string(devices.size()) + (devices.size() == 1 ? " device: " : " devices: ");
  for (std::size_t i = 0; i < devices.size(); ++i) text += (i ? "; " : "") + devices[i].description();
  return text;
}

std::string list_device_ordinals() {
  std::string why;
  const auto devices = list_devices(&why);
  return devices.empty() ? "none (" + why + ")" : ordinals_of(devices);
}

std::vector<int> usable_ordinals() {
  std::vector<int> ordinals;
  for (const GpuDevice& device : list_devices()) ordinals.push_back(device.ordinal);
  return ordinals;
}

std::optional<GpuDevice> open_device(int ordinal, std::string& why_not) {
  const std::vector<GpuDevice> devices = list_devices(&why_not);
  if (devices.empty()) return std::nullopt;
  const auto found = std::find_if(devices.begin(), devices.end(), [&](const GpuDevice& d) { return d.ordinal == ordinal; });
  if (found == devices.end()) {
    why_not = "--gpu " + std::to_string(ordinal) + " is not among the usable devices (" + ordinals_of(devices) + ")";
    return std::nullopt;
  }
  GpuDevice device = *found;
  if (const cudaError_t status = cudaSetDevice(device.ordinal); status != cudaSuccess) {
    cudaGetLastError();
    why_not = cudaGetErrorString(status);
    return std::nullopt;
  }
  std::size_t free = 0, total = 0;
  if (const cudaError_t status = cudaMemGetInfo(&free, &total); status != cudaSuccess) {
    cudaGetLastError();
    why_not = cudaGetErrorString(status);
    return std::nullopt;
  }
  device.free_memory = free;
  return device;
}

}  // namespace embed::cuda
