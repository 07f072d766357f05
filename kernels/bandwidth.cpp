#include "bandwidth.h"

#include <algorithm>

#include <cuda_runtime.h>

#include "cuda_memory.h"

namespace embed::cuda {
namespace {

// Best seconds of `runs` timed copies.
double best_seconds(void* to, const void* from, std::size_t bytes, cudaMemcpyKind kind, int runs) {
  const Event start_event(true), stop_event(true);
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

}  // namespace

Bandwidth measure_bandwidth(std::size_t bytes) {
  DeviceBuffer a(bytes, "the bandwidth test"), b(bytes, "the bandwidth test");
  PinnedBuffer host(bytes, "the bandwidth test");
  check(cudaMemset(a.get(), 1, bytes), "filling the bandwidth test");
  Bandwidth result;
  const double gb = static_cast<double>(bytes) / 1e9;
  result.device_gbps = 2 * gb / best_seconds(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice, 10);
  result.host_to_device_gbps = gb / best_seconds(a.get(), host.get(), bytes, cudaMemcpyHostToDevice, 5);
  result.device_to_host_gbps = gb / best_seconds(host.get(), a.get(), bytes, cudaMemcpyDeviceToHost, 5);
  return result;
}

}  // namespace embed::cuda
