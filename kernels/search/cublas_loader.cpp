#include "kernels/search/cublas_loader.h"

#include <dlfcn.h>

#include <mutex>
#include <string>

#include "core/error.h"

namespace embed::cuda {
namespace {

const std::string kLibrary = "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);

template <typename Function>
void resolve(void* library, const char* name, Function& function) {
  function = reinterpret_cast<Function>(dlsym(library, name));
  if (!function) fail("cannot use cuBLAS ({}): it has no {}", kLibrary, name);
}

CublasApi load() {
  void* library = dlopen(kLibrary.c_str(), RTLD_NOW | RTLD_LOCAL);
#ifdef EMBED_CUDA_LIBRARY_DIR
  if (!library) library = dlopen((std::string(EMBED_CUDA_LIBRARY_DIR) + "/" + kLibrary).c_str(), RTLD_NOW | RTLD_LOCAL);
#endif
  if (!library) fail("cannot load cuBLAS ({}): {}", kLibrary, dlerror());
  CublasApi api{};
  resolve(library, "cublasCreate_v2", api.create);
  resolve(library, "cublasDestroy_v2", api.destroy);
  resolve(library, "cublasSetStream_v2", api.set_stream);
  resolve(library, "cublasSetWorkspace_v2", api.set_workspace);
  resolve(library, "cublasSetMathMode", api.set_math_mode);
  resolve(library, "cublasSgemm_v2", api.sgemm);
  resolve(library, "cublasGemmEx", api.gemm_ex);
  resolve(library, "cublasGetStatusString", api.status_string);
  return api;  // the library stays loaded for the process
}

}  // namespace

const CublasApi& cublas() {
  // Loaded under a once_flag; a failed load throws and is tried again by the next caller.
  static std::once_flag once;
  static CublasApi api;
  std::call_once(once, [] { api = load(); });
  return api;
}

void check_cublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) fail("cuBLAS error while {}: {}", what, cublas().status_string(status));
}

}  // namespace embed::cuda
