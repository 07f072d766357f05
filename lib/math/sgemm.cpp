#include "math/sgemm.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

#include <fmt/format.h>

#include "core/cpu_isa.h"

namespace embed {
namespace {

// The CBLAS entry points we use, declared here because we load the library by hand.
enum CblasOrder { kRowMajor = 101 };
enum CblasTranspose { kNoTrans = 111, kTrans = 112 };
using CblasSgemm = void (*)(int order, int trans_a, int trans_b, int m, int n, int k, float alpha, const float* a,
                            int lda, const float* b, int ldb, float beta, float* c, int ldc);
using SetThreads = void (*)(int);
using GetString = char* (*)();

struct OpenBlas {
  CblasSgemm sgemm = nullptr;
  SetThreads set_threads = nullptr;
  std::string description;
  std::mutex threads_mutex;  // set_threads is process-wide
};

// The OpenBLAS core type matching this CPU's features, for OpenBLAS builds whose own
// detection does not know the CPU. Only x86 has the problem.
const char* core_type_for_this_cpu() {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
  if (avx512) return "SKYLAKEX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "HASWELL";
#endif
  return nullptr;
}

OpenBlas& openblas() {
  static OpenBlas* blas = [] {
    auto* loaded = new OpenBlas;
    if (std::getenv("OPENBLAS_CORETYPE") == nullptr) {
      if (const char* core = core_type_for_this_cpu()) ::setenv("OPENBLAS_CORETYPE", core, 0);
    }
    void* handle = nullptr;
    for (const char* name : {"libopenblas.so.0", "libopenblas.so"}) {
      if ((handle = ::dlopen(name, RTLD_NOW | RTLD_LOCAL)) != nullptr) break;
    }
    if (handle != nullptr) {
      loaded->sgemm = reinterpret_cast<CblasSgemm>(::dlsym(handle, "cblas_sgemm"));
      loaded->set_threads = reinterpret_cast<SetThreads>(::dlsym(handle, "openblas_set_num_threads"));
    }
    if (loaded->sgemm == nullptr || loaded->set_threads == nullptr) {
      loaded->sgemm = nullptr;
      loaded->description = "portable loop (OpenBLAS not found)";
      return loaded;
    }
    // Our callers parallelise themselves; OpenBLAS's own threads would fight them.
    loaded->set_threads(1);
    auto config = reinterpret_cast<GetString>(::dlsym(handle, "openblas_get_config"));
    auto core = reinterpret_cast<GetString>(::dlsym(handle, "openblas_get_corename"));
    loaded->description = fmt::format("{} ({} kernels)", config ? config() : "OpenBLAS", core ? core() : "default");
    return loaded;
  }();
  return *blas;
}

// C = A·Bᵀ one dot product at a time, each row of B read once while every row of A
// meets it. No packing, so for a few queries this runs at memory speed where a packing
// GEMM reads B three times; also the whole product when OpenBLAS is missing.
// `omp simd` (with -fopenmp-simd, no OpenMP runtime) lets the compiler vectorise the sums
// without -ffast-math, once per instruction-set level (core/cpu_isa.h).
__attribute__((always_inline)) inline void dot_sgemm_abt_loops(
    std::size_t m, std::size_t n, std::size_t k, const float* a, std::size_t lda, const float* b, std::size_t ldb,
    float* c, std::size_t ldc) {
  constexpr std::size_t kRowsPerPass = 64;  // rows of B kept in cache while every row of A passes
  for (std::size_t j0 = 0; j0 < n; j0 += kRowsPerPass) {
    const std::size_t j1 = std::min(n, j0 + kRowsPerPass);
    for (std::size_t i = 0; i < m; ++i) {
      const float* ai = a + i * lda;
      for (std::size_t j = j0; j < j1; ++j) {
        const float* bj = b + j * ldb;
        float sum = 0;
#pragma omp simd reduction(+ : sum)
        for (std::size_t x = 0; x < k; ++x) sum += ai[x] * bj[x];
        c[i * ldc + j] = sum;
      }
    }
  }
}

#define EMBED_DOT_SGEMM(target, isa)                                                                                  \
  target void dot_sgemm_abt_##isa(std::size_t m, std::size_t n, std::size_t k, const float* a, std::size_t lda, const float* b, \
                                  std::size_t ldb, float* c, std::size_t ldc) {                                              \
    dot_sgemm_abt_loops(m, n, k, a, lda, b, ldb, c, ldc);                                                                    \
  }
EMBED_AT_EACH_ISA(EMBED_DOT_SGEMM)
#undef EMBED_DOT_SGEMM

void dot_sgemm_abt(std::size_t m, std::size_t n, std::size_t k, const float* a, std::size_t lda, const float* b, std::size_t ldb,
                   float* c, std::size_t ldc) {
  version_for(cpu_isa(), &dot_sgemm_abt_avx512, &dot_sgemm_abt_avx2, &dot_sgemm_abt_baseline)(m, n, k, a, lda, b, ldb, c, ldc);
}

// Below this many rows of A, dot_sgemm_abt beats a packing GEMM (measured on 400,000 × 300).
constexpr std::size_t kFewQueryRows = 4;

}  // namespace

void sgemm_abt(std::size_t m, std::size_t n, std::size_t k, const float* a, std::size_t lda, const float* b,
               std::size_t ldb, float* c, std::size_t ldc) {
  if (m == 0 || n == 0) return;
  if (m < kFewQueryRows) return dot_sgemm_abt(m, n, k, a, lda, b, ldb, c, ldc);
  OpenBlas& blas = openblas();
  if (blas.sgemm == nullptr) return dot_sgemm_abt(m, n, k, a, lda, b, ldb, c, ldc);
  blas.sgemm(kRowMajor, kNoTrans, kTrans, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), 1.0f, a,
             static_cast<int>(lda), b, static_cast<int>(ldb), 0.0f, c, static_cast<int>(ldc));
}

void sgemm_abt_all_threads(std::size_t m, std::size_t n, std::size_t k, const float* a, std::size_t lda,
                           const float* b, std::size_t ldb, float* c, std::size_t ldc, unsigned threads) {
  OpenBlas& blas = openblas();
  if (blas.sgemm == nullptr) return dot_sgemm_abt(m, n, k, a, lda, b, ldb, c, ldc);
  std::lock_guard lock(blas.threads_mutex);
  blas.set_threads(static_cast<int>(threads));
  sgemm_abt(m, n, k, a, lda, b, ldb, c, ldc);
  blas.set_threads(1);
}

std::string sgemm_description() { return openblas().description; }

}  // namespace embed
