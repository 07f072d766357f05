#include "train/gpu/gpu_plan.h"

#include <algorithm>
#include <cstdlib>
#include <functional>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/enum_names.h"
#include "core/error.h"
#include "core/progress.h"
#include "train/engine/row_matrix.h"
#include "train/glove/glove_layout.h"
#include "train/gpu/packed_batch.h"
#include "train/word2vec/logistic_table.h"
#include "train/word2vec/word2vec_backend.h"

namespace embed {
namespace {

std::string bytes(std::uint64_t n) { return human_bytes(static_cast<double>(n)); }

// Summed steps: what each row id the kernels see costs (kernels/train/summed_kernels.h's
// KernelRowSums): its sum, its listed flag and its place in the list.
std::uint64_t sum_row_bytes(const GpuTrainShape& shape) {
  if (shape.summed_windows == 0) return 0;
  return std::uint64_t{RowMatrix::stride_for(shape.dim)} * sizeof(float) + 2 * sizeof(std::uint32_t);
}

// --subwords: the input table's rows its words list (all when not known).
std::size_t touched_input_rows(const GpuTrainShape& shape) {
  return shape.listed_input_rows > 0 ? shape.listed_input_rows : shape.rows + shape.bucket_rows;
}

std::uint64_t fixed_bytes(const GpuTrainShape& shape, TablePlacement placement) {
  const std::uint64_t logistic = 2ull * (LogisticTable::kSteps + 1) * sizeof(float);
  const std::uint64_t one_table = std::uint64_t{shape.rows + shape.bucket_rows} * shape.stride * sizeof(float);
  if (placement != TablePlacement::device) return logistic;
  // --subwords: each word's row ids, their offsets, and the words' gains.
  const std::uint64_t subwords = shape.subword_ids == 0 ? 0 : (shape.subword_ids + 2 * std::uint64_t{shape.rows} + 1) * 4;
  return logistic + subwords + std::min(kTransferBufferBytes, one_table);
}

}  // namespace

namespace {
constexpr EnumName<TablePlacement> kPlacementNames[] = {
    {TablePlacement::automatic, "auto"}, {TablePlacement::host, "host"}, {TablePlacement::device, "device"}};
constexpr EnumName<HostTransfer> kTransferNames[] = {{HostTransfer::gather, "gather"}, {HostTransfer::mapped, "mapped"}};
}  // namespace

std::string_view table_placement_name(TablePlacement placement) { return name_in(kPlacementNames, placement); }
std::optional<TablePlacement> parse_table_placement(std::string_view name) { return parse_in(kPlacementNames, name); }
std::string_view host_transfer_name(HostTransfer transfer) { return name_in(kTransferNames, transfer); }
std::optional<HostTransfer> parse_host_transfer(std::string_view name) { return parse_in(kTransferNames, name); }
std::vector<std::string> table_placement_names() { return names_in(kPlacementNames); }
std::vector<std::string> host_transfer_names() { return names_in(kTransferNames); }

std::string host_placement_description(const GpuMemoryPlan& plan) {
  const double rows = static_cast<double>(plan.table_rows);
  const double percent = plan.table_rows == 0 ? 0 : 100.0 * static_cast<double>(plan.hot_rows) / rows;
  return fmt::format("tables in pinned host memory, the {} most frequent rows ({:.1f}%) in GPU memory, {} transfers",
                     plan.hot_rows, percent, host_transfer_name(plan.transfer));
}

std::string host_placement_description(const GpuMemoryPlan& plan, std::size_t hot_inputs, std::size_t hot_buckets,
                                       std::size_t hot_outputs) {
  const std::string buckets = hot_buckets == 0 ? "" : fmt::format(" ({} of them n-gram buckets)", hot_buckets);
  return fmt::format(
      "tables in pinned host memory, the most touched rows in GPU memory: {} of the input table's{} and {} of the "
      "output table's, {} transfers",
      hot_inputs, buckets, hot_outputs, host_transfer_name(plan.transfer));
}

namespace {

// The plan for `slots` batches of `batch_items` words per worker in `placement`,
// with every size filled in; total_bytes() says whether it fits.
// With `touched_hot` (host placement, --subwords), every row the batches can touch is
// hot (choose_plan makes sure), so nothing is copied and a slot holds one window's rows.
GpuMemoryPlan sized_plan(const GpuTrainShape& shape, TablePlacement placement, HostTransfer transfer, unsigned slots,
                         std::size_t batch_items, bool touched_hot = false) {
  const bool host = placement == TablePlacement::host;
  GpuMemoryPlan plan;
  plan.placement = placement;
  plan.transfer = transfer;
  plan.workers = shape.workers;
  plan.slots_per_worker = slots;
  plan.batch_items = batch_items;
  plan.table_rows = shape.rows;
  plan.hot_row_limit = shape.subword_ids == 0 ? shape.rows : (shape.rows + touched_input_rows(shape) + 1) / 2;
  plan.fixed_bytes = fixed_bytes(shape, placement);
  const std::uint64_t row_bytes = std::uint64_t{shape.stride} * dtype_size(shape.storage);
  plan.table_bytes = host ? 0 : (2 * shape.rows + shape.bucket_rows) * row_bytes;
  // A batch's inputs are its own (kept) words, its outputs those words and their negatives.
  // Its copied output rows are planned at kCopiedOutputRowsPerWord, not at every touch
  // being a row of its own: the negatives are drawn by frequency, so most fall on hot or
  // repeated rows, and a batch that lists more trains in parts (RowRemapper::windows_within).
  // A slot always holds one window's rows: its target and negatives, or (fastText's
  // skip-gram, negatives per pair) each context word and its negatives.
  const std::size_t window_outputs =
      (shape.negatives_per_input ? shape.max_inputs_per_window : 1) +
      window_negatives_bound(shape.max_inputs_per_window, shape.negatives, shape.negatives_per_input);
  // --subwords: a batch's words (at most its corpus words) and their lists, planned at the
  // vocabulary's mean list per corpus word (a batch lists each of its words once, and its
  // frequent words are short; one that lists more trains in parts:
  // RowRemapper::subword_windows_within), and at least one window's words of the longest
  // list; their copied rows at kCopiedSubwordRowsPerWord, and at least one window's.
  const bool subwords = host && shape.subword_ids > 0;
  const std::size_t window_listed = shape.max_inputs_per_window * shape.longest_word_rows;
  if (subwords) {
    const std::size_t mean_rows = (shape.subword_ids + shape.rows - 1) / shape.rows;
    plan.max_words = batch_items;
    plan.max_listed = std::max(mean_rows * batch_items, window_listed);
  }
  plan.max_input_rows = !host ? 0
                        : subwords
                            ? std::min({shape.rows + shape.bucket_rows, plan.max_listed,
                                        std::max(touched_hot ? 0 : batch_items * kCopiedSubwordRowsPerWord, window_listed)})
                            : std::min(shape.rows, std::max(batch_items, shape.max_inputs_per_window));
  plan.max_output_rows =
      !host ? 0
      : touched_hot
          ? std::min(shape.rows, window_outputs)
          : std::min(shape.rows, std::max(batch_items * std::min(kCopiedOutputRowsPerWord, 1 + shape.negatives), window_outputs));
  const std::size_t rows = plan.max_input_rows + plan.max_output_rows;
  // Summed steps: a sum per row id, which one set serves for every slot (the batches'
  // kernels run one at a time); host placement's hot rows add theirs (with_hot_rows).
  plan.sum_bytes = sum_row_bytes(shape) * (host ? rows : 2 * shape.rows + shape.bucket_rows);
  plan.ids_words =
      packed_words_bound(batch_items, shape.max_inputs_per_window, shape.negatives, shape.negatives_per_input, rows) +
      (subwords ? 2 * plan.max_words + 1 + plan.max_listed : 0);
  // Host placement: the working copy of the rows (the originals stay in host staging).
  const std::uint64_t copies = host ? 1 : 0;
  plan.slot_bytes = plan.ids_words * sizeof(std::uint32_t) + sizeof(double) + copies * rows * row_bytes;
  return plan;
}

// Makes the plan of `slots` batches of `batch` items per worker in a placement.
using SizedPlan = std::function<GpuMemoryPlan(TablePlacement placement, unsigned slots, std::size_t batch)>;

// What a hot row costs in GPU memory: its two tables' rows in storage, and for f16/bf16
// its f32 row in the conversion buffer (up to kTransferBufferBytes).
struct HotRowCost {
  std::uint64_t row_bytes = 0;      // one row of one table, as stored on the device
  std::uint64_t convert_bytes = 0;  // one f32 row, where storage is converted; else 0
  std::uint64_t sum_bytes = 0;      // summed steps: its sum (sum_row_bytes), else 0
};

// Host placement: `plan` with as many hot rows as the rest of the budget holds.
GpuMemoryPlan with_hot_rows(GpuMemoryPlan plan, const HotRowCost& cost, const GpuOptions& options, std::uint64_t budget) {
  const std::uint64_t left = budget - plan.total_bytes();
  // Either the conversion buffer holds all the hot rows, or it is full size.
  const std::uint64_t per_hot_row = 2 * (cost.row_bytes + cost.sum_bytes);
  std::uint64_t hot = left / (per_hot_row + cost.convert_bytes);
  if (hot * cost.convert_bytes > kTransferBufferBytes) hot = (left - kTransferBufferBytes) / per_hot_row;
  plan.hot_rows = static_cast<std::size_t>(std::min<std::uint64_t>({hot, plan.hot_row_limit, options.max_hot_rows}));
  plan.table_bytes = 2 * plan.hot_rows * cost.row_bytes;
  plan.sum_bytes += 2 * plan.hot_rows * cost.sum_bytes;
  plan.fixed_bytes += std::min<std::uint64_t>(kTransferBufferBytes, plan.hot_rows * cost.convert_bytes);
  EMBED_ASSERT(plan.total_bytes() <= budget);
  return plan;
}

// GPU memory for `rows` hot rows of each table (with_hot_rows).
std::uint64_t hot_row_bytes(std::uint64_t rows, const HotRowCost& cost) {
  return 2 * rows * (cost.row_bytes + cost.sum_bytes) + std::min(kTransferBufferBytes, rows * cost.convert_bytes);
}

// Device placement when asked for or when it fits, else host placement; in either,
// the largest batches (from full_batch down to min_batch) that fit with two slots per
// worker, else one. Host placement's batches take half the budget (options.batch_share)
// when they fit in it, else their smallest size, and its hot rows the rest; but where
// every row the batches can touch fits as a hot row beside batches no smaller
// (`touched_hot` sizes them copying nothing: --subwords, whose words list only some of
// the buckets), that.
// `tables` names the tables for the error messages.
GpuMemoryPlan choose_plan(const SizedPlan& sized, const HotRowCost& hot_cost, std::size_t full_batch, std::size_t min_batch,
                          unsigned workers, const std::string& tables, const GpuOptions& options, std::uint64_t budget,
                          std::string_view hint = "", const SizedPlan* touched_hot = nullptr) {
  auto largest_batch = [&](const SizedPlan& sized_as, TablePlacement placement, unsigned slots,
                           std::uint64_t limit) -> std::size_t {
    auto fits = [&](std::size_t batch) { return sized_as(placement, slots, batch).total_bytes() <= limit; };
    if (!fits(min_batch)) return 0;
    std::size_t low = min_batch, high = full_batch;  // fits(low); find the largest that fits
    if (fits(high)) return high;
    while (high - low > 1) {
      const std::size_t mid = (low + high) / 2;
      (fits(mid) ? low : high) = mid;
    }
    return low;
  };
  auto plan_in = [&](const SizedPlan& sized_as, TablePlacement placement, std::uint64_t limit) -> std::optional<GpuMemoryPlan> {
    for (unsigned slots : {2u, 1u}) {
      const std::size_t batch = largest_batch(sized_as, placement, slots, limit);
      // Double buffering is worth smaller batches down to a fifth of the full size.
      if (batch > 0 && (slots == 1 || batch >= full_batch / 5)) return sized_as(placement, slots, batch);
    }
    return std::nullopt;
  };
  if (options.table != TablePlacement::host) {
    if (const auto device = plan_in(sized, TablePlacement::device, budget)) return *device;
  }
  if (options.table == TablePlacement::device) {
    fail(
        "--table device: {} and their batches need {} of GPU memory, more than the {} allowed; use --table host (the "
        "tables stay in host memory) or a larger --gpu-memory{}",
        tables, bytes(sized(TablePlacement::device, 1, min_batch).total_bytes()), bytes(budget), hint);
  }
  EMBED_ASSERT(options.batch_share > 0 && options.batch_share < 1);
  const auto batch_budget = static_cast<std::uint64_t>(static_cast<double>(budget) * options.batch_share);
  const std::optional<GpuMemoryPlan> host = plan_in(sized, TablePlacement::host, batch_budget);
  if (touched_hot) {
    const std::size_t limit = sized(TablePlacement::host, 1, min_batch).hot_row_limit;
    const std::uint64_t all_hot = hot_row_bytes(limit, hot_cost);
    if (limit <= options.max_hot_rows && all_hot < budget) {
      const auto touched = plan_in(*touched_hot, TablePlacement::host, budget - all_hot);
      if (touched && (!host || touched->batch_items >= host->batch_items)) {
        const GpuMemoryPlan plan = with_hot_rows(*touched, hot_cost, options, budget);
        if (plan.hot_rows == limit) return plan;
      }
    }
  }
  if (host) return with_hot_rows(*host, hot_cost, options, budget);
  // Batches that do not fit in their share of the budget get their smallest size, one slot
  // per worker, so that the hot rows get what is left (rather than the batches all of it).
  const GpuMemoryPlan smallest = sized(TablePlacement::host, 1, min_batch);
  if (smallest.total_bytes() <= budget) return with_hot_rows(smallest, hot_cost, options, budget);
  fail(
      "--table host: {} workers' batches need at least {} of GPU memory, more than the {} allowed; raise "
      "--gpu-memory or lower --threads{}",
      workers, bytes(smallest.total_bytes()), bytes(budget), hint);
}

}  // namespace

double host_batch_share(double plain) {
  const char* value = std::getenv("EMBED_HOST_BATCH_SHARE");
  if (value == nullptr) return plain;
  char* end = nullptr;
  const double share = std::strtod(value, &end);
  if (end == value || *end != '\0' || !(share > 0 && share < 1)) {
    fail("EMBED_HOST_BATCH_SHARE={}: expected a fraction between 0 and 1, such as 0.25", value);
  }
  spdlog::info("EMBED_HOST_BATCH_SHARE: host placement's batches take at most {} of the GPU memory budget", share);
  return share;
}

GpuMemoryPlan plan_gpu_memory(const GpuTrainShape& shape, const GpuOptions& options, std::uint64_t budget) {
  EMBED_ASSERT(shape.workers > 0 && shape.rows > 0 && shape.stride >= shape.dim);
  const SizedPlan sized = [&](TablePlacement placement, unsigned slots, std::size_t words) {
    return sized_plan(shape, placement, options.transfer, slots, words);
  };
  const SizedPlan touched_hot = [&](TablePlacement placement, unsigned slots, std::size_t words) {
    return sized_plan(shape, placement, options.transfer, slots, words, true);
  };
  // Hot rows converted between f32 host rows and f16/bf16 GPU rows pass through an f32
  // buffer, as the ranks' changes do; f16 host tables' rows are copied as they are stored.
  const bool converted = (shape.storage != DType::f32 && !shape.half_host_tables) || shape.rank_rounds;
  const HotRowCost hot_cost{std::uint64_t{shape.stride} * dtype_size(shape.storage),
                            converted ? std::uint64_t{shape.stride} * sizeof(float) : 0, sum_row_bytes(shape)};
  const std::string state = shape.state == 0 ? "" : fmt::format(" with {} floats of optimizer state per row", shape.state);
  return choose_plan(
      sized, hot_cost, kGpuBatchWords, kMinBatchWords, shape.workers,
      fmt::format("the two {} tables ({} rows x {} dims{})", vector_dtype_name(shape.storage), shape.rows, shape.dim, state),
      options, budget, shape.smaller_state, shape.listed_input_rows > 0 ? &touched_hot : nullptr);
}

GpuMemoryPlan plan_glove_gpu_memory(const GloveGpuShape& shape, const GpuOptions& options, std::uint64_t budget) {
  EMBED_ASSERT(shape.workers > 0 && shape.rows > 0 && shape.width > 0);
  const std::uint64_t row_bytes = std::uint64_t{shape.width} * sizeof(float);
  const std::uint64_t sum_bytes = shape.summed_records == 0 ? 0 : std::uint64_t{shape.params} * sizeof(float) + 8;
  const SizedPlan sized = [&](TablePlacement placement, unsigned slots, std::size_t records) {
    const bool host = placement == TablePlacement::host;
    GpuMemoryPlan plan;
    plan.placement = placement;
    plan.transfer = options.transfer;
    plan.workers = shape.workers;
    plan.slots_per_worker = slots;
    plan.batch_items = records;
    plan.table_rows = shape.rows;
    plan.hot_row_limit = shape.rows;
    plan.table_bytes = host ? 0 : 2 * shape.rows * row_bytes;
    // The ranks' changes pass through an f32 buffer (host placement: the hot rows' cost).
    if (!host && shape.rank_rounds) plan.fixed_bytes += std::min(kTransferBufferBytes, shape.rows * row_bytes);
    // A block of records touches at most one word row and one context row per record.
    plan.max_input_rows = host ? std::min(shape.rows, records) : 0;
    plan.max_output_rows = plan.max_input_rows;
    // The records, then (host placement) the rows they touch, for the mapped kernels.
    plan.ids_words = records * (sizeof(GloveRecord) / sizeof(std::uint32_t)) + plan.max_input_rows + plan.max_output_rows;
    const std::uint64_t copies = host ? 1 : 0;
    plan.slot_bytes = plan.ids_words * sizeof(std::uint32_t) + sizeof(double) +
                      copies * (plan.max_input_rows + plan.max_output_rows) * row_bytes;
    // Summed steps: one set of sums for every slot (host placement's hot rows add theirs).
    plan.sum_bytes = sum_bytes * (host ? plan.max_input_rows + plan.max_output_rows : 2 * shape.rows);
    return plan;
  };
  return choose_plan(
      sized, HotRowCost{row_bytes, shape.rank_rounds ? row_bytes : 0, sum_bytes}, kGloveBatchRecords, kMinGloveBatchRecords, shape.workers,
      fmt::format("the two glove tables ({} rows x {} floats with biases and optimizer state)", shape.rows, shape.width), options,
      budget, shape.smaller_state);
}

}  // namespace embed
