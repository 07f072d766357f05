// The one idea of a GPU that training and search share: which device (its CUDA
// ordinal, chosen with --gpu), what it is, and how much of its memory a run may plan
// for. Plain C++: lib/ never includes CUDA headers; kernels/common/device_info.cpp
// fills these in, and backend/registry.h hands that to the tools.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace embed {

// Where the tools compute (--device on embed-train and embed-query).
enum class DeviceChoice { cpu, cuda, automatic };

std::string_view device_choice_name(DeviceChoice device);  // "cpu", "cuda", "auto"
std::optional<DeviceChoice> parse_device_choice(std::string_view name);
std::vector<std::string> device_choice_names();

struct GpuDevice {
  int ordinal = 0;   // the CUDA device number (--gpu)
  std::string name;  // "NVIDIA H100 80GB HBM3"
  std::uint64_t total_memory = 0;
  std::uint64_t free_memory = 0;  // when the device was opened (0 from a listing)
  int compute_major = 0;
  int compute_minor = 0;
  std::size_t shared_memory = 0;  // bytes of shared memory a thread block may opt in to

  // "NVIDIA H100 80GB HBM3 (79.1 GiB, sm_90)"
  std::string description() const;
};

// What the user asked for: the device, the GPU's ordinal and its memory budget.
struct GpuRequest {
  DeviceChoice device = DeviceChoice::cpu;
  int ordinal = 0;           // --gpu
  std::uint64_t memory = 0;  // --gpu-memory; 0: default_gpu_budget
};

// The GPU a rank of a data-parallel run (mpirun) trains on: the one `local_rank` places
// after --gpu among the machine's `usable` ordinals, wrapping around, so that ranks share
// the GPUs when a machine has fewer than ranks (two ranks on one GPU each take half its
// memory budget by default; their kernels interleave). A --gpu that is not usable is
// returned as it is, for the error that names it.
int gpu_for_rank(int requested, unsigned local_rank, const std::vector<int>& usable);

// Device memory a run may plan for when --gpu-memory is not given: 90% of what is free,
// leaving room for the CUDA context's own allocations and other processes' growth.
inline std::uint64_t default_gpu_budget(std::uint64_t free_bytes) { return free_bytes / 10 * 9; }
inline std::uint64_t gpu_budget(const GpuRequest& request, const GpuDevice& device) {
  return request.memory ? request.memory : default_gpu_budget(device.free_memory);
}

// Throws UsageError "OPTION applies to --device cuda or auto only" for the first of
// `gpu_options` among `given` (the long names on the command line) when `device` is cpu.
void check_gpu_options(DeviceChoice device, const std::set<std::string>& given,
                       std::initializer_list<std::string_view> gpu_options);

// Why a build without CUDA has no GPU, for every message that needs to say so.
inline constexpr std::string_view kNoCudaBackend =
    "this build has no CUDA backend (configure with -DEMBED_CUDA=ON where nvcc is, or on a machine with a GPU)";

}  // namespace embed
