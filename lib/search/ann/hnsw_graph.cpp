#include "search/ann/hnsw_graph.h"

#include <algorithm>
#include <queue>

#include <fmt/format.h>

#include "core/cpu_isa.h"

namespace embed {

std::span<const std::uint32_t> HnswGraph::neighbours(std::uint64_t row, unsigned layer) const {
  if (row >= levels.size() || layer >= levels[row] || row + 1 >= offsets.size()) return {};
  const std::int64_t begin = offsets[row], end = offsets[row + 1];
  // Layer 0 holds 2M slots, each layer above M.
  const std::uint64_t first = layer == 0 ? 0 : 2 * std::uint64_t{m} + (layer - 1) * std::uint64_t{m};
  const std::uint64_t size = layer == 0 ? 2 * std::uint64_t{m} : m;
  if (begin < 0 || end < begin || static_cast<std::uint64_t>(end) > neighbors.size() ||
      first + size > static_cast<std::uint64_t>(end - begin)) {
    return {};
  }
  return neighbors.subspan(static_cast<std::size_t>(begin) + first, size);
}

std::string HnswGraph::shape_problem(std::uint64_t rows) const {
  if (levels.size() != rows) return fmt::format("levels has {} entries for {} rows", levels.size(), rows);
  if (offsets.size() != rows + 1) return fmt::format("offsets has {} entries for {} rows", offsets.size(), rows);
  if (m < 2 || m > 256) return fmt::format("M {} is out of range 2..256", m);
  if (max_level > 64) return fmt::format("max level {} is out of range 0..64", max_level);
  if (rows > 0 && (entry_point < 0 || static_cast<std::uint64_t>(entry_point) >= rows)) {
    return fmt::format("entry point {} is not a row", entry_point);
  }
  if (rows > 0 && (offsets.front() != 0 || offsets.back() < 0 || static_cast<std::uint64_t>(offsets.back()) != neighbors.size())) {
    return fmt::format("offsets do not span the {} neighbours", neighbors.size());
  }
  return "";
}

RowScorer::RowScorer(const VectorSpace& space, std::span<const float> unit_query)
    : space_(space),
      rows_(space.rows() ? space.stored_rows(0) : nullptr),
      row_bytes_(space.stored_row_bytes()),
      query_(unit_query),
      scratch_(space.dtype() == DType::f32 ? 0 : space.dim()) {}

void RowScorer::prefetch(std::uint64_t row) const {
  // The first cache lines; the hardware prefetcher follows a row once it is being read.
  const std::byte* p = rows_ + row * row_bytes_;
  for (std::size_t offset = 0; offset < std::min<std::size_t>(row_bytes_, 256); offset += 64) __builtin_prefetch(p + offset);
}

namespace {

// The search's inner loop: one row against the query. Vectorised without -ffast-math, as
// sgemm.cpp's kernel, and compiled once per instruction-set level (core/cpu_isa.h).
__attribute__((always_inline)) inline float dot_loop(const float* a, const float* b, std::size_t n) {
  float sum = 0;
#pragma omp simd reduction(+ : sum)
  for (std::size_t i = 0; i < n; ++i) sum += a[i] * b[i];
  return sum;
}
EMBED_TARGET_AVX512 float dot_avx512(const float* a, const float* b, std::size_t n) { return dot_loop(a, b, n); }
EMBED_TARGET_AVX2 float dot_avx2(const float* a, const float* b, std::size_t n) { return dot_loop(a, b, n); }
float dot_baseline(const float* a, const float* b, std::size_t n) { return dot_loop(a, b, n); }

float dot(const float* a, const float* b, std::size_t n) {
  static const auto for_cpu = version_for(cpu_isa(), &dot_avx512, &dot_avx2, &dot_baseline);
  return for_cpu(a, b, n);
}

}  // namespace

float RowScorer::score(std::uint64_t row) {
  const float* v = space_.rows_f32(row, 1, scratch_.data());
  const float norm = space_.norms()[row];
  return norm > 0 ? dot(query_.data(), v, query_.size()) / norm : 0.0f;
}

void VisitedRows::start(std::uint64_t rows) {
  const std::uint64_t words = (rows + 63) / 64;
  if (bits_.size() != words) {
    bits_.assign(words, 0);
  } else {
    for (std::uint64_t w : set_words_) bits_[w] = 0;
  }
  set_words_.clear();
}

std::vector<Hit> hnsw_search(const HnswGraph& graph, RowScorer& scorer, std::size_t ef, VisitedRows& visited) {
  const std::uint64_t rows = graph.rows();
  if (rows == 0 || graph.entry_point < 0 || static_cast<std::uint64_t>(graph.entry_point) >= rows || ef == 0) return {};
  auto valid = [&](std::uint32_t n) { return n < rows; };  // also false for kNoNeighbor

  // Upper layers: move to the best neighbour while one is better.
  std::uint64_t current = static_cast<std::uint64_t>(graph.entry_point);
  float current_score = scorer.score(current);
  for (unsigned layer = graph.max_level; layer >= 1; --layer) {
    for (bool moved = true; moved;) {
      moved = false;
      for (const std::uint32_t n : graph.neighbours(current, layer)) {
        if (!valid(n)) continue;
        const float s = scorer.score(n);
        if (s > current_score) {
          current = n;
          current_score = s;
          moved = true;
        }
      }
    }
  }

  // Layer 0: a beam of the ef best found so far; candidates are expanded best first
  // until the best unexpanded one cannot improve the beam.
  visited.start(rows);
  auto worse = [](const Hit& a, const Hit& b) { return better(a, b); };      // min-heap on top: the worst kept
  auto lower = [](const Hit& a, const Hit& b) { return better(b, a); };      // max-heap: the best candidate
  std::priority_queue<Hit, std::vector<Hit>, decltype(worse)> beam(worse);
  std::priority_queue<Hit, std::vector<Hit>, decltype(lower)> candidates(lower);
  visited.visit(current);
  beam.push({current, current_score});
  candidates.push({current, current_score});
  while (!candidates.empty()) {
    const Hit next = candidates.top();
    if (beam.size() >= ef && better(beam.top(), next)) break;
    candidates.pop();
    // The list's new rows first, each prefetched, then scored: their loads overlap.
    std::uint32_t fresh[512];
    std::size_t count = 0;
    for (const std::uint32_t n : graph.neighbours(next.row, 0)) {
      if (!valid(n) || !visited.visit(n) || count == std::size(fresh)) continue;
      scorer.prefetch(n);
      fresh[count++] = n;
    }
    for (std::size_t i = 0; i < count; ++i) {
      const std::uint32_t n = fresh[i];
      const Hit hit{n, scorer.score(n)};
      if (beam.size() < ef || better(hit, beam.top())) {
        candidates.push(hit);
        beam.push(hit);
        if (beam.size() > ef) beam.pop();
      }
    }
  }
  std::vector<Hit> found;
  found.reserve(beam.size());
  for (; !beam.empty(); beam.pop()) found.push_back(beam.top());
  std::sort(found.begin(), found.end(), better);
  return found;
}

}  // namespace embed
