#include "train/gpu_plan.h"

#include <algorithm>

#include "core/enum_names.h"
#include "core/error.h"
#include "core/progress.h"
#include "train/logistic_table.h"
#include "train/packed_batch.h"
#include "train/train_backend.h"

namespace embed {
namespace {

std::string bytes(std::uint64_t n) { return human_bytes(static_cast<double>(n)); }

std::uint64_t fixed_bytes(const GpuTrainShape& shape, TablePlacement placement) {
  const std::uint64_t logistic = 2ull * (LogisticTable::kSteps + 1) * sizeof(float);
  const std::uint64_t one_table = std::uint64_t{shape.rows} * shape.stride * sizeof(float);
  return logistic + (placement == TablePlacement::device ? std::min(kTransferBufferBytes, one_table) : 0);
}

}  // namespace

std::string_view table_placement_name(TablePlacement placement) {
  switch (placement) {
    case TablePlacement::automatic: return "auto";
    case TablePlacement::host: return "host";
    case TablePlacement::device: return "device";
  }
  return "?";
}

std::optional<TablePlacement> parse_table_placement(std::string_view name) {
  return parse_by_name(name, {TablePlacement::automatic, TablePlacement::host, TablePlacement::device},
                       table_placement_name);
}

std::string_view host_transfer_name(HostTransfer transfer) { return transfer == HostTransfer::gather ? "gather" : "mapped"; }

std::optional<HostTransfer> parse_host_transfer(std::string_view name) {
  return parse_by_name(name, {HostTransfer::gather, HostTransfer::mapped}, host_transfer_name);
}

namespace {

// The plan for `slots` batches of `batch_words` words per worker in `placement`,
// with every size filled in; total_bytes() says whether it fits.
GpuMemoryPlan sized_plan(const GpuTrainShape& shape, TablePlacement placement, HostTransfer transfer, unsigned slots,
                         std::size_t batch_words) {
  const bool host = placement == TablePlacement::host;
  GpuMemoryPlan plan;
  plan.placement = placement;
  plan.transfer = transfer;
  plan.workers = shape.workers;
  plan.slots_per_worker = slots;
  plan.batch_words = batch_words;
  plan.fixed_bytes = fixed_bytes(shape, placement);
  const std::uint64_t row_bytes = std::uint64_t{shape.stride} * dtype_size(shape.storage);
  plan.table_bytes = host ? 0 : 2 * shape.rows * row_bytes;
  // A batch's inputs are its own (kept) words, its outputs those words and their negatives.
  plan.max_input_rows = host ? std::min(shape.rows, batch_words) : 0;
  plan.max_output_rows = host ? std::min(shape.rows, batch_words * (1 + shape.negatives)) : 0;
  const std::size_t rows = plan.max_input_rows + plan.max_output_rows;
  plan.ids_words = packed_words_bound(batch_words, shape.max_inputs_per_window, shape.negatives, rows);
  // Host placement: the working copy of the rows, and for mapped transfers their
  // originals too (gather keeps the originals in host staging).
  const std::uint64_t copies = !host ? 0 : transfer == HostTransfer::mapped ? 2 : 1;
  plan.slot_bytes = plan.ids_words * sizeof(std::uint32_t) + sizeof(double) + copies * rows * row_bytes;
  return plan;
}

}  // namespace

GpuMemoryPlan plan_gpu_memory(const GpuTrainShape& shape, const GpuOptions& options, std::uint64_t budget) {
  EMBED_ASSERT(shape.workers > 0 && shape.rows > 0 && shape.stride >= shape.dim);
  const std::size_t full_batch = TrainBackend::kDefaultBatchWords;
  const GpuMemoryPlan device = sized_plan(shape, TablePlacement::device, options.transfer, 2, full_batch);
  if (options.table != TablePlacement::host && device.total_bytes() <= budget) return device;
  if (options.table == TablePlacement::device) {
    fail("--table device: the two {} tables ({} rows x {} dims) and their batches need {} of GPU memory, more than "
         "the {} allowed; use --table host (the tables stay in host memory) or a larger --gpu-memory",
         vector_dtype_name(shape.storage), shape.rows, shape.dim, bytes(device.total_bytes()), bytes(budget));
  }

  // Host placement: the largest batches that fit with two slots per worker, else one.
  auto host = [&](unsigned slots, std::size_t words) {
    return sized_plan(shape, TablePlacement::host, options.transfer, slots, words);
  };
  auto fits = [&](unsigned slots, std::size_t words) { return host(slots, words).total_bytes() <= budget; };
  auto largest_batch = [&](unsigned slots) -> std::size_t {
    if (!fits(slots, kMinBatchWords)) return 0;
    std::size_t low = kMinBatchWords, high = full_batch;  // fits(low); find the largest that fits
    if (fits(slots, high)) return high;
    while (high - low > 1) {
      const std::size_t mid = (low + high) / 2;
      (fits(slots, mid) ? low : high) = mid;
    }
    return low;
  };
  for (unsigned slots : {2u, 1u}) {
    const std::size_t words = largest_batch(slots);
    // Double buffering is worth smaller batches down to a fifth of the full size.
    if (words > 0 && (slots == 1 || words >= full_batch / 5)) return host(slots, words);
  }
  fail("--table host: {} workers' batches need at least {} of GPU memory, more than the {} allowed; raise "
       "--gpu-memory or lower --threads",
       shape.workers, bytes(host(1, kMinBatchWords).total_bytes()), bytes(budget));
}

}  // namespace embed
