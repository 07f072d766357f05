#include "search/ann/hnsw_build.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <mutex>
#include <thread>

// hnswlib 0.6 (Debian 12's) prefetches one link past the end of a neighbour list in its
// SSE path (fixed upstream in 0.7): a read of a few bytes beyond a heap block, harmless
// outside a sanitizer but reported by AddressSanitizer. Sanitizer builds take its plain path.
#if defined(__SANITIZE_ADDRESS__)
#define NO_MANUAL_VECTORIZATION
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NO_MANUAL_VECTORIZATION
#endif
#endif
#include <hnswlib/hnswlib.h>

#include "core/error.h"
#include "format/embedding_table.h"

namespace embed {
namespace {

// Rows a worker takes at a time (progress is reported between them).
constexpr std::size_t kChunkRows = 1024;

}  // namespace

HnswArrays build_hnsw(std::span<const float> rows, std::size_t dim, const HnswBuildOptions& options) {
  EMBED_ASSERT(dim > 0 && rows.size() % dim == 0);
  const std::size_t count = rows.size() / dim;
  if (count >= kNoNeighbor) fail("an approximate index holds fewer than {} rows; these vectors have {}", kNoNeighbor, count);
  HnswArrays arrays;
  arrays.m = options.m;
  if (count == 0) return arrays;

  hnswlib::InnerProductSpace space(dim);
  hnswlib::HierarchicalNSW<float> index(&space, count, options.m, options.ef_construction, options.seed);
  // Rows go in by chunks, to each thread the next: with one thread in row order, so the
  // same seed gives the same graph.
  std::atomic<std::size_t> next_chunk{0}, added{0};
  std::mutex failure_lock;
  std::exception_ptr failure;
  auto insert = [&](bool reports) {
    std::vector<float> unit(dim);
    try {
      for (std::size_t chunk; (chunk = next_chunk.fetch_add(1)) * kChunkRows < count;) {
        const std::size_t first = chunk * kChunkRows, end = std::min(count, first + kChunkRows);
        for (std::size_t r = first; r < end; ++r) {
          std::copy_n(rows.begin() + static_cast<std::ptrdiff_t>(r * dim), dim, unit.begin());
          normalize_rows(unit, dim, 1);
          index.addPoint(unit.data(), r);
        }
        added += end - first;
        if (reports && options.on_progress) options.on_progress(added);
      }
    } catch (...) {
      std::lock_guard lock(failure_lock);
      if (!failure) failure = std::current_exception();
      next_chunk = count;  // the others stop
    }
  };
  const unsigned threads = static_cast<unsigned>(std::clamp<std::size_t>(options.threads, 1, (count + kChunkRows - 1) / kChunkRows));
  std::vector<std::thread> workers;
  for (unsigned t = 1; t < threads; ++t) workers.emplace_back(insert, false);
  insert(true);
  for (auto& w : workers) w.join();
  if (failure) {
    try {
      std::rethrow_exception(failure);
    } catch (const std::exception& e) {
      fail("building the approximate index: hnswlib: {}", e.what());
    }
  }
  if (options.on_progress) options.on_progress(count);

  // hnswlib numbers rows in the order they went in (its internal ids); ours are the rows.
  std::vector<std::uint32_t> row_of(count);
  for (std::size_t id = 0; id < count; ++id) row_of[id] = static_cast<std::uint32_t>(index.getExternalLabel(static_cast<hnswlib::tableint>(id)));
  std::vector<std::size_t> id_of(count);
  for (std::size_t id = 0; id < count; ++id) id_of[row_of[id]] = id;
  arrays.levels.resize(count);
  arrays.offsets.resize(count + 1);
  for (std::size_t r = 0; r < count; ++r) {
    const int top = index.element_levels_[id_of[r]];
    if (top + 1 > std::numeric_limits<std::uint8_t>::max()) fail("building the approximate index: a row drew {} layers", top + 1);
    arrays.levels[r] = static_cast<std::uint8_t>(top + 1);
    arrays.offsets[r + 1] = arrays.offsets[r] + 2 * std::int64_t{options.m} + std::int64_t{top} * options.m;
  }
  arrays.neighbors.assign(static_cast<std::size_t>(arrays.offsets[count]), kNoNeighbor);
  for (std::size_t r = 0; r < count; ++r) {
    const auto id = static_cast<hnswlib::tableint>(id_of[r]);
    std::size_t slot = static_cast<std::size_t>(arrays.offsets[r]);
    for (int layer = 0; layer <= index.element_levels_[id]; ++layer) {
      hnswlib::linklistsizeint* list = layer == 0 ? index.get_linklist0(id) : index.get_linklist(id, layer);
      const std::size_t size = index.getListCount(list), capacity = layer == 0 ? 2 * std::size_t{options.m} : options.m;
      const auto* links = reinterpret_cast<const hnswlib::tableint*>(list + 1);
      for (std::size_t i = 0; i < std::min(size, capacity); ++i) arrays.neighbors[slot + i] = row_of[links[i]];
      slot += capacity;
    }
  }
  arrays.entry_point = row_of[index.enterpoint_node_];
  arrays.max_level = static_cast<unsigned>(std::max(0, index.maxlevel_));
  return arrays;
}

}  // namespace embed
