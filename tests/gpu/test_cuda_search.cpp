// GPU tests of embed-query's CUDA search (ctest label "gpu"). Exits 77 (skipped) where
// no device is usable. The GPU's answers are compared with the CPU's search() on random
// vectors stored as f32, f16 and bf16: 3CosAdd and 3CosMul, single words and expressions,
// zero-length rows, --restrict, k = 1, 10 and 1000, the rows resident and streamed through
// a small --gpu-memory in several device batches. Per rank the CPU's score within 1e-5 and
// its row, or a row the CPU scores the same within 1e-5 (a float tie).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <set>

#include "backend/registry.h"
#include "catch_session.h"
#include "core/atomic_output.h"
#include "format/emb_writer.h"
#include "format/quantized_rows.h"
#include "search/searcher.h"
#include "search/vector_space.h"
#include "test_util.h"

using namespace embed;

namespace {

GpuDevice the_device;

EmbeddingTable random_table(std::size_t rows, std::size_t dim, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 0.35f);
  EmbeddingTable table;
  table.dim = dim;
  std::vector<float> v(dim);
  for (std::size_t r = 0; r < rows; ++r) {
    const bool zero = r % 997 == 17;  // zero-length rows score 0 against everything
    for (float& x : v) x = zero ? 0.0f : normal(rng);
    table.add_row("w" + std::to_string(r), v, r + 1);
  }
  return table;
}

VectorSpace write_and_open(const test::TempDir& dir, std::size_t rows, std::size_t dim, DType dtype) {
  EmbeddingTable table = random_table(rows, dim, static_cast<std::uint32_t>(rows + dim));
  const std::string path = dir.file(std::string("v-") + std::string(vector_dtype_name(dtype)) + ".emb");
  AtomicOutput out(path);
  EmbWriteOptions options;
  options.dtype = dtype;
  write_emb(table, options, out);
  out.commit();
  return VectorSpace::from_emb(EmbFile::open(path));
}

// The same random table compressed (int8, or pq with 75 codes a row).
VectorSpace write_compressed_and_open(const test::TempDir& dir, std::size_t rows, std::size_t dim, RowStorage storage) {
  EmbeddingTable table = random_table(rows, dim, static_cast<std::uint32_t>(rows + dim));
  QuantizeSpec spec;
  spec.storage = storage;
  spec.pq.m = dim / 4;
  spec.pq.iterations = 4;
  spec.threads = 4;
  const QuantizedRows quantized = QuantizedRows::encode(table.values, dim, spec);
  EmbWriteOptions options;
  quantized.add_to_emb(options);
  const std::string path = dir.file(std::string("v-") + std::string(row_storage_name(storage)) + ".emb");
  AtomicOutput out(path);
  write_emb(table, options, out);
  out.commit();
  return VectorSpace::from_emb(EmbFile::open(path));
}

std::vector<SearchQuery> random_queries(std::size_t count, std::uint64_t rows, Combination method, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<SearchQuery> queries(count);
  for (std::size_t q = 0; q < count; ++q) {
    const std::size_t terms = q % 5 == 0 ? 1 : 3;  // single words and analogies
    for (std::size_t t = 0; t < terms; ++t) queries[q].terms.push_back({rng() % rows, t == 2 ? -1.0f : 1.0f});
    if (q == 3) queries[q].terms = {{17, 1.0f}};  // a zero-length query
    queries[q].combination = terms == 1 ? Combination::add : method;
  }
  return queries;
}

// A row's score for a query in double precision, as gensim defines it (the CPU's f32
// score is within 1e-6 of it).
double reference_score(const VectorSpace& space, const SearchQuery& query, std::uint64_t row) {
  const std::size_t dim = space.dim();
  auto unit = [&](std::uint64_t r) {
    const std::vector<float> f = space.row_f32(r);
    double n = 0;
    for (float x : f) n += double{x} * x;
    std::vector<double> v(dim);
    for (std::size_t i = 0; i < dim; ++i) v[i] = n > 0 ? f[i] / std::sqrt(n) : 0.0;
    return v;
  };
  auto dot = [&](const std::vector<double>& a, const std::vector<double>& b) {
    double sum = 0;
    for (std::size_t i = 0; i < dim; ++i) sum += a[i] * b[i];
    return sum;
  };
  const std::vector<double> u = unit(row);
  if (query.combination == Combination::add) {
    std::vector<double> mean(dim, 0.0);
    for (const Term& t : query.terms) {
      const std::vector<double> v = unit(t.row);
      for (std::size_t i = 0; i < dim; ++i) mean[i] += t.weight * v[i];
    }
    const double norm = std::sqrt(dot(mean, mean));
    return norm > 0 ? dot(u, mean) / norm : 0.0;
  }
  double positive = 1, negative = 1;
  for (const Term& t : query.terms) (t.weight > 0 ? positive : negative) *= (1 + dot(u, unit(t.row))) / 2;
  return positive / (negative + 0.000001);
}

