// Which GPUs a CUDA build can run on, what it says when the driver is the problem, and
// which GPU each rank of an mpirun job takes
// (kernels/common/device_support.h, device/gpu_device.h: plain C++, checked on every build).
#include <catch2/catch.hpp>

#include <vector>

#include "device/gpu_device.h"
#include "kernels/common/device_support.h"

using namespace embed::cuda;

TEST_CASE("a build covers the GPUs its machine code or PTX can run on", "[gpu-discovery]") {
  // The default build: sm_80, sm_86, sm_89 and sm_90 code, compute_90 PTX.
  const std::vector<int> real{80, 86, 89, 90}, ptx{90};
  CHECK(build_covers(real, ptx, 8, 0));   // A100
  CHECK(build_covers(real, ptx, 8, 6));   // A10, RTX 30xx
  CHECK(build_covers(real, ptx, 8, 7));   // Jetson Orin: sm_86 code runs on 8.7
  CHECK(build_covers(real, ptx, 8, 9));   // L4, L40
  CHECK(build_covers(real, ptx, 9, 0));   // H100, H200
  CHECK(build_covers(real, ptx, 10, 0));  // B200: the driver compiles the PTX
  CHECK(build_covers(real, ptx, 12, 0));
  CHECK_FALSE(build_covers(real, ptx, 7, 5));  // T4: older than any code in the build
  CHECK_FALSE(build_covers(real, ptx, 7, 0));  // V100
  // An H100-only build (the device kit's): sm_90 code and PTX.
  const std::vector<int> hopper{90};
  CHECK(build_covers(hopper, hopper, 9, 0));
  CHECK_FALSE(build_covers(hopper, hopper, 8, 0));
  CHECK_FALSE(build_covers(hopper, hopper, 8, 9));
  // Machine code alone does not run on a later major version.
  const std::vector<int> none;
  CHECK_FALSE(build_covers(std::vector<int>{80}, none, 9, 0));
  CHECK(build_covers(none, std::vector<int>{80}, 9, 0));
  // A build that did not say (native, all): every device is tried.
  CHECK(build_covers(none, none, 5, 0));
}

TEST_CASE("the built architectures are named as nvcc does", "[gpu-discovery]") {
  const std::vector<int> real{80, 86, 89, 90}, ptx{90}, none;
  CHECK(describe_build_architectures(real, ptx) == "sm_80, sm_86, sm_89, sm_90 and PTX for compute_90");
  CHECK(describe_build_architectures(real, none) == "sm_80, sm_86, sm_89, sm_90");
  CHECK(describe_build_architectures(none, ptx) == "PTX for compute_90");
}

TEST_CASE("a missing or old driver is named, not reported as a runtime error", "[gpu-discovery]") {
  CHECK(driver_problem(0, 13000) == "no NVIDIA driver was found (libcuda.so.1 could not be loaded)");
  CHECK(driver_problem(12040, 13000) ==
        "the NVIDIA driver supports CUDA 12.4, older than the CUDA 13.0 this build needs; update the driver or use "
        "--device cpu");
  CHECK(driver_problem(13000, 13000).empty());
  CHECK(driver_problem(13010, 13000).empty());
}

TEST_CASE("mpirun's ranks take the GPUs past --gpu in turn, sharing them when there are fewer", "[gpu-discovery]") {
  using embed::gpu_for_rank;
  const std::vector<int> one{0}, four{0, 1, 2, 3}, gaps{0, 2, 5};
  // Two ranks on one GPU (the lent machines): both on GPU 0.
  CHECK(gpu_for_rank(0, 0, one) == 0);
  CHECK(gpu_for_rank(0, 1, one) == 0);
  // One GPU each, from --gpu on, wrapping around.
  CHECK(gpu_for_rank(0, 3, four) == 3);
  CHECK(gpu_for_rank(2, 1, four) == 3);
  CHECK(gpu_for_rank(2, 2, four) == 0);
  CHECK(gpu_for_rank(1, 7, four) == 0);
  // Unusable devices (refused architectures) are skipped.
  CHECK(gpu_for_rank(2, 1, gaps) == 5);
  CHECK(gpu_for_rank(2, 2, gaps) == 0);
  // A --gpu that is not usable comes back unchanged, for the error that names it.
  CHECK(gpu_for_rank(1, 1, gaps) == 1);
  CHECK(gpu_for_rank(4, 0, four) == 4);
  CHECK(gpu_for_rank(0, 1, {}) == 0);
}
