// bench-gpu-bandwidth: the first GPU's measured copy rates, for scripts/bench/gpu.sh's
// roofline. Prints "device_GBps X", "h2d_GBps Y", "d2h_GBps Z"; exits 77 without a
// usable GPU.
#include <algorithm>
#include <cstdio>
#include <string>

#include <cuda_runtime.h>

#include "core/error.h"
#include "kernels/common/cuda_memory.h"
#include "kernels/common/device_info.h"

namespace {

using embed::cuda::check;

struct Bandwidth {
  double device_gbps = 0;          // device-to-device copy: bytes read plus bytes written, per second
  double host_to_device_gbps = 0;  // from pinned host memory
  double device_to_host_gbps = 0;  // to pinned host memory
};

// Best seconds of `runs` timed copies.
double best_seconds(void* to, const void* from, std::size_t bytes, cudaMemcpyKind kind, int runs) {
  const embed::cuda::Event start_event(true), stop_event(true);
  cudaEvent_t start = start_event.get(), stop = stop_event.get();
  double best = 1e30;
  for (int i = 0; i < runs; ++i) {
    check(cudaEventRecord(start), "timing a copy");
    check(cudaMemcpyAsync(to, from, bytes, kind), "timing a copy");
    check(cudaEventRecord(stop), "timing a copy");
    check(cudaEventSynchronize(stop), "timing a copy");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "timing a copy");
    best = std::min(best, static_cast<double>(ms) / 1e3);
  }
  return best;
}

// Times copies of `bytes` (best of several); throws embed::Error on a CUDA failure.
Bandwidth measure_bandwidth(std::size_t bytes) {
  embed::cuda::DeviceBuffer a(bytes, "the bandwidth test"), b(bytes, "the bandwidth test");
  embed::cuda::PinnedBuffer host(bytes, "the bandwidth test");
  check(cudaMemset(a.get(), 1, bytes), "filling the bandwidth test");
  Bandwidth result;
  const double gb = static_cast<double>(bytes) / 1e9;
  result.device_gbps = 2 * gb / best_seconds(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice, 10);
  result.host_to_device_gbps = gb / best_seconds(a.get(), host.get(), bytes, cudaMemcpyHostToDevice, 5);
  result.device_to_host_gbps = gb / best_seconds(host.get(), a.get(), bytes, cudaMemcpyDeviceToHost, 5);
  return result;
}

}  // namespace

int main() {
  std::string why;
  if (embed::cuda::list_devices(&why).empty()) {
    std::fprintf(stderr, "bench-gpu-bandwidth: no usable GPU (%s)\n", why.c_str());
    return 77;
  }
  try {
    const Bandwidth b = measure_bandwidth(std::size_t{1} << 30);
    std::printf("device_GBps %.1f\nh2d_GBps %.1f\nd2h_GBps %.1f\n", b.device_gbps, b.host_to_device_gbps,
                b.device_to_host_gbps);
  } catch (const embed::Error& e) {
    std::fprintf(stderr, "bench-gpu-bandwidth: %s\n", e.what());
    return 1;
  }
  return 0;
}
