// bench-ann: the approximate index against the exact search on the same file and the same
// held-out queries, in one run. Used by scripts/bench/ann.sh.
//
//   bench-ann VECTORS.emb QUERIES.f32 [EF_LIST=16,32,64,128,256] [THREADS=all] [K=10] [TRUTH]
//
// QUERIES.f32 holds row-major f32 query vectors of the file's dimension (not rows of the
// file: held out). Prints one JSON object per line:
//   {"kind":"exact", ...}  the exact search: batched (all queries, THREADS) and one query at
//                          a time (as a program writing a line and waiting), queries/s
//   {"kind":"truth", ...}  the exact answers of the held-out queries (written to TRUTH as
//                          QUERIES x K little-endian u64 rows, for the peers' recall)
//   {"kind":"ann","ef":E, ...}  recall@K against them, queries/s one at a time on one
//                          thread, and batched on THREADS
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <stdexcept>
#include <sstream>
#include <string>
#include <vector>

#include "core/parallel.h"
#include "search/ann/ann_storage.h"
#include "search/ann/hnsw_graph.h"
#include "search/exact_search.h"
#include "search/query_matrix.h"
#include "search/vector_space.h"

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: bench-ann VECTORS.emb QUERIES.f32 [EF_LIST] [THREADS] [K] [TRUTH]\n");
    return 2;
  }
  const std::string ef_list = argc > 3 ? argv[3] : "16,32,64,128,256";
  const unsigned threads = argc > 4 ? static_cast<unsigned>(std::atoi(argv[4])) : embed::default_thread_count();
  const std::size_t k = argc > 5 ? std::strtoull(argv[5], nullptr, 10) : 10;
  const std::string truth_path = argc > 6 ? argv[6] : "";
  try {
    const embed::VectorSpace space = embed::VectorSpace::open(argv[1], {}, threads);
    const std::size_t dim = space.dim();
    std::ifstream in(argv[2], std::ios::binary | std::ios::ate);
    if (!in) throw std::runtime_error(std::string("cannot read ") + argv[2]);
    std::vector<float> values(static_cast<std::size_t>(in.tellg()) / sizeof(float));
    in.seekg(0);
    in.read(reinterpret_cast<char*>(values.data()), static_cast<std::streamsize>(values.size() * sizeof(float)));
    const std::size_t queries = values.size() / dim;
    for (std::size_t q = 0; q < queries; ++q) {
      std::vector<float> v(values.begin() + static_cast<std::ptrdiff_t>(q * dim),
                           values.begin() + static_cast<std::ptrdiff_t>((q + 1) * dim));
      embed::make_unit(v);
      std::copy(v.begin(), v.end(), values.begin() + static_cast<std::ptrdiff_t>(q * dim));
    }

    // The exact path's speed, which does not depend on which vectors ask: rows of the file
    // as queries, one per call (a program waiting for each answer) and in one batch.
    {
      const std::size_t single_queries = std::min<std::size_t>(queries, 200);
      embed::SearchOptions options;
      options.k = k;
      options.threads = threads;
      std::vector<embed::SearchQuery> batch;
      for (std::size_t q = 0; q < queries; ++q) batch.push_back({{{(q * 7919) % space.rows(), 1.0f}}, embed::Combination::add});
      const auto single_start = std::chrono::steady_clock::now();
      for (std::size_t q = 0; q < single_queries; ++q) embed::search(space, std::span(&batch[q], 1), options);
      const double single = seconds_since(single_start);
      const auto batch_start = std::chrono::steady_clock::now();
      embed::search(space, batch, options);
      const double batched = seconds_since(batch_start);
      std::printf("{\"kind\":\"exact\",\"qps_one_at_a_time\":%.1f,\"qps_batch\":%.1f,\"batch\":%zu,\"threads\":%u}\n",
                  static_cast<double>(single_queries) / single, static_cast<double>(queries) / batched, queries, threads);
      std::fflush(stdout);
    }

    // The truth the recall is measured against: the exact search of the held-out vectors.
    // Written to TRUTH when given, for the peers' recall.
    const auto exact_start = std::chrono::steady_clock::now();
    embed::SearchOptions exact_options;
    exact_options.k = k;
    exact_options.threads = threads;
    const std::vector<std::vector<embed::Hit>> truth = embed::search_vectors(space, values, exact_options);
    std::printf("{\"kind\":\"truth\",\"queries\":%zu,\"rows\":%llu,\"dim\":%zu,\"seconds\":%.3f}\n", queries,
                static_cast<unsigned long long>(space.rows()), dim, seconds_since(exact_start));
    std::fflush(stdout);
    if (!truth_path.empty()) {
      std::ofstream out(truth_path, std::ios::binary);
      for (const auto& hits : truth) {
        for (std::size_t i = 0; i < k; ++i) {
          const std::uint64_t row = i < hits.size() ? hits[i].row : ~std::uint64_t{0};
          out.write(reinterpret_cast<const char*>(&row), sizeof row);
        }
      }
    }

    const embed::HnswGraph graph = embed::open_ann(*space.emb());
    std::stringstream list(ef_list);
    for (std::string item; std::getline(list, item, ',');) {
      const std::size_t ef = std::strtoull(item.c_str(), nullptr, 10);
      std::vector<std::vector<embed::Hit>> found(queries);
      auto search_one = [&](std::size_t q, embed::VisitedRows& visited) {
        embed::RowScorer scorer(space, std::span<const float>(values.data() + q * dim, dim));
        std::vector<embed::Hit> hits = embed::hnsw_search(graph, scorer, std::max(ef, k), visited);
        if (hits.size() > k) hits.resize(k);
        found[q] = std::move(hits);
      };
      embed::VisitedRows visited;
      const auto single_start = std::chrono::steady_clock::now();
      for (std::size_t q = 0; q < queries; ++q) search_one(q, visited);
      const double single = seconds_since(single_start);
      std::vector<embed::VisitedRows> per_worker(threads);
      const auto batch_start = std::chrono::steady_clock::now();
      embed::parallel_for_workers(queries, threads, [&](std::size_t q, unsigned w) { search_one(q, per_worker[w]); });
      const double batch = seconds_since(batch_start);
      std::size_t hits = 0, total = 0;
      for (std::size_t q = 0; q < queries; ++q) {
        std::set<std::uint64_t> rows;
        for (const auto& h : truth[q]) rows.insert(h.row);
        for (const auto& h : found[q]) hits += rows.count(h.row);
        total += truth[q].size();
      }
      std::printf("{\"kind\":\"ann\",\"ef\":%zu,\"recall\":%.4f,\"qps_one_thread\":%.1f,\"qps_threads\":%.1f,\"threads\":%u}\n",
                  ef, static_cast<double>(hits) / static_cast<double>(total), static_cast<double>(queries) / single,
                  static_cast<double>(queries) / batch, threads);
      std::fflush(stdout);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench-ann: %s\n", e.what());
    return 1;
  }
  return 0;
}
