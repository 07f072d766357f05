// bench-roofline: this machine's ceilings for the CPU trainers, measured rather than taken
// from a datasheet, on each instruction-set level it runs (core/cpu_isa.h; EMBED_CPU_ISA
// lowers the highest probed):
//   fma        GFLOP/s of independent fused multiply-adds (the arithmetic peak; the
//              baseline, SSE2, has no FMA: a multiply and an add)
//   mul+add    the same with a separate multiply and add, as code compiled without
//              FMA contraction issues them
//   row loop   GFLOP/s of skip-gram's own inner loop with SGD (row_ops.h: 1 + K dots, then
//              the input's gradient, the output rows' steps and the input's step in one
//              pass) on rows that stay in L1: what the loop allows when no row misses
//              the cache
//   stream     GB/s reading a buffer far larger than the caches, and updating one (y += a x)
//   rows       GB/s of random rows of a table read, dotted and written back (the rows a
//              window touches), for a table of --table-mb (default: text8-head's two
//              tables at dim 100) and one far larger than the caches
// Each probe runs on 1 thread and on --threads (default: all cores); medians of 5 timings.
//
//   bench-roofline [--threads N] [--dim 100] [--negative 5] [--table-mb 14] [--big-table-mb 1024]
//
// scripts/bench/roofline.sh puts these beside embed-train's own figures per trained word.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <CLI/CLI.hpp>

#include "core/cpu_isa.h"
#include "train/engine/row_ops.h"

namespace {

using embed::CpuIsa;
using Clock = std::chrono::steady_clock;

// --- the probes' kernels, one set per level ---------------------------------------------

constexpr int kChains = 12;  // independent accumulators: more than latency × pipes on any x86 core
constexpr long kPeakRounds = 40'000'000;

#if defined(__x86_64__)
EMBED_TARGET_AVX512 double horizontal_sum(__m512 v);
EMBED_TARGET_AVX512 double fma_avx512(long rounds) {
  __m512 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm512_set1_ps(0.001f * static_cast<float>(c));
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  for (long r = 0; r < rounds; ++r) {
    for (int c = 0; c < kChains; ++c) acc[c] = _mm512_fmadd_ps(acc[c], a, b);
  }
  __m512 sum = acc[0];
  for (int c = 1; c < kChains; ++c) sum = _mm512_add_ps(sum, acc[c]);
  return horizontal_sum(sum);
}
EMBED_TARGET_AVX512 double mul_add_avx512(long rounds) {
  __m512 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm512_set1_ps(0.001f * static_cast<float>(c));
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  for (long r = 0; r < rounds; ++r) {
    for (int c = 0; c < kChains; ++c) acc[c] = _mm512_add_ps(_mm512_mul_ps(acc[c], a), b);
  }
  __m512 sum = acc[0];
  for (int c = 1; c < kChains; ++c) sum = _mm512_add_ps(sum, acc[c]);
  return horizontal_sum(sum);
}
EMBED_TARGET_AVX512 double horizontal_sum(__m512 v) {
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, v);
  double sum = 0;
  for (float x : lanes) sum += x;
  return sum;
}
EMBED_TARGET_AVX2 double horizontal_sum(__m256 v) {
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, v);
  double sum = 0;
  for (float x : lanes) sum += x;
  return sum;
}
EMBED_TARGET_AVX2 double fma_avx2(long rounds) {
  __m256 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm256_set1_ps(0.001f * static_cast<float>(c));
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  for (long r = 0; r < rounds; ++r) {
    for (int c = 0; c < kChains; ++c) acc[c] = _mm256_fmadd_ps(acc[c], a, b);
  }
  __m256 sum = acc[0];
  for (int c = 1; c < kChains; ++c) sum = _mm256_add_ps(sum, acc[c]);
  return horizontal_sum(sum);
}
EMBED_TARGET_AVX2 double mul_add_avx2(long rounds) {
  __m256 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm256_set1_ps(0.001f * static_cast<float>(c));
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  for (long r = 0; r < rounds; ++r) {
    for (int c = 0; c < kChains; ++c) acc[c] = _mm256_add_ps(_mm256_mul_ps(acc[c], a), b);
  }
  __m256 sum = acc[0];
  for (int c = 1; c < kChains; ++c) sum = _mm256_add_ps(sum, acc[c]);
  return horizontal_sum(sum);
}
double mul_add_sse2(long rounds) {
  __m128 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm_set1_ps(0.001f * static_cast<float>(c));
  const __m128 a = _mm_set1_ps(0.999999f), b = _mm_set1_ps(1e-7f);
  for (long r = 0; r < rounds; ++r) {
    for (int c = 0; c < kChains; ++c) acc[c] = _mm_add_ps(_mm_mul_ps(acc[c], a), b);
  }
  __m128 sum = acc[0];
  for (int c = 1; c < kChains; ++c) sum = _mm_add_ps(sum, acc[c]);
  alignas(16) float lanes[4];
  _mm_store_ps(lanes, sum);
  return double{lanes[0]} + lanes[1] + lanes[2] + lanes[3];
}
#endif