struct Comparison {
  std::size_t hits = 0;
  std::size_t shared = 0;  // GPU hits that are among the CPU's (the rest: ties at the last place)
};

// The GPU's answers against the CPU's: per rank the same score within 1e-5 (relative above
// 1, for 3CosMul), and the same row or a candidate scored the same within 1e-5.
Comparison compare(const VectorSpace& space, std::span<const SearchQuery> queries, const SearchOptions& options,
                   const std::vector<std::vector<Hit>>& gpu) {
  const std::vector<std::vector<Hit>> cpu = search(space, queries, options);
  const std::uint64_t rows = options.restrict_rows ? std::min(options.restrict_rows, space.rows()) : space.rows();
  Comparison c;
  REQUIRE(gpu.size() == cpu.size());
  for (std::size_t q = 0; q < queries.size(); ++q) {
    INFO("query " << q << " (" << queries[q].terms.size() << " words)");
    REQUIRE(gpu[q].size() == cpu[q].size());
    std::set<std::uint64_t> cpu_rows;
    for (const Hit& h : cpu[q]) cpu_rows.insert(h.row);
    for (std::size_t i = 0; i < gpu[q].size(); ++i) {
      const Hit& g = gpu[q][i];
      const Hit& e = cpu[q][i];
      INFO("rank " << i << ": GPU row " << g.row << " score " << g.score << ", CPU row " << e.row << " score " << e.score);
      const double tolerance = 1e-5 * std::max(1.0f, std::abs(e.score));
      CHECK(std::abs(g.score - e.score) <= tolerance);
      ++c.hits;
      c.shared += cpu_rows.count(g.row);
      if (g.row == e.row) continue;
      CHECK(g.row < rows);
      for (const Term& t : queries[q].terms) CHECK(g.row != t.row);
      CHECK(std::abs(reference_score(space, queries[q], g.row) - e.score) <= tolerance);
    }
  }
  return c;
}

Searcher gpu_searcher_for(const VectorSpace& space, std::size_t k, std::uint64_t restrict_rows, std::uint64_t budget = 0) {
  return Searcher(space, {{DeviceChoice::cuda, 0, budget}, gpu_searcher(), std::nullopt}, k, restrict_rows);
}

}  // namespace

TEST_CASE("GPU search equals the CPU's for every storage type, method and k", "[gpu]") {
  test::TempDir dir;
  for (DType dtype : {DType::f32, DType::f16, DType::bf16}) {
    const VectorSpace space = write_and_open(dir, 20000, 300, dtype);
    for (Combination method : {Combination::add, Combination::mul}) {
      const std::vector<SearchQuery> queries = random_queries(200, space.rows(), method, 7);
      for (std::size_t k : {1u, 10u, 1000u}) {
        for (std::uint64_t restrict_rows : {std::uint64_t{0}, std::uint64_t{5000}}) {
          DYNAMIC_SECTION(vector_dtype_name(dtype) << ", " << (method == Combination::add ? "3cosadd" : "3cosmul")
                                                   << ", k " << k << ", restrict " << restrict_rows) {
            SearchOptions options;
            options.k = k;
            options.restrict_rows = restrict_rows;
            options.threads = 4;
            Searcher searcher = gpu_searcher_for(space, k, restrict_rows);
            const std::vector<std::vector<Hit>> gpu = searcher.search(queries, options);
            const Comparison c = compare(space, queries, options, gpu);
            INFO(c.shared << " of " << c.hits << " hits among the CPU's");
            CHECK(c.shared * 100 >= c.hits * 99);  // other rows only at float ties for the last places
          }
        }
      }
    }
  }
}

