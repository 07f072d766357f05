// Whether a GPU can run this build's kernels, and what to say when the driver is the
// problem. Plain C++ (no CUDA header), so the unit tests check it on every build.
#pragma once

#include <span>
#include <string>

namespace embed::cuda {

// Compute capabilities as CMake spells them: 86 is sm_86 (major 8, minor 6).
// Machine code for sm_XY runs on devices of major X and minor ≥ Y; PTX for compute_XY
// is compiled by the driver for any device of capability ≥ XY.
inline bool build_covers(std::span<const int> real, std::span<const int> ptx, int major, int minor) {
  if (real.empty() && ptx.empty()) return true;  // the build did not say (native, all): try it
  const int capability = major * 10 + minor;
  for (int arch : real) {
    if (arch / 10 == major && arch % 10 <= minor) return true;
  }
  for (int arch : ptx) {
    if (arch <= capability) return true;
  }
  return false;
}

// "sm_80, sm_86, sm_89, sm_90 and PTX for compute_90".
inline std::string describe_build_architectures(std::span<const int> real, std::span<const int> ptx) {
  std::string text;
  for (int arch : real) text += (text.empty() ? "sm_" : ", sm_") + std::to_string(arch);
  if (!ptx.empty()) {
    text += text.empty() ? "PTX for " : " and PTX for ";
    for (std::size_t i = 0; i < ptx.size(); ++i) text += (i ? ", compute_" : "compute_") + std::to_string(ptx[i]);
  }
  return text;
}

// Why the CUDA runtime found no device, when the driver explains it: none installed
// (driver version 0), or one older than the runtime this build links (13000 = 13.0).
// Empty when the driver is new enough, so that the runtime's own reason stands.
inline std::string driver_problem(int driver_version, int runtime_version) {
  auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
  if (driver_version <= 0) return "no NVIDIA driver was found (libcuda.so.1 could not be loaded)";
  if (driver_version < runtime_version) {
    return "the NVIDIA driver supports CUDA " + version(driver_version) + ", older than the CUDA " +
           version(runtime_version) + " this build needs; update the driver or use --device cpu";
  }
  return {};
}

}  // namespace embed::cuda
