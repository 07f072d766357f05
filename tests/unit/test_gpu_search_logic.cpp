// The GPU search's host-side logic, on every build: the memory plan, the split of f32
// query rows into 16-bit parts, the radix select the kernel runs (its key encoding and
// per-round choice, from kernels/search/radix_select.h, driven here by a sequential reference
// that follows the kernel block by block) against TopK, and the Searcher's choice of
// device with a stand-in GPU.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "core/half.h"
#include "search/gpu_search_plan.h"
#include "search/query_matrix.h"
#include "search/query_split.h"
#include "search/searcher.h"
#include "search/top_k.h"
#include "kernels/search/radix_select.h"
#include "test_util.h"

using namespace embed;

namespace {

constexpr std::size_t kH100Shared = 227 * 1024;
constexpr std::uint64_t kGiB = 1ull << 30;

GpuSearchShape shape_of(std::uint64_t rows, std::size_t dim, DType dtype, std::size_t k = 10) {
  return {rows, dim, dtype, k, kH100Shared};
}

}  // namespace

TEST_CASE("GPU search plan: resident when the rows fit, with a full score block", "[gpu-search]") {
  const GpuSearchShape shape = shape_of(400000, 300, DType::f32);
  const GpuSearchPlan plan = plan_gpu_search(shape, 70 * kGiB);
  CHECK(plan.resident);
  CHECK(plan.chunk_rows == 400000);
  CHECK(plan.parts == 1);
  CHECK(plan.products_bytes == 32u << 20);
  CHECK(plan.total_bytes <= 70 * kGiB);
  CHECK(plan.matrix_bytes == 400000ull * 300 * 4 + 400000ull * 4);
  // A full pass fills the 32 MB score block; a small one gets longer blocks, within shared memory.
  CHECK(plan.block_rows(plan.pass_rows) == 4096);
  CHECK(plan.block_rows(64) == plan.max_block_rows);
  CHECK((plan.max_block_rows + shape.k) * 8 + 4096 <= kH100Shared);
  for (std::size_t rows : {1u, 3u, 64u, 100u, 1000u, 2048u}) {
    const std::size_t block = plan.block_rows(rows);
    CHECK(block % 128 == 0);
    CHECK(block <= plan.max_block_rows);
    CHECK(block * rows * sizeof(float) <= plan.products_bytes);
  }
  CHECK(plan_gpu_search(shape_of(400000, 300, DType::f16), 70 * kGiB).parts == 2);
  CHECK(plan_gpu_search(shape_of(400000, 300, DType::bf16), 70 * kGiB).parts == 3);
}

TEST_CASE("GPU search plan: a smaller score block and batch before streaming, then streaming", "[gpu-search]") {
  const GpuSearchShape shape = shape_of(400000, 300, DType::f32);
  const std::uint64_t matrix = 400000ull * 300 * 4;
  // Just too little for the full score block and batch: still resident.
  const GpuSearchPlan tight = plan_gpu_search(shape, matrix + (70u << 20));
  CHECK(tight.resident);
  CHECK(tight.products_bytes < (32u << 20));
  CHECK(tight.total_bytes <= matrix + (70u << 20));
  // Far too little: streamed through two buffers.
  const GpuSearchPlan streamed = plan_gpu_search(shape, 256u << 20);
  CHECK_FALSE(streamed.resident);
  CHECK(streamed.chunk_rows < 400000);
  CHECK(streamed.chunk_rows % 128 == 0);
  CHECK(streamed.chunk_rows >= 1024);
  CHECK(streamed.total_bytes <= (256u << 20));
  // 4,000,000 x 300 f32 (4.8 GB) on a 2 GB budget: chunks are capped at 256 MB.
  const GpuSearchPlan big = plan_gpu_search(shape_of(4000000, 300, DType::f32), 2 * kGiB);
  CHECK_FALSE(big.resident);
  CHECK(big.chunk_rows * 300 * 4 <= (256u << 20));
  CHECK(big.products_bytes == 32u << 20);
  // Whatever the budget, a plan fits in it.
  for (std::uint64_t budget = 64u << 20; budget < 8 * kGiB; budget = budget * 3 / 2) {
    for (DType dtype : {DType::f32, DType::f16, DType::bf16}) {
      for (std::size_t k : {1u, 10u, 1024u}) {
        INFO("budget " << budget << " dtype " << dtype_name(dtype) << " k " << k);
        try {
          const GpuSearchPlan plan = plan_gpu_search(shape_of(4000000, 300, dtype, k), budget);
          CHECK(plan.total_bytes <= budget);
          CHECK(plan.chunk_rows > 0);
          CHECK(plan.batch_terms >= kGpuMaxTerms);
        } catch (const Error& e) {
          CHECK_THAT(e.what(), Catch::Matchers::Contains("raise --gpu-memory"));
        }
      }
    }
  }
}

