// bench-gpu-bandwidth: the first GPU's measured copy rates, for bench-gpu.sh's roofline.
// Prints "device_GBps X", "h2d_GBps Y", "d2h_GBps Z"; exits 77 without a usable GPU.
#include <cstdio>
#include <string>

#include "bandwidth.h"
#include "core/error.h"
#include "device_info.h"

int main() {
  std::string why;
  if (embed::cuda::list_devices(&why).empty()) {
    std::fprintf(stderr, "bench-gpu-bandwidth: no usable GPU (%s)\n", why.c_str());
    return 77;
  }
  try {
    const embed::cuda::Bandwidth b = embed::cuda::measure_bandwidth(std::size_t{1} << 30);
    std::printf("device_GBps %.1f\nh2d_GBps %.1f\nd2h_GBps %.1f\n", b.device_gbps, b.host_to_device_gbps,
                b.device_to_host_gbps);
  } catch (const embed::Error& e) {
    std::fprintf(stderr, "bench-gpu-bandwidth: %s\n", e.what());
    return 1;
  }
  return 0;
}