// Compressed rows are decoded on the device: the GPU's scores are the decoded rows' (in
// double, as gensim would score the decoded vectors) within 1e-5, and its rows the CPU's
// but at ties. The CPU scores pq rows by ADC, and int8 rows (with VNNI) by integer dots of
// a quantized query, so against the CPU only the rows are compared, at 95%.
TEST_CASE("GPU search of int8 and pq rows decodes them on the device: resident and streamed", "[gpu]") {
  test::TempDir dir;
  for (RowStorage storage : {RowStorage::int8, RowStorage::pq}) {
    const VectorSpace space = write_compressed_and_open(dir, 30000, 300, storage);
    for (std::uint64_t budget : {std::uint64_t{0}, std::uint64_t{64u << 20}}) {
      DYNAMIC_SECTION(row_storage_name(storage) << (budget ? ", streamed" : ", resident")) {
        const std::vector<SearchQuery> queries = random_queries(300, space.rows(), Combination::mul, 11);
        SearchOptions options;
        options.k = 10;
        options.threads = 4;
        Searcher searcher = gpu_searcher_for(space, 10, 0, budget);
        const std::vector<std::vector<Hit>> gpu = searcher.search(queries, options);
        const std::vector<std::vector<Hit>> cpu = search(space, queries, options);
        std::size_t hits = 0, shared = 0;
        for (std::size_t q = 0; q < queries.size(); ++q) {
          REQUIRE(gpu[q].size() == cpu[q].size());
          std::set<std::uint64_t> cpu_rows;
          for (const Hit& h : cpu[q]) cpu_rows.insert(h.row);
          for (const Hit& g : gpu[q]) {
            INFO("query " << q << ": GPU row " << g.row << " score " << g.score);
            const double reference = reference_score(space, queries[q], g.row);
            CHECK(std::abs(g.score - reference) <= 1e-5 * std::max(1.0, std::abs(reference)));
            ++hits;
            shared += cpu_rows.count(g.row);
          }
        }
        INFO(shared << " of " << hits << " hits among the CPU's");
        CHECK(shared * 100 >= hits * 95);
      }
    }
  }
}

TEST_CASE("GPU search with an odd dimension and a few rows", "[gpu]") {
  test::TempDir dir;
  for (DType dtype : {DType::f32, DType::f16, DType::bf16}) {
    for (std::size_t rows : {1u, 5u, 300u, 5000u}) {
      const VectorSpace space = write_and_open(dir, rows, 37, dtype);
      const std::vector<SearchQuery> queries = random_queries(70, space.rows(), Combination::mul, 3);
      SearchOptions options;
      options.k = 10;
      Searcher searcher = gpu_searcher_for(space, 10, 0);
      const Comparison c = compare(space, queries, options, searcher.search(queries, options));
      CHECK(c.shared * 100 >= c.hits * 99);
    }
  }
}

TEST_CASE("GPU search streams rows that do not fit in --gpu-memory, over several device batches", "[gpu]") {
  test::TempDir dir;
  for (DType dtype : {DType::f32, DType::f16}) {
    const VectorSpace space = write_and_open(dir, 60000, 300, dtype);
    // The smallest budget that plans: streamed, in small device batches.
    const GpuSearchShape shape{space.rows(), space.dim(), dtype, 10, the_device.shared_memory};
    std::uint64_t budget = 36u << 20;
    GpuSearchPlan plan;
    for (;; budget += 1u << 20) {
      try {
        plan = plan_gpu_search(shape, budget);
        break;
      } catch (const Error&) {
      }
    }
    INFO("budget " << budget << ": chunks of " << plan.chunk_rows << " rows, " << plan.batch_terms << " words per batch");
    REQUIRE_FALSE(plan.resident);
    CHECK(space.rows() / plan.chunk_rows >= 2);
    const std::vector<SearchQuery> queries = random_queries(3 * plan.batch_terms, space.rows(), Combination::add, 5);
    SearchOptions options;
    options.k = 10;
    options.threads = 4;
    std::size_t progress_calls = 0;
    options.on_progress = [&](std::size_t) { ++progress_calls; };
    Searcher searcher = gpu_searcher_for(space, 10, 0, budget);
    const std::vector<std::vector<Hit>> first = searcher.search(queries, options);
    CHECK(progress_calls >= 3);  // one per device batch
    options.on_progress = nullptr;
    const Comparison c = compare(space, queries, options, first);
    CHECK(c.shared * 100 >= c.hits * 99);
    // A second batch through the same buffers gives the same answers.
    const std::vector<std::vector<Hit>> second = searcher.search(queries, options);
    for (std::size_t q = 0; q < queries.size(); ++q) {
      REQUIRE(second[q].size() == first[q].size());
      for (std::size_t i = 0; i < first[q].size(); ++i) {
        CHECK(second[q][i].row == first[q][i].row);
        CHECK(second[q][i].score == first[q][i].score);
      }
    }
  }
}

int main(int argc, char** argv) {
  std::string why;
  const GpuSearcher searcher = gpu_searcher();
  const std::optional<GpuDevice> device = searcher.built() ? searcher.find_device(0, why) : std::nullopt;
  if (!device) {
    std::printf("skipped: no usable CUDA device (%s)\n", why.c_str());
    return 77;
  }
  the_device = *device;
  std::printf("device: %s, %.1f GiB free, %zu KB shared memory per block\n", device->description().c_str(),
              static_cast<double>(device->free_memory) / (1u << 30), device->shared_memory / 1024);
  return embed::test::run_catch_session(argc, argv);
}