TEST_CASE("GPU search plan: refusals name the sizes and what to change", "[gpu-search]") {
  REQUIRE_ERROR_CONTAINS(plan_gpu_search(shape_of(400000, 300, DType::f32), 8000000),
                         "--gpu-memory 8 MB is too small to search 400000 x 300 f32 rows on the GPU: it needs at least");
  REQUIRE_ERROR_CONTAINS(plan_gpu_search(shape_of(400000, 300, DType::f32), 8000000), "use --device cpu");
  REQUIRE_ERROR_CONTAINS(plan_gpu_search(shape_of(1000, 300, DType::f32, 1025), 8 * kGiB), "at most 1024 neighbours");
  GpuSearchShape small_shared = shape_of(1000, 300, DType::f32, 1024);
  small_shared.shared_memory = 8 * 1024;
  REQUIRE_ERROR_CONTAINS(plan_gpu_search(small_shared, 8 * kGiB), "shared memory");
  REQUIRE_ERROR_CONTAINS(plan_gpu_search(shape_of(5000000000ull, 4, DType::f32), 1000 * kGiB), "4294967295 rows");
}

TEST_CASE("query rows split into 16-bit parts multiply 16-bit rows to f32 precision", "[gpu-search]") {
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0.0f, 0.35f);
  const std::size_t dim = 300;
  for (DType storage : {DType::f16, DType::bf16}) {
    const QuerySplit split = query_split(storage);
    CHECK(split.parts == (storage == DType::f16 ? 2u : 3u));
    double worst = 0;
    for (int trial = 0; trial < 200; ++trial) {
      std::vector<float> a(dim), b(dim);
      for (float& x : a) x = normal(rng);
      if (trial % 7 == 0) {
        for (std::size_t x = 0; x < dim; x += 3) a[x] *= 1e-4f;  // small entries, near f16's subnormals after scaling
      }
      make_unit(a);
      for (float& x : b) {  // a stored row: exactly representable in the storage type
        x = normal(rng);
        x = storage == DType::f16 ? f16_to_f32(f32_to_f16(x)) : bf16_to_f32(f32_to_bf16(x));
      }
      std::vector<std::uint16_t> parts(split.parts * dim);
      split_query_rows(a.data(), 1, dim, storage, parts.data());
      // What the GPU computes: each part times b (exact products, summed in double here), parts summed, unscaled.
      double split_product = 0, exact = 0, a_norm = 0, b_norm = 0;
      for (std::size_t p = 0; p < split.parts; ++p) {
        double part_sum = 0;
        for (std::size_t x = 0; x < dim; ++x) {
          const std::uint16_t h = parts[p * dim + x];
          part_sum += double{storage == DType::f16 ? f16_to_f32(h) : bf16_to_f32(h)} * b[x];
        }
        split_product += part_sum;
      }
      split_product /= split.scale;
      for (std::size_t x = 0; x < dim; ++x) {
        exact += double{a[x]} * b[x];
        a_norm += double{a[x]} * a[x];
        b_norm += double{b[x]} * b[x];
      }
      const double error = std::abs(split_product - exact) / std::sqrt(a_norm * b_norm);
      worst = std::max(worst, error);
    }
    INFO(dtype_name(storage) << ": worst relative error " << worst);
    CHECK(worst < 1e-6);
  }
  // Zero rows stay zero.
  std::vector<float> zero(8, 0.0f);
  std::vector<std::uint16_t> parts(3 * 8, 0xFFFF);
  split_query_rows(zero.data(), 1, 8, DType::bf16, parts.data());
  CHECK(std::all_of(parts.begin(), parts.end(), [](std::uint16_t h) { return h == 0; }));
}

