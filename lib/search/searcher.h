// Where each batch of queries is answered: the exact CPU index, or the GPU index of
// this build (gpu_index.h). --device cpu always uses the CPU; cuda answers every
// batch on the GPU and fails at construction when there is none; auto (embed-query's
// default) uses the GPU for batches of at least kGpuMinQueries queries when the build
// has it and a device is usable, and the CPU otherwise. The GPU is looked for and the
// rows are copied to it on the first batch that goes there, and kept for the next ones
// (a stream of stdin batches, an evaluation). With --ann every batch goes to the .emb's
// approximate index instead (search/ann/).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "device/gpu_device.h"
#include "search/exact_search.h"
#include "search/gpu_index.h"
#include "search/index_kinds.h"
#include "search/vector_space.h"

namespace embed {

// Batches from this size on go to the GPU under --device auto. A small batch costs the
// CPU little more than reading the rows once (about 14 ms for 400,000 x 300 on two cores,
// bench/RESULTS.md), while a GPU batch has fixed costs (launches per block of rows, copies
// of queries and answers) and the first one also the CUDA context and the copy of the rows
// (a fraction of a second). By 64 queries the CPU is bound by arithmetic (about 1.3 ms per
// query there), which the GPU does two orders of magnitude faster.
inline constexpr std::size_t kGpuMinQueries = 64;

struct DeviceOptions {
  GpuRequest request;  // --device, --gpu, --gpu-memory
  GpuSearcher gpu;     // the registry's; empty in a build without CUDA
  // --ann: every batch searches the .emb's approximate index on the CPU, with these
  // settings (--ef); nullopt: exact search.
  std::optional<IndexSearchSettings> index;
};

class Searcher {
 public:
  // `k`: the most neighbours a batch asks for; `rows`: the rows batches search (the
  // --restrict prefix, or all). With DeviceChoice::cuda the device is found and the memory
  // planned now: throws embed::Error "--device cuda: ..." when there is no usable GPU,
  // k is above kGpuMaxK or the rows cannot fit in the budget even streamed.
  Searcher(const VectorSpace& space, DeviceOptions options, std::size_t k, std::uint64_t rows);
  ~Searcher();
  Searcher(const Searcher&) = delete;
  Searcher& operator=(const Searcher&) = delete;

  // As search(space, queries, options), on the device chosen for this batch.
  std::vector<std::vector<Hit>> search(std::span<const SearchQuery> queries, const SearchOptions& options);

 private:
  bool wants_gpu(std::span<const SearchQuery> queries, const SearchOptions& options) const;
  // Looks for the GPU --gpu names, once: sets device_, or returns why there is none.
  std::string probe_device();
  // The GPU index for the batch's rows and k, made on first use; nullptr (auto only) when unusable.
  Index* gpu_for(const SearchOptions& options);

  const VectorSpace& space_;
  DeviceOptions options_;
  std::size_t k_;
  ExactIndex cpu_;
  std::unique_ptr<Index> ann_;  // --ann
  std::optional<GpuDevice> device_;
  bool probed_ = false;   // find_device has been asked
  bool gpu_off_ = false;  // auto: the GPU is unusable for this process (logged once)
  std::unique_ptr<Index> gpu_;
  std::uint64_t gpu_rows_ = 0;
};

}  // namespace embed
