#include "backend/registry.h"

#ifdef EMBED_HAVE_CUDA
#include "kernels/common/device_info.h"
#include "kernels/search/cuda_searcher.h"
#include "kernels/train/cuda_glove_backend.h"
#include "kernels/train/cuda_word2vec_backend.h"
#endif

namespace embed {

bool cuda_built() {
#ifdef EMBED_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

std::string backend_summary() {
#ifdef EMBED_HAVE_CUDA
  return "CPU; CUDA backend built, " + cuda::describe_devices() + "; GPU code for " + cuda::built_architectures();
#else
  return "CPU only (built without CUDA)";
#endif
}

std::string gpu_summary() {
#ifdef EMBED_HAVE_CUDA
  return cuda::list_device_ordinals();
#else
  return "none (built without CUDA)";
#endif
}

GpuTrainer gpu_trainer() {
#ifdef EMBED_HAVE_CUDA
  return {cuda::open_device, cuda::make_cuda_word2vec_backend, cuda::make_cuda_glove_backend};
#else
  return {};
#endif
}

GpuSearcher gpu_searcher() {
#ifdef EMBED_HAVE_CUDA
  return {cuda::find_search_device, cuda::make_cuda_searcher};
#else
  return {};
#endif
}

}  // namespace embed