namespace {

// The kernel's selection, sequentially: the k largest of `keys`, unordered.
std::vector<std::uint64_t> radix_select(const std::vector<std::uint64_t>& keys, std::uint32_t k) {
  if (keys.size() <= k) return keys;
  std::uint64_t prefix = 0;
  std::uint32_t wanted = k;
  int round = 0;
  bool done = false;
  for (;; ++round) {
    std::uint32_t histogram[radix::kBins] = {};
    for (std::uint64_t key : keys) {
      if (radix::in_prefix(key, prefix, round)) ++histogram[radix::digit(key, round)];
    }
    const radix::Choice choice = radix::choose_bin(histogram, wanted);
    prefix = (prefix << radix::kDigitBits) | choice.bin;
    wanted -= choice.above;
    done = choice.done;
    if (done || round == radix::kRounds - 1) break;
  }
  CHECK(done);  // unique keys: the last round at the latest leaves one key for one wanted
  std::vector<std::uint64_t> out;
  for (std::uint64_t key : keys) {
    if (radix::selected(key, prefix, round)) out.push_back(key);
  }
  REQUIRE(out.size() == k);
  return out;
}

// The kernel's flow for one query: block after block, the kept best plus the block's
// candidates that beat the k-th best, reselected when more than k.
std::vector<Hit> select_like_the_kernel(const std::vector<float>& scores, const std::vector<bool>& excluded,
                                        std::uint32_t k, std::size_t block_rows) {
  std::vector<std::uint64_t> best;
  for (std::size_t first = 0; first < scores.size(); first += block_rows) {
    const bool full = best.size() == k;
    const std::uint64_t floor = best.empty() ? ~0ull : *std::min_element(best.begin(), best.end());
    std::vector<std::uint64_t> keys = best;
    for (std::size_t row = first; row < std::min(scores.size(), first + block_rows); ++row) {
      if (excluded[row] || std::isnan(scores[row])) continue;
      const std::uint64_t key = radix::make_key(scores[row], static_cast<std::uint32_t>(row));
      if (!full || key > floor) keys.push_back(key);
    }
    best = radix_select(keys, k);
  }
  std::vector<Hit> hits;
  for (std::uint64_t key : best) hits.push_back({radix::key_row(key), radix::key_score(key)});
  std::sort(hits.begin(), hits.end(), better);
  return hits;
}

}  // namespace

TEST_CASE("radix keys order as TopK's better: score, then lower row; -0 equals 0", "[gpu-search]") {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> ascending{-inf, -3.5f, -1.0f, -1e-30f, 0.0f, 1e-38f, 1e-30f, 0.5f, 1.0f, 7.0f, inf};
  for (std::size_t i = 0; i + 1 < ascending.size(); ++i) {
    CHECK(radix::ordered_bits(ascending[i]) < radix::ordered_bits(ascending[i + 1]));
  }
  CHECK(radix::ordered_bits(-0.0f) == radix::ordered_bits(0.0f));
  for (float s : ascending) {
    for (std::uint32_t row : {0u, 1u, 12345u, 0xFFFFFFFEu, 0xFFFFFFFFu}) {
      const std::uint64_t key = radix::make_key(s, row);
      CHECK(radix::key_score(key) == s);
      CHECK(radix::key_row(key) == row);
    }
  }
  CHECK(std::signbit(radix::key_score(radix::make_key(-0.0f, 3))) == false);
  std::mt19937 rng(3);
  for (int i = 0; i < 10000; ++i) {
    const Hit a{rng() % 50, static_cast<float>(static_cast<int>(rng() % 9) - 4) / 4.0f};
    const Hit b{rng() % 50, static_cast<float>(static_cast<int>(rng() % 9) - 4) / 4.0f};
    const auto ka = radix::make_key(a.score, static_cast<std::uint32_t>(a.row));
    const auto kb = radix::make_key(b.score, static_cast<std::uint32_t>(b.row));
    CHECK((ka > kb) == better(a, b));
  }
}