// Skip-gram's inner loop on one context row as the trainer runs it with SGD (train_context_row
// in train/word2vec/word2vec_cpu_backend.cpp, without the table lookups): 1 + K scores, then
// the steps in one pass (sgd_context_steps), `rounds` times, each round on the next of
// kRowSets sets of rows (an input row and 1 + K output rows), all of which stay in L1: as
// in training, a round's rows are not the last round's, whose steps may still be under way.
constexpr std::size_t kRowSets = 4;
__attribute__((always_inline)) inline double row_loop(long rounds, float* rows_in_l1, std::size_t outputs, std::size_t p) {
  float g[64];
  float* sets[kRowSets][64];
  for (std::size_t set = 0; set < kRowSets; ++set) {
    for (std::size_t o = 0; o <= outputs; ++o) sets[set][o] = rows_in_l1 + (set * (outputs + 1) + o) * p;
  }
  double check = 0;
  for (long r = 0; r < rounds; ++r) {
    float* const* rows = sets[static_cast<std::size_t>(r) % kRowSets];
    float* in = rows[outputs];
    for (std::size_t o = 0; o < outputs; ++o) g[o] = 1e-6f * (0.5f - 0.01f * embed::dot(in, rows[o], p));
    embed::sgd_context_steps(in, rows, g, outputs, p, true);
    check += g[0];
  }
  return check;
}
#define EMBED_ROW_LOOP(target, isa)                                                               \
  target double row_loop_##isa(long rounds, float* rows, std::size_t outputs, std::size_t p) { \
    return row_loop(rounds, rows, outputs, p);                                                  \
  }
EMBED_AT_EACH_ISA(EMBED_ROW_LOOP)
#undef EMBED_ROW_LOOP

// Random rows of `table` (rows × p floats): each read, dotted with the previous one and
// stepped, as a window's rows are; returns a checksum.
__attribute__((always_inline)) inline double rows_loop(float* table, std::size_t rows, std::size_t p, long touches,
                                                       std::uint64_t seed) {
  std::uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
  double check = 0;
  float* previous = table;
  for (long t = 0; t < touches; ++t) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    float* row = table + ((state >> 33) % rows) * p;
    const float g = 1e-6f * embed::dot(row, previous, p);
    embed::axpy(g, previous, row, p);
    check += g;
    previous = row;
  }
  return check;
}
#define EMBED_ROWS_LOOP(target, isa)                                                                                        \
  target double rows_loop_##isa(float* table, std::size_t rows, std::size_t p, long touches, std::uint64_t seed) { \
    return rows_loop(table, rows, p, touches, seed);                                                                        \
  }
EMBED_AT_EACH_ISA(EMBED_ROWS_LOOP)
#undef EMBED_ROWS_LOOP

