// Single-precision matrix products for similarity search: C = A · Bᵀ, where the rows of
// A are queries and the rows of B are stored vectors (both row-major, as in .emb).
//
// The product runs on OpenBLAS when the system has it, loaded at first use rather than
// linked: Debian's OpenBLAS picks its kernels when it loads, from OPENBLAS_CORETYPE or
// its own CPU detection, which takes some AVX-512 Xeons for a 2004 Prescott and runs
// SSE3 kernels at a quarter of the speed. Loading it ourselves lets us set the core
// type from the CPU's real features first (a user's own OPENBLAS_CORETYPE wins).
// Without OpenBLAS a portable loop gives the same results, slower.
#pragma once

#include <cstddef>
#include <string>

namespace embed {

// C[m×n] = A[m×k] · B[n×k]ᵀ, row-major with leading dimensions lda, ldb, ldc.
// Single-threaded: callers parallelise over blocks of B, which also keeps each
// thread's block of C in its own cache. Safe to call from several threads at once.
void sgemm_abt(std::size_t m, std::size_t n, std::size_t k, const float* a, std::size_t lda, const float* b,
               std::size_t ldb, float* c, std::size_t ldc);

// The same product using every thread the library has (for measuring the bare
// product in benchmarks); falls back to sgemm_abt without OpenBLAS.
void sgemm_abt_all_threads(std::size_t m, std::size_t n, std::size_t k, const float* a, std::size_t lda,
                           const float* b, std::size_t ldb, float* c, std::size_t ldc, unsigned threads);

// "OpenBLAS 0.3.21 (Cooperlake kernels)" or "portable loop (OpenBLAS not found)", for -v and benchmarks.
std::string sgemm_description();

}  // namespace embed