TEST_CASE("radix select, block by block as the kernel runs it, finds what TopK finds", "[gpu-search]") {
  std::mt19937 rng(21);
  for (int trial = 0; trial < 60; ++trial) {
    const std::size_t rows = 1 + rng() % 3000;
    const std::uint32_t k = std::vector<std::uint32_t>{1, 5, 10, 100, 1000, 4000}[trial % 6];
    const std::size_t block_rows = std::vector<std::size_t>{128, 256, 1000, 4096}[trial % 4];
    std::vector<float> scores(rows);
    std::vector<bool> excluded(rows, false);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (std::size_t r = 0; r < rows; ++r) {
      switch (rng() % 10) {
        case 0: scores[r] = static_cast<float>(rng() % 5) / 4.0f; break;  // many exact ties
        case 1: scores[r] = std::numeric_limits<float>::quiet_NaN(); break;
        case 2: scores[r] = rng() % 2 ? 0.0f : -0.0f; break;  // a zero-length row's score
        default: scores[r] = uniform(rng);
      }
      excluded[r] = rng() % 50 == 0;  // the query's own words
    }
    TopK reference(k);
    for (std::size_t r = 0; r < rows; ++r) {
      if (!excluded[r] && !std::isnan(scores[r])) reference.push({r, scores[r]});
    }
    const std::vector<Hit> expected = reference.sorted();
    const std::vector<Hit> got = select_like_the_kernel(scores, excluded, k, block_rows);
    INFO("trial " << trial << ": rows " << rows << ", k " << k << ", blocks of " << block_rows);
    REQUIRE(got.size() == expected.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      CHECK(got[i].row == expected[i].row);
      CHECK(got[i].score == expected[i].score);
    }
  }
}

TEST_CASE("query matrix passes hold whole queries within the row limit, at least one", "[gpu-search]") {
  QueryMatrix matrix;
  matrix.first_row = {0, 1, 4, 5, 105};  // query rows: 1, 3, 1, 100, 2
  matrix.rows = 107;
  CHECK(matrix.rows_of(1) == 3);
  CHECK(matrix.rows_of(4) == 2);
  CHECK(pass_end(matrix, 0, 5) == 3);
  CHECK(pass_end(matrix, 0, 4) == 2);
  CHECK(pass_end(matrix, 3, 10) == 4);  // a query larger than the limit goes alone
  CHECK(pass_end(matrix, 4, 10) == 5);
}

namespace {

// A stand-in GPU: answers with the CPU search and counts what it was asked.
struct FakeGpu {
  int probes = 0, made = 0, searches = 0;
  bool usable = true, fail_search = false;
  std::uint64_t last_rows = 0;

  GpuSearcher searcher() {
    struct Matrix final : Index {
      FakeGpu* gpu;
      const VectorSpace* space;
      std::vector<std::vector<Hit>> search(std::span<const SearchQuery> queries, const SearchOptions& options) override {
        ++gpu->searches;
        if (gpu->fail_search) fail("CUDA error while searching: an illegal memory access was encountered");
        return embed::search(*space, queries, options);
      }
    };
    GpuSearcher g;
    g.find_device = [this](int, std::string& why) -> std::optional<GpuDevice> {
      ++probes;
      if (!usable) {
        why = "no CUDA-capable device is detected";
        return std::nullopt;
      }
      GpuDevice device;
      device.name = "Fake GPU";
      device.free_memory = 80 * kGiB;
      device.shared_memory = kH100Shared;
      return device;
    };
    g.make = [this](const GpuSearchRequest& request) -> std::unique_ptr<Index> {
      ++made;
      last_rows = request.shape.rows;
      auto m = std::make_unique<Matrix>();
      m->gpu = this;
      m->space = request.space;
      return m;
    };
    return g;
  }
};

EmbeddingTable small_table(std::size_t rows, std::size_t dim) {
  std::mt19937 rng(9);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  EmbeddingTable table;
  table.dim = dim;
  std::vector<float> v(dim);
  for (std::size_t r = 0; r < rows; ++r) {
    for (float& x : v) x = normal(rng);
    table.add_row("w" + std::to_string(r), v, r + 1);
  }
  return table;
}

std::vector<SearchQuery> batch_of(std::size_t n, std::size_t terms = 1) {
  std::vector<SearchQuery> queries(n);
  for (std::size_t q = 0; q < n; ++q) {
    for (std::size_t t = 0; t < terms; ++t) queries[q].terms.push_back({(q + t) % 100, 1.0f});
  }
  return queries;
}

}  // namespace

