// The device backends of this build: a new one is its folder beside kernels/, its
// DeviceChoice, and one entry in kBackends behind its own build option.
#include "backend/registry.h"

#include <algorithm>

#ifdef EMBED_HAVE_CUDA
#include "kernels/common/device_info.h"
#include "kernels/search/cuda_searcher.h"
#include "kernels/train/cuda_glove_backend.h"
#include "kernels/train/cuda_word2vec_backend.h"
#endif

namespace embed {

namespace {

#ifdef EMBED_HAVE_CUDA
const DeviceBackend kBackends[] = {
    {.device = DeviceChoice::cuda,
     .api = "CUDA",
     .summary = [] { return cuda::describe_devices() + "; GPU code for " + cuda::built_architectures(); },
     .devices = cuda::list_device_ordinals,
     .trainer = []() -> GpuTrainer {
       return {cuda::open_device, cuda::usable_ordinals, cuda::make_cuda_word2vec_backend, cuda::make_cuda_glove_backend};
     },
     .searcher = []() -> GpuSearcher {
       return {cuda::find_search_device, cuda::make_cuda_searcher};
     }},
};
#else
// A build without a GPU API: the CPU only (an empty span; this keeps the type).
const std::span<const DeviceBackend> kBackends;
#endif

}  // namespace

std::span<const DeviceBackend> device_backends() { return kBackends; }

const DeviceBackend* device_backend(DeviceChoice device) {
  const std::span<const DeviceBackend> backends = device_backends();
  if (device == DeviceChoice::cpu || backends.empty()) return nullptr;
  if (device == DeviceChoice::automatic) return &backends.front();
  const auto found = std::find_if(backends.begin(), backends.end(), [&](const DeviceBackend& b) { return b.device == device; });
  return found == backends.end() ? nullptr : &*found;
}

bool cuda_built() { return device_backend(DeviceChoice::cuda) != nullptr; }

std::string backend_summary() {
  if (device_backends().empty()) return "CPU only (built without CUDA)";
  std::string text = "CPU";
  for (const DeviceBackend& backend : device_backends()) {
    text += "; " + std::string(backend.api) + " backend built, " + backend.summary();
  }
  return text;
}

std::string gpu_summary() {
  if (device_backends().empty()) return "none (built without CUDA)";
  std::string text;
  for (const DeviceBackend& backend : device_backends()) text += (text.empty() ? "" : "; ") + backend.devices();
  return text;
}

GpuTrainer gpu_trainer(DeviceChoice device) {
  const DeviceBackend* backend = device_backend(device);
  return backend ? backend->trainer() : GpuTrainer{};
}

GpuSearcher gpu_searcher(DeviceChoice device) {
  const DeviceBackend* backend = device_backend(device);
  return backend ? backend->searcher() : GpuSearcher{};
}

}  // namespace embed
