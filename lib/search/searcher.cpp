#include "search/searcher.h"

#include <algorithm>
#include <chrono>

#include <spdlog/spdlog.h>

#include "core/error.h"
#include "core/progress.h"

namespace embed {
namespace {

// The GPU search's shape for `rows` of `space`: compressed rows searched as decoded f32.
GpuSearchShape gpu_shape(const VectorSpace& space, std::uint64_t rows, std::size_t k, std::size_t shared_memory) {
  GpuSearchShape shape{rows, space.dim(), space.compressed() ? DType::f32 : space.dtype(), k, shared_memory};
  if (space.compressed()) {
    shape.storage = space.emb()->storage();
    if (const PqCodebooks* books = space.emb()->pq_codebooks()) shape.pq_m = books->m;
  }
  return shape;
}

std::uint64_t searched_rows(const VectorSpace& space, std::uint64_t restrict_rows) {
  return restrict_rows ? std::min(restrict_rows, space.rows()) : space.rows();
}

}  // namespace

Searcher::Searcher(const VectorSpace& space, DeviceOptions options, std::size_t k, std::uint64_t rows)
    : space_(space), options_(std::move(options)), k_(k), cpu_(space) {
  if (options_.index) {
    // The kind the .emb holds; without an index (or an .emb), the first kind's open()
    // fails with how to add one.
    const IndexKindSpec* kind = space_.emb() ? stored_index_kind(*space_.emb()) : nullptr;
    ann_ = (kind ? kind : &index_kinds()[0])->open(space_, *options_.index);
    return;
  }
  if (options_.request.device != DeviceChoice::cuda) return;
  if (k > kGpuMaxK) {
    fail("--device cuda: -k {} is above the GPU's limit of {} neighbours per query; use --device cpu", k, kGpuMaxK);
  }
  if (const std::string why = probe_device(); !device_) fail("--device cuda: no usable GPU: {}", why);
  // Planned now so that a budget too small fails before any query is read.
  const GpuSearchShape shape = gpu_shape(space_, searched_rows(space_, rows), k, device_->shared_memory);
  try {
    plan_gpu_search(shape, gpu_budget(options_.request, *device_));
  } catch (const Error& e) {
    fail("--device cuda: {}", e.what());
  }
}

Searcher::~Searcher() = default;

std::string Searcher::probe_device() {
  probed_ = true;
  std::string why(kNoCudaBackend);
  if (options_.gpu.built()) device_ = options_.gpu.find_device(options_.request.ordinal, why);
  return why;
}

bool Searcher::wants_gpu(std::span<const SearchQuery> queries, const SearchOptions& options) const {
  if (options_.request.device == DeviceChoice::cpu || gpu_off_) return false;
  const bool too_long =
      std::any_of(queries.begin(), queries.end(), [](const SearchQuery& q) { return q.terms.size() > kGpuMaxTerms; });
  if (too_long) {
    spdlog::debug("a query of more than {} words: this batch is answered on the CPU", kGpuMaxTerms);
    return false;
  }
  if (options_.request.device == DeviceChoice::cuda) return true;
  return queries.size() >= kGpuMinQueries && options.k <= kGpuMaxK && options_.gpu.built();
}

Index* Searcher::gpu_for(const SearchOptions& options) {
  std::uint64_t rows = searched_rows(space_, options.restrict_rows);
  if (!probed_) {
    if (const std::string why = probe_device(); !device_) {
      spdlog::debug("--device auto: no usable GPU ({}); searching on the CPU", why);
      gpu_off_ = true;
      return nullptr;
    }
  }
  if (gpu_ && gpu_rows_ >= rows && k_ >= options.k) return gpu_.get();
  // A batch searching more rows (or asking for more neighbours) than the searcher holds:
  // make a new one for the larger of both.
  gpu_.reset();
  rows = std::max(rows, gpu_rows_);
  k_ = std::max(k_, options.k);
  const GpuSearchShape shape = gpu_shape(space_, rows, k_, device_->shared_memory);
  const std::uint64_t budget = gpu_budget(options_.request, *device_);
  GpuSearchPlan plan;
  try {
    plan = plan_gpu_search(shape, budget);
  } catch (const Error& e) {
    if (options_.request.device == DeviceChoice::cuda) fail("--device cuda: {}", e.what());
    spdlog::info("--device auto: {}; searching on the CPU", e.what());
    gpu_off_ = true;
    return nullptr;
  }
  const auto start = std::chrono::steady_clock::now();
  gpu_ = options_.gpu.make({&space_, shape, plan, *device_, options.threads});
  gpu_rows_ = rows;
  const std::uint64_t row_bytes = shape.row_bytes();
  spdlog::debug("GPU search on {}: {} rows {} ({}), top-{} on the device, set up in {:.1f} ms", device_->description(), rows,
                plan.resident ? "copied to the device" : fmt::format("streamed through two buffers of {} rows", plan.chunk_rows),
                human_bytes(static_cast<double>(plan.resident ? rows * row_bytes : 2 * plan.chunk_rows * row_bytes)), k_,
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  return gpu_.get();
}

std::vector<std::vector<Hit>> Searcher::search(std::span<const SearchQuery> queries, const SearchOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  auto answered = [&](const char* where) {
    spdlog::debug("{} {} answered on the {} in {:.1f} ms", queries.size(), queries.size() == 1 ? "query" : "queries", where,
                  std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  };
  if (ann_) {
    std::vector<std::vector<Hit>> results = ann_->search(queries, options);
    if (!queries.empty()) answered("approximate index");
    return results;
  }
  if (!queries.empty() && wants_gpu(queries, options)) {
    try {
      if (Index* gpu = gpu_for(options)) {
        std::vector<std::vector<Hit>> results = gpu->search(queries, options);
        answered("GPU");
        return results;
      }
    } catch (const Error& e) {
      if (options_.request.device == DeviceChoice::cuda) throw;
      spdlog::warn("--device auto: the GPU search failed ({}); searching on the CPU from now on", e.what());
      gpu_.reset();
      gpu_off_ = true;
    }
  }
  std::vector<std::vector<Hit>> results = cpu_.search(queries, options);
  if (!queries.empty()) answered("CPU");
  return results;
}

}  // namespace embed