TEST_CASE("Searcher: --device cpu never asks for the GPU", "[gpu-search]") {
  const VectorSpace space = VectorSpace::from_table(small_table(200, 8), "mem", 1);
  FakeGpu gpu;
  Searcher searcher(space, {{DeviceChoice::cpu, 0, 0}, gpu.searcher(), std::nullopt}, 10, 0);
  const std::vector<SearchQuery> queries = batch_of(100);
  SearchOptions options;
  const auto got = searcher.search(queries, options);
  CHECK(got.size() == 100);
  CHECK(gpu.probes == 0);
  CHECK(gpu.searches == 0);
}

TEST_CASE("Searcher: --device auto sends large batches to a usable GPU, the rest to the CPU", "[gpu-search]") {
  const VectorSpace space = VectorSpace::from_table(small_table(200, 8), "mem", 1);
  SearchOptions options;
  SECTION("with a GPU") {
    FakeGpu gpu;
    Searcher searcher(space, {{DeviceChoice::automatic, 0, 0}, gpu.searcher(), std::nullopt}, 10, 0);
    CHECK(gpu.probes == 0);  // nothing touches the GPU until a batch needs it
    searcher.search(batch_of(kGpuMinQueries - 1), options);
    CHECK(gpu.probes == 0);
    CHECK(gpu.searches == 0);
    const std::vector<SearchQuery> queries = batch_of(kGpuMinQueries);
    CHECK(searcher.search(queries, options).size() == kGpuMinQueries);
    searcher.search(queries, options);
    CHECK(gpu.probes == 1);
    CHECK(gpu.made == 1);  // the rows are copied once and kept
    CHECK(gpu.searches == 2);
    SearchOptions many = options;
    many.k = kGpuMaxK + 1;
    searcher.search(queries, many);
    CHECK(gpu.searches == 2);
    searcher.search(batch_of(kGpuMinQueries, kGpuMaxTerms + 1), options);  // an expression too long for the GPU
    CHECK(gpu.searches == 2);
  }
  SECTION("without a device: one probe, then the CPU") {
    FakeGpu gpu;
    gpu.usable = false;
    Searcher searcher(space, {{DeviceChoice::automatic, 0, 0}, gpu.searcher(), std::nullopt}, 10, 0);
    CHECK(searcher.search(batch_of(100), options).size() == 100);
    searcher.search(batch_of(100), options);
    CHECK(gpu.probes == 1);
    CHECK(gpu.made == 0);
  }
  SECTION("in a build without CUDA") {
    Searcher searcher(space, {{DeviceChoice::automatic, 0, 0}, GpuSearcher{}, std::nullopt}, 10, 0);
    CHECK(searcher.search(batch_of(100), options).size() == 100);
  }
  SECTION("a GPU that fails: this batch and the next ones on the CPU") {
    FakeGpu gpu;
    gpu.fail_search = true;
    Searcher searcher(space, {{DeviceChoice::automatic, 0, 0}, gpu.searcher(), std::nullopt}, 10, 0);
    const auto got = searcher.search(batch_of(100), options);
    const auto expected = embed::search(space, batch_of(100), options);
    REQUIRE(got.size() == expected.size());
    for (std::size_t q = 0; q < got.size(); ++q) {
      REQUIRE(got[q].size() == expected[q].size());
      for (std::size_t i = 0; i < got[q].size(); ++i) CHECK(got[q][i].row == expected[q][i].row);
    }
    searcher.search(batch_of(100), options);
    CHECK(gpu.searches == 1);
  }
  SECTION("a budget too small: the CPU") {
    FakeGpu gpu;
    Searcher searcher(space, {{DeviceChoice::automatic, 0, 1000}, gpu.searcher(), std::nullopt}, 10, 0);
    CHECK(searcher.search(batch_of(100), options).size() == 100);
    CHECK(gpu.made == 0);
  }
}

