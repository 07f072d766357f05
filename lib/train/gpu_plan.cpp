#include "train/gpu_plan.h"

#include <algorithm>

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
  for (auto p : {TablePlacement::automatic, TablePlacement::host, TablePlacement::device}) {
    if (name == table_placement_name(p)) return p;
  }
  return std::nullopt;
}

std::string_view host_transfer_name(HostTransfer transfer) { return transfer == HostTransfer::gather ? "gather" : "mapped"; }

std::optional<HostTransfer> parse_host_transfer(std::string_view name) {
  for (auto t : {HostTransfer::gather, HostTransfer::mapped}) {
    if (name == host_transfer_name(t)) return t;
  }
  return std::nullopt;
}

std::uint64_t gpu_slot_bytes(const GpuTrainShape& shape, TablePlacement placement, HostTransfer transfer,
                             std::size_t batch_words, GpuMemoryPlan* fill) {
  const bool host = placement == TablePlacement::host;
  // A batch's inputs are its own (kept) words, its outputs those words and their negatives.
  const std::size_t input_rows = host ? std::min(shape.rows, batch_words) : 0;
  const std::size_t output_rows = host ? std::min(shape.rows, batch_words * (1 + shape.negatives)) : 0;
  const std::size_t ids = packed_words_bound(batch_words, shape.max_inputs_per_window, shape.negatives,
                                             input_rows + output_rows);
  // Host placement: the working copy of the rows, and for mapped transfers their
  // originals too (gather keeps the originals in host staging).
  const std::uint64_t copies = !host ? 0 : transfer == HostTransfer::mapped ? 2 : 1;
  const std::uint64_t row_bytes = std::uint64_t{shape.stride} * dtype_size(shape.storage);
  const std::uint64_t total = ids * sizeof(std::uint32_t) + sizeof(double) + copies * (input_rows + output_rows) * row_bytes;
  if (fill) {
    fill->max_input_rows = input_rows;
    fill->max_output_rows = output_rows;
    fill->ids_words = ids;
    fill->slot_bytes = total;
  }
  return total;
}

GpuMemoryPlan plan_gpu_memory(const GpuTrainShape& shape, const GpuOptions& options, std::uint64_t budget) {
  EMBED_ASSERT(shape.workers > 0 && shape.rows > 0 && shape.stride >= shape.dim);
  const std::size_t full_batch = TrainBackend::kDefaultBatchWords;
  GpuMemoryPlan plan;
  plan.workers = shape.workers;
  plan.transfer = options.transfer;

  const std::uint64_t table_bytes = 2ull * shape.rows * shape.stride * dtype_size(shape.storage);
  const std::uint64_t device_need = fixed_bytes(shape, TablePlacement::device) + table_bytes +
                                    2ull * shape.workers * gpu_slot_bytes(shape, TablePlacement::device, options.transfer, full_batch);
  if (options.table != TablePlacement::host && device_need <= budget) {
    plan.placement = TablePlacement::device;
    plan.batch_words = full_batch;
    plan.slots_per_worker = 2;
    plan.table_bytes = table_bytes;
    plan.fixed_bytes = fixed_bytes(shape, TablePlacement::device);
    gpu_slot_bytes(shape, TablePlacement::device, options.transfer, full_batch, &plan);
    return plan;
  }
  if (options.table == TablePlacement::device) {
    fail("--table device: the two {} tables ({} rows x {} dims) and their batches need {} of GPU memory, more than "
         "the {} allowed; use --table host (the tables stay in host memory) or a larger --gpu-memory",
         vector_dtype_name(shape.storage), shape.rows, shape.dim, bytes(device_need), bytes(budget));
  }

  // Host placement: the largest batches that fit with two slots per worker, else one.
  plan.placement = TablePlacement::host;
  plan.fixed_bytes = fixed_bytes(shape, TablePlacement::host);
  auto fits = [&](unsigned slots, std::size_t words) {
    return plan.fixed_bytes + std::uint64_t{slots} * shape.workers *
                                  gpu_slot_bytes(shape, TablePlacement::host, options.transfer, words) <=
           budget;
  };
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
    if (words > 0 && (slots == 1 || words >= full_batch / 5)) {
      plan.slots_per_worker = slots;
      plan.batch_words = words;
      gpu_slot_bytes(shape, TablePlacement::host, options.transfer, words, &plan);
      return plan;
    }
  }
  const std::uint64_t least =
      plan.fixed_bytes + std::uint64_t{shape.workers} *
                             gpu_slot_bytes(shape, TablePlacement::host, options.transfer, kMinBatchWords);
  fail("--table host: {} workers' batches need at least {} of GPU memory, more than the {} allowed; raise "
       "--gpu-memory or lower --threads",
       shape.workers, bytes(least), bytes(budget));
}

}  // namespace embed
