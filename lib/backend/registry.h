// The device backends: the compute APIs besides the CPU that this build includes, one
// registry entry each (registry.cpp). The only file in lib/ that knows whether CUDA was
// built (EMBED_HAVE_CUDA); everything else asks here. A backend fills in the hooks that
// training (GpuTrainer) and search (GpuSearcher) call, so the tools never name its API.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "device/gpu_device.h"
#include "search/gpu_index.h"
#include "train/gpu/gpu_backend.h"

namespace embed {

struct DeviceBackend {
  DeviceChoice device;   // its --device value (DeviceChoice::automatic picks the first)
  std::string_view api;  // "CUDA", for --version
  // What the machine offers it, for --version: "1 device: NVIDIA H100 80GB HBM3 (79.1
  // GiB, sm_90); GPU code for sm_80, ..." or "no usable device (why); GPU code for ...".
  std::string (*summary)();
  // Its usable devices with their --gpu numbers: "0 NVIDIA H100 ... ; 1 ...", or "none (why)".
  std::string (*devices)();
  GpuTrainer (*trainer)();
  GpuSearcher (*searcher)();
};

// The backends this build has, in the order --device auto tries them (none when it was
// built without CUDA).
std::span<const DeviceBackend> device_backends();
// The backend `device` runs on (auto: the first): nullptr for the CPU or one not built.
const DeviceBackend* device_backend(DeviceChoice device);

// True when this build includes the CUDA backend (nvcc was found at configure time).
bool cuda_built();

// One line for --version: "CPU; CUDA backend built, 1 device: NVIDIA H100 80GB HBM3 (79.1 GiB,
// sm_90); GPU code for sm_80, ...", "CPU; CUDA backend built, no usable device (why); GPU code
// for ..." or "CPU only (built without CUDA)".
std::string backend_summary();

// Every usable GPU with its --gpu number, for --version's "gpus:" line:
// "0 NVIDIA H100 80GB HBM3 (79.1 GiB, sm_90); 1 ...", or "none (why)".
std::string gpu_summary();

// The GPU trainer and searcher of the backend `device` picks: empty functions when this
// build has none (built without CUDA).
GpuTrainer gpu_trainer(DeviceChoice device = DeviceChoice::automatic);
GpuSearcher gpu_searcher(DeviceChoice device = DeviceChoice::automatic);

}  // namespace embed
