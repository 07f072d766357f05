// bench-search: batched nearest-neighbour search against the bare matrix product it is
// built on, in one run, on the same matrices. Used by scripts/bench/query.sh.
//
//   bench-search VECTORS.emb [QUERIES=1000] [THREADS=all] [K=10] [REPEATS=3]
//
// Takes QUERIES rows spread over the file as the queries and times, best of REPEATS:
//   sgemm   the whole product queries × rowsᵀ in one call of the same SGEMM, with all
//           threads, into a QUERIES × ROWS matrix (no selection: the floor)
//   search  embed-query's search(): blocked SGEMM with the top-K selection fused in
// and prints one "key value" line per figure.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/parallel.h"
#include "math/sgemm.h"
#include "search/exact_search.h"
#include "search/vector_space.h"

namespace {

template <typename F>
double best_seconds(int repeats, F&& run) {
  double best = 1e300;
  for (int i = 0; i < repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    run();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench-search VECTORS.emb [QUERIES] [THREADS] [K] [REPEATS]\n");
    return 2;
  }
  const std::size_t queries = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1000;
  const unsigned threads = argc > 3 ? static_cast<unsigned>(std::atoi(argv[3])) : embed::default_thread_count();
  const std::size_t k = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 10;
  const int repeats = argc > 5 ? std::atoi(argv[5]) : 3;
  try {
    const embed::VectorSpace space = embed::VectorSpace::open(argv[1], {}, threads);
    const std::size_t rows = space.rows(), dim = space.dim();

    std::vector<embed::SearchQuery> batch(queries);
    std::vector<float> a(queries * dim);
    for (std::size_t q = 0; q < queries; ++q) {
      const std::uint64_t row = (q * 7919 + 13) % rows;
      batch[q].terms = {{row, 1.0f}};
      space.row_f32(row, a.data() + q * dim);
    }
    // The floor multiplies the stored f32 rows; for 16-bit files it gets a converted copy for free.
    std::vector<float> converted;
    const float* b = space.rows_f32(0, 0, nullptr);
    if (space.dtype() != embed::DType::f32) {
      converted.resize(rows * dim);
      b = space.rows_f32(0, rows, converted.data());
    }
    std::vector<float> c(queries * rows);
    const double sgemm = best_seconds(repeats, [&] {
      embed::sgemm_abt_all_threads(queries, rows, dim, a.data(), dim, b, dim, c.data(), rows, threads);
    });
    embed::SearchOptions options;
    options.k = k;
    options.threads = threads;
    const double search = best_seconds(repeats, [&] { embed::search(space, batch, options); });
    const double flops = 2.0 * static_cast<double>(queries) * static_cast<double>(rows) * static_cast<double>(dim);
    std::printf("gemm %s\n", embed::sgemm_description().c_str());
    std::printf("shape %zu queries x %zu rows x %zu dims, threads %u, k %zu\n", queries, rows, dim, threads, k);
    std::printf("sgemm_seconds %.4f\nsgemm_gflops %.1f\n", sgemm, flops / sgemm / 1e9);
    std::printf("search_seconds %.4f\nsearch_gflops %.1f\nsearch_queries_per_second %.1f\n", search,
                flops / search / 1e9, static_cast<double>(queries) / search);
    std::printf("search_over_sgemm %.3f\n", search / sgemm);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench-search: %s\n", e.what());
    return 1;
  }
  return 0;
}
