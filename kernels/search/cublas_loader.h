// cuBLAS, loaded at run time on first use (dlopen), as lib/math loads OpenBLAS. Linking it
// would load libcublas and libcublasLt (over 500 MB) at every start of embed-query, about
// 80 ms before the first answer even when no GPU is ever used.
#pragma once

#include <cublas_v2.h>

namespace embed::cuda {

// The entry points the searcher and its benchmark use, with cuBLAS's own signatures.
struct CublasApi {
  decltype(&cublasCreate_v2) create;
  decltype(&cublasDestroy_v2) destroy;
  decltype(&cublasSetStream_v2) set_stream;
  decltype(&cublasSetWorkspace_v2) set_workspace;
  decltype(&cublasSetMathMode) set_math_mode;
  decltype(&cublasSgemm_v2) sgemm;
  // Spelled out: C++ sees an inline overload of cublasGemmEx beside the exported one.
  cublasStatus_t (*gemm_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                            const void*, cudaDataType, int, const void*, cudaDataType, int, const void*, void*,
                            cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);
  decltype(&cublasGetStatusString) status_string;
};

// Loads libcublas.so.<the toolkit's major version> once (the loader's search path, then
// the toolkit's library directory); throws embed::Error naming the library when it or an
// entry point is missing.
const CublasApi& cublas();

// Throws embed::Error("cuBLAS error while <what>: <reason>") unless status is success.
void check_cublas(cublasStatus_t status, const char* what);

}  // namespace embed::cuda