// Streams: sum of x (read), y += a x (read two, write one).
__attribute__((always_inline)) inline double read_loop(const float* x, std::size_t n) {
  float sum = 0;
#pragma omp simd reduction(+ : sum)
  for (std::size_t i = 0; i < n; ++i) sum += x[i];
  return sum;
}
#define EMBED_STREAM_LOOPS(target, isa)                                                                         \
  target double read_##isa(const float* x, std::size_t n) { return read_loop(x, n); }                       \
  target double update_##isa(const float* x, float* y, std::size_t n) {                                        \
    embed::axpy(1e-7f, x, y, n);                                                                               \
    return y[n / 2];                                                                                           \
  }
EMBED_AT_EACH_ISA(EMBED_STREAM_LOOPS)
#undef EMBED_STREAM_LOOPS

// --- timing ----------------------------------------------------------------------------

// Runs work(thread) on `threads` threads at once, 5 times; the median seconds.
double median_seconds(unsigned threads, const std::function<double(unsigned)>& work) {
  std::vector<double> times;
  volatile double sink = 0;
  for (int repeat = 0; repeat < 5; ++repeat) {
    std::vector<double> results(threads);
    const auto start = Clock::now();
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back([&, t] { results[t] = work(t); });
    for (auto& thread : pool) thread.join();
    times.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    for (double r : results) sink = sink + r;
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

struct Kernels {
  CpuIsa isa;
  double (*fma)(long);  // null: no FMA at this level
  double (*mul_add)(long);
  double (*row)(long, float*, std::size_t, std::size_t);
  double (*rows)(float*, std::size_t, std::size_t, long, std::uint64_t);
  double (*read)(const float*, std::size_t);
  double (*update)(const float*, float*, std::size_t);
};

std::vector<Kernels> levels_to_probe() {
  std::vector<Kernels> levels;
#if defined(__x86_64__)
  const CpuIsa top = embed::cpu_isa();
  if (top >= CpuIsa::avx512) {
    levels.push_back({CpuIsa::avx512, fma_avx512, mul_add_avx512, row_loop_avx512, rows_loop_avx512, read_avx512, update_avx512});
  }
  if (top >= CpuIsa::avx2) {
    levels.push_back({CpuIsa::avx2, fma_avx2, mul_add_avx2, row_loop_avx2, rows_loop_avx2, read_avx2, update_avx2});
  }
  levels.push_back({CpuIsa::baseline, nullptr, mul_add_sse2, row_loop_baseline, rows_loop_baseline, read_baseline, update_baseline});
#else
  levels.push_back({CpuIsa::baseline, nullptr, nullptr, row_loop_baseline, rows_loop_baseline, read_baseline, update_baseline});
#endif
  return levels;
}

int lanes(CpuIsa isa) { return isa == CpuIsa::avx512 ? 16 : isa == CpuIsa::avx2 ? 8 : 4; }

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench-roofline: the machine's arithmetic and memory ceilings for the CPU trainers, per instruction-set level"};
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::size_t dim = 100, negative = 5;
  double table_mb = 14, big_table_mb = 1024;
  app.add_option("--threads", threads, "threads for the all-threads column (default: all cores)")->check(CLI::Range(1u, 1024u));
  app.add_option("--dim", dim, "vector size of the rows (padded to 16 floats, as the trainers do)")->check(CLI::Range(1, 4096));
  app.add_option("--negative", negative, "negatives per context row in the row loop")->check(CLI::Range(1, 62));
  app.add_option("--table-mb", table_mb, "table size for the random-rows probe (default: text8-head's two tables at dim 100)");
  app.add_option("--big-table-mb", big_table_mb, "a table far larger than the caches");
  CLI11_PARSE(app, argc, argv);

  const std::size_t p = (dim + 15) / 16 * 16;
  const std::size_t outputs = 1 + negative;
  // The row loop's flops per float of a row: 1 + K dots (2 each), the input's gradient (1 + 2K), 1 + K
  // steps (2 each), the input's step (1): 6 (1 + K).
  const double floats = static_cast<double>(p), row_flops_per_float = 6.0 * static_cast<double>(outputs);
  std::printf("machine: %u hardware threads; probing %u thread(s) and 1; rows of %zu floats (dim %zu), K %zu\n",
              std::thread::hardware_concurrency(), threads, p, dim, negative);
  std::printf("%-9s %-9s %10s %10s %10s %10s %11s %11s %11s\n", "level", "threads", "fma", "mul+add", "row loop", "stream rd",
              "stream upd", "rows small", "rows big");
  std::printf("%-9s %-9s %10s %10s %10s %10s %11s %11s %11s\n", "", "", "GFLOP/s", "GFLOP/s", "GFLOP/s", "GB/s", "GB/s", "GB/s",
              "GB/s");

  // Shared buffers: streams of 512 MiB (far past any cache), the two tables.
  const std::size_t stream_floats = std::size_t{128} << 20;
  std::vector<float> x(stream_floats, 1.0f), y(stream_floats, 0.5f);
  const auto rows_for = [&](double mb) { return std::max<std::size_t>(64, static_cast<std::size_t>(mb * 1e6 / (4.0 * floats))); };
  const std::size_t small_rows = rows_for(table_mb), big_rows = rows_for(big_table_mb);
  std::vector<float> small_table(small_rows * p, 0.01f), big_table(big_rows * p, 0.01f);

  for (const Kernels& k : levels_to_probe()) {
    for (unsigned n : {1u, threads}) {
      const double vector_flops = 2.0 * lanes(k.isa) * kChains * static_cast<double>(kPeakRounds);
      const double fma = k.fma ? vector_flops * n / median_seconds(n, [&](unsigned) { return k.fma(kPeakRounds); }) / 1e9 : 0;
      const double mul_add =
          k.mul_add ? vector_flops * n / median_seconds(n, [&](unsigned) { return k.mul_add(kPeakRounds); }) / 1e9 : 0;

      // The row loop: per round (1 + K) dots (2P flops each), the input's gradient (P + 2PK), (1 + K)
      // steps (2P each), the input's step (P: an add).
      const long row_rounds = static_cast<long>(8e9 / (floats * (row_flops_per_float + 2)));
      std::vector<std::vector<float>> row_buffers(n, std::vector<float>(kRowSets * p * (outputs + 1), 0.01f));
      const double row_flops = static_cast<double>(row_rounds) * floats * row_flops_per_float;
      const double row = row_flops * n / median_seconds(n, [&](unsigned t) {
                           return k.row(row_rounds, row_buffers[t].data(), outputs, p);
                         }) / 1e9;

      // Streams: each thread its share of the buffers.
      const std::size_t share = stream_floats / n;
      const double share_bytes = 4.0 * static_cast<double>(share);
      const double read = share_bytes * n / median_seconds(n, [&](unsigned t) { return k.read(x.data() + t * share, share); }) / 1e9;
      const double update =
          3 * share_bytes * n /
          median_seconds(n, [&](unsigned t) { return k.update(x.data() + t * share, y.data() + t * share, share); }) / 1e9;

      // Random rows: each touch reads and writes a row (the previous one stays in L1).
      const long touches = 40'000'000 / static_cast<long>(p / 16);
      const auto rows_rate = [&](std::vector<float>& table, std::size_t rows) {
        return 8.0 * floats * static_cast<double>(touches) * n /
               median_seconds(n, [&](unsigned t) { return k.rows(table.data(), rows, p, touches, t + 1); }) / 1e9;
      };
      const double small = rows_rate(small_table, small_rows), big = rows_rate(big_table, big_rows);
      const std::string level(embed::cpu_isa_name(k.isa));
      std::printf("%-9s %-9u %10.1f %10.1f %10.1f %10.1f %11.1f %11.1f %11.1f\n", level.c_str(), n, fma, mul_add, row, read,
                  update, small, big);
      std::fflush(stdout);
      if (threads == 1) break;
    }
  }
  std::printf("(fma 0: no FMA at that level. rows small: a %.0f MB table; rows big: %.0f MB. GB/s of rows: read + written.)\n",
              4.0 * static_cast<double>(small_rows) * floats / 1e6, 4.0 * static_cast<double>(big_rows) * floats / 1e6);
  return 0;
}
