// Measured transfer rates of the first GPU, for the benchmarks' rooflines.
#pragma once

#include <cstddef>

namespace embed::cuda {

struct Bandwidth {
  double device_gbps = 0;          // device-to-device copy: bytes read plus bytes written, per second
  double host_to_device_gbps = 0;  // from pinned host memory
  double device_to_host_gbps = 0;  // to pinned host memory
};

// Times copies of `bytes` (best of several); throws embed::Error on a CUDA failure.
Bandwidth measure_bandwidth(std::size_t bytes);

}  // namespace embed::cuda
