// bench-gpu-search: embed-query's GPU search against the bare cuBLAS GEMM it is built on,
// in one run, on the same matrices. Used by scripts/bench/query.sh; exits 77 without a
// usable GPU (`bench-gpu-search --probe` only says whether there is one).
//
//   bench-gpu-search VECTORS.emb [QUERIES=10000] [K=10] [REPEATS=3] [THREADS=all]
//
// Takes QUERIES rows spread over the file as single-word queries and times, best of REPEATS:
//   floor   the GEMMs of the search alone: the query matrix (its 16-bit parts for f16/bf16
//           files) times every stored row, in blocks whose products fill 1 GB, no selection
//   search  the GPU search through embed-query's Searcher (--device cuda): GEMMs, scoring
//           and top-K on the device, the K best of each query sorted on the host
//   setup   the search's first call minus a warm one: the CUDA context, copying the rows
// and prints one "key value" line per figure. The rows are resident when they fit in 90% of
// the free memory (the default --gpu-memory), else streamed, as embed-query would.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "backend/registry.h"
#include "core/error.h"
#include "core/parallel.h"
#include "kernels/search/cublas_loader.h"
#include "kernels/common/cuda_memory.h"
#include "search/query_matrix.h"
#include "search/query_split.h"
#include "search/searcher.h"
#include "search/vector_space.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Best of `repeats` runs of the GEMMs alone, on the device.
double floor_seconds(const embed::VectorSpace& space, const std::vector<embed::SearchQuery>& queries, int repeats) {
  using embed::cuda::check;
  using embed::cuda::check_cublas;
  const embed::cuda::CublasApi& api = embed::cuda::cublas();
  const std::size_t dim = space.dim();
  const std::uint64_t rows = space.rows();
  const embed::DType dtype = space.dtype();
  const embed::QuerySplit split = embed::query_split(dtype);
  const embed::QueryMatrix matrix = embed::build_query_matrix(space, queries);
  const std::size_t a_rows = matrix.rows * split.parts;
  const std::size_t element = embed::dtype_size(dtype);

  std::vector<std::uint16_t> parts;
  const void* a_host = matrix.values.data();
  if (split.parts > 1) {
    parts.resize(a_rows * dim);
    embed::split_query_rows(matrix.values.data(), matrix.rows, dim, dtype, parts.data());
    a_host = parts.data();
  }
  embed::cuda::DeviceBuffer a(a_rows * dim * element, "the query matrix");
  embed::cuda::DeviceBuffer b(rows * dim * element, "the rows");
  check(cudaMemcpy(a.get(), a_host, a_rows * dim * element, cudaMemcpyHostToDevice), "copying the queries");
  check(cudaMemcpy(b.get(), space.stored_rows(0), rows * dim * element, cudaMemcpyHostToDevice), "copying the rows");
  const std::size_t c_bytes = std::size_t{1} << 30;
  const std::uint64_t block = std::max<std::uint64_t>(1, c_bytes / (sizeof(float) * a_rows));
  embed::cuda::DeviceBuffer c(std::min<std::uint64_t>(block, rows) * a_rows * sizeof(float), "the products");

  cublasHandle_t handle = nullptr;
  check_cublas(api.create(&handle), "creating a handle");
  const float one = 1.0f, zero = 0.0f;
  const cudaDataType_t type = dtype == embed::DType::f16 ? CUDA_R_16F : dtype == embed::DType::bf16 ? CUDA_R_16BF : CUDA_R_32F;
  double best = 1e300;
  for (int r = 0; r < repeats + 1; ++r) {  // the first run warms cuBLAS up
    check(cudaDeviceSynchronize(), "waiting for the GPU");
    const auto start = Clock::now();
    for (std::uint64_t first = 0; first < rows; first += block) {
      const int n = static_cast<int>(std::min(block, rows - first));
      const auto* rows_at = b.get<std::byte>() + first * dim * element;
      if (dtype == embed::DType::f32) {
        check_cublas(api.sgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, n, static_cast<int>(a_rows), static_cast<int>(dim),
                                 &one, reinterpret_cast<const float*>(rows_at), static_cast<int>(dim), a.get<float>(),
                                 static_cast<int>(dim), &zero, c.get<float>(), n),
                     "multiplying");
      } else {
        check_cublas(api.gemm_ex(handle, CUBLAS_OP_T, CUBLAS_OP_N, n, static_cast<int>(a_rows), static_cast<int>(dim),
                                  &one, rows_at, type, static_cast<int>(dim), a.get(), type, static_cast<int>(dim), &zero,
                                  c.get(), CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                     "multiplying");
      }
    }
    check(cudaDeviceSynchronize(), "multiplying");
    if (r > 0) best = std::min(best, seconds_since(start));
  }
  api.destroy(handle);
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const embed::GpuSearcher gpu = embed::gpu_searcher();
  std::string why;
  const std::optional<embed::GpuDevice> device = gpu.built() ? gpu.find_device(0, why) : std::nullopt;
  if (argc > 1 && std::strcmp(argv[1], "--probe") == 0) {
    std::printf("%s\n", device ? device->description().c_str() : ("no usable GPU (" + why + ")").c_str());
    return device ? 0 : 77;
  }
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench-gpu-search VECTORS.emb [QUERIES] [K] [REPEATS] [THREADS] | --probe\n");
    return 2;
  }
  if (!device) {
    std::fprintf(stderr, "bench-gpu-search: no usable GPU (%s)\n", why.c_str());
    return 77;
  }
  const std::size_t count = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 10000;
  const std::size_t k = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 10;
  const int repeats = argc > 4 ? std::atoi(argv[4]) : 3;
  const unsigned threads = argc > 5 ? static_cast<unsigned>(std::atoi(argv[5])) : embed::default_thread_count();
  try {
    const embed::VectorSpace space = embed::VectorSpace::open(argv[1], {}, threads);
    std::vector<embed::SearchQuery> queries(count);
    for (std::size_t q = 0; q < count; ++q) queries[q].terms = {{(q * 7919 + 13) % space.rows(), 1.0f}};
    const double floor = floor_seconds(space, queries, repeats);

    embed::Searcher searcher(space, {{embed::DeviceChoice::cuda, 0, 0}, gpu, std::nullopt}, k, 0);
    embed::SearchOptions options;
    options.k = k;
    options.threads = threads;
    auto start = Clock::now();
    searcher.search(queries, options);
    const double first = seconds_since(start);
    double search = 1e300;
    for (int r = 0; r < repeats; ++r) {
      start = Clock::now();
      searcher.search(queries, options);
      search = std::min(search, seconds_since(start));
    }
    const double flops = 2.0 * static_cast<double>(count) * static_cast<double>(space.rows()) *
                         static_cast<double>(space.dim());
    std::printf("gpu %s\n", device->description().c_str());
    std::printf("shape %zu queries x %llu rows x %zu dims, %s, k %zu\n", count,
                static_cast<unsigned long long>(space.rows()), space.dim(),
                std::string(embed::vector_dtype_name(space.dtype())).c_str(), k);
    std::printf("floor_seconds %.4f\nfloor_tflops %.2f\n", floor, flops / floor / 1e12);
    std::printf("search_seconds %.4f\nsearch_tflops %.2f\nsearch_queries_per_second %.1f\n", search,
                flops / search / 1e12, static_cast<double>(count) / search);
    std::printf("search_over_floor %.3f\nsetup_seconds %.3f\n", search / floor, first - search);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench-gpu-search: %s\n", e.what());
    return 1;
  }
  return 0;
}