TEST_CASE("Searcher: --device cuda answers every batch on the GPU, or refuses at once", "[gpu-search]") {
  const VectorSpace space = VectorSpace::from_table(small_table(200, 8), "mem", 1);
  SearchOptions options;
  SECTION("with a GPU: even one query; restricted rows are planned, more rows re-made") {
    FakeGpu gpu;
    Searcher searcher(space, {{DeviceChoice::cuda, 0, 0}, gpu.searcher(), std::nullopt}, 10, 50);
    CHECK(gpu.probes == 1);
    CHECK(gpu.made == 0);  // the rows are copied on the first batch
    options.restrict_rows = 50;
    searcher.search(batch_of(1), options);
    CHECK(gpu.made == 1);
    CHECK(gpu.last_rows == 50);
    options.restrict_rows = 20;
    searcher.search(batch_of(1), options);
    CHECK(gpu.made == 1);
    options.restrict_rows = 0;
    searcher.search(batch_of(1), options);
    CHECK(gpu.made == 2);
    CHECK(gpu.last_rows == 200);
    CHECK(gpu.searches == 3);
  }
  SECTION("no device") {
    FakeGpu gpu;
    gpu.usable = false;
    REQUIRE_ERROR_CONTAINS(Searcher(space, {{DeviceChoice::cuda, 0, 0}, gpu.searcher(), std::nullopt}, 10, 0),
                           "--device cuda: no usable GPU: no CUDA-capable device is detected");
  }
  SECTION("a build without CUDA") {
    REQUIRE_ERROR_CONTAINS(Searcher(space, {{DeviceChoice::cuda, 0, 0}, GpuSearcher{}, std::nullopt}, 10, 0),
                           "--device cuda: no usable GPU: this build has no CUDA backend");
  }
  SECTION("k above the limit, a budget too small") {
    FakeGpu gpu;
    REQUIRE_ERROR_CONTAINS(Searcher(space, {{DeviceChoice::cuda, 0, 0}, gpu.searcher(), std::nullopt}, kGpuMaxK + 1, 0),
                           "above the GPU's limit of 1024 neighbours per query; use --device cpu");
    REQUIRE_ERROR_CONTAINS(Searcher(space, {{DeviceChoice::cuda, 0, 1000}, gpu.searcher(), std::nullopt}, 10, 0),
                           "--device cuda: --gpu-memory 1 kB is too small");
  }
  SECTION("a GPU that fails: the error") {
    FakeGpu gpu;
    gpu.fail_search = true;
    Searcher searcher(space, {{DeviceChoice::cuda, 0, 0}, gpu.searcher(), std::nullopt}, 10, 0);
    REQUIRE_ERROR_CONTAINS(searcher.search(batch_of(1), options), "illegal memory access");
  }
}

TEST_CASE("search device names round-trip", "[gpu-search]") {
  for (DeviceChoice d : {DeviceChoice::cpu, DeviceChoice::cuda, DeviceChoice::automatic}) {
    CHECK(parse_device_choice(device_choice_name(d)) == d);
  }
  CHECK_FALSE(parse_device_choice("gpu").has_value());
}

TEST_CASE("GPU search plan: compressed rows held compressed, with their scales, codebooks and a decoded block",
          "[gpu-search]") {
  GpuSearchShape pq = shape_of(2'000'000, 300, DType::f32);
  pq.storage = RowStorage::pq;
  pq.pq_m = 75;
  CHECK(pq.row_bytes() == 75);
  const GpuSearchPlan plan = plan_gpu_search(pq, 70 * kGiB);
  CHECK(plan.resident);
  CHECK(plan.parts == 1);  // decoded to f32: the query is not split
  CHECK(plan.decode_bytes == 2'000'000ull * 4 + plan.max_block_rows * 300 * 4 + 256ull * 300 * 4);
  CHECK(plan.matrix_bytes == 2'000'000ull * 75 + 2'000'000ull * 4 + plan.decode_bytes);
  CHECK(plan.total_bytes <= 70 * kGiB);

  GpuSearchShape int8 = pq;
  int8.storage = RowStorage::int8;
  int8.pq_m = 0;
  CHECK(int8.row_bytes() == 300);
  // A budget that holds a quarter of the int8 rows: streamed, the decoding still planned.
  const std::uint64_t budget = 2'000'000ull * 300 / 4 + (160u << 20);
  const GpuSearchPlan streamed = plan_gpu_search(int8, budget);
  CHECK_FALSE(streamed.resident);
  CHECK(streamed.decode_bytes == 2'000'000ull * 4 + streamed.max_block_rows * 300 * 4);
  CHECK(streamed.total_bytes <= budget);
}
