#include "train/gpu/row_remap.h"

#include <cstring>
#include <mutex>
#include <vector>

#include "core/error.h"
#include "core/half_array.h"

namespace embed {
RowRemapper::RowRemapper(std::size_t table_rows, std::size_t hot_rows)
    : input_slot_(table_rows, kUnused), output_slot_(table_rows, kUnused), hot_rows_(static_cast<std::uint32_t>(hot_rows)) {
  EMBED_ASSERT(hot_rows <= table_rows && table_rows < kUnused);
}

std::uint32_t RowRemapper::local_row(std::uint32_t row, std::vector<std::uint32_t>& slot, std::vector<std::uint32_t>& rows,
                                     std::uint64_t& hot) const {
  if (row < hot_rows_) {
    ++hot;
    return row;
  }
  if (slot[row] == kUnused) {
    slot[row] = hot_rows_ + static_cast<std::uint32_t>(rows.size());
    rows.push_back(row);
  }
  return slot[row];
}

std::uint64_t RowRemapper::remap(const WindowBatch& batch, std::size_t first, std::size_t end, LocalBatch& local) {
  EMBED_ASSERT(first <= end && end <= batch.windows());
  WindowBatch& out = local.batch;
  out.learning_rate = batch.learning_rate;
  out.negatives_per_window = batch.negatives_per_window;
  out.negatives_per_input = batch.negatives_per_input;
  const std::uint32_t input_base = batch.input_offsets[first];
  out.input_offsets.resize(end - first + 1);
  for (std::size_t w = first; w <= end; ++w) out.input_offsets[w - first] = batch.input_offsets[w] - input_base;
  const std::size_t inputs_end = batch.input_offsets[end];
  // Negatives come per window, or per input (in the inputs' order).
  const std::size_t k = batch.negatives_per_window;
  const std::size_t negatives_first = batch.negatives_per_input ? input_base * k : first * k;
  const std::size_t negatives_end = batch.negatives_per_input ? inputs_end * k : end * k;
  out.targets.resize(end - first);
  out.inputs.resize(inputs_end - input_base);
  out.negatives.resize(negatives_end - negatives_first);
  local.input_rows.clear();
  local.output_rows.clear();
  std::uint64_t hot = 0;
  for (std::size_t i = input_base; i < inputs_end; ++i) {
    out.inputs[i - input_base] = local_row(batch.inputs[i], input_slot_, local.input_rows, hot);
  }
  for (std::size_t w = first; w < end; ++w) {
    out.targets[w - first] = local_row(batch.targets[w], output_slot_, local.output_rows, hot);
  }
  for (std::size_t i = negatives_first; i < negatives_end; ++i) {
    out.negatives[i - negatives_first] = local_row(batch.negatives[i], output_slot_, local.output_rows, hot);
  }
  for (std::uint32_t row : local.input_rows) input_slot_[row] = kUnused;
  for (std::uint32_t row : local.output_rows) output_slot_[row] = kUnused;
  return hot;
}

std::size_t RowRemapper::windows_within(const WindowBatch& batch, std::size_t first, std::size_t max_input_rows,
                                        std::size_t max_output_rows) {
  const std::size_t end = batch.windows();
  EMBED_ASSERT(first < end);
  const std::size_t k = batch.negatives_per_window;
  // Every touch a copied row of its own still fits: no need to count.
  const std::size_t inputs = batch.input_offsets[end] - batch.input_offsets[first];
  const std::size_t outputs = (end - first) + (batch.negatives_per_input ? inputs : end - first) * k;
  if (inputs <= max_input_rows && outputs <= max_output_rows) return end;
  // Count each window's new copied rows, marking them in the slot arrays (cleared after).
  constexpr std::uint32_t kCounted = kUnused - 1;
  auto count = [&](std::uint32_t row, std::vector<std::uint32_t>& slot, std::vector<std::uint32_t>& counted) {
    if (row < hot_rows_ || slot[row] != kUnused) return;
    slot[row] = kCounted;
    counted.push_back(row);
  };
  counted_inputs_.clear();
  counted_outputs_.clear();
  std::size_t w = first;
  for (; w < end; ++w) {
    for (std::uint32_t row : batch.window_inputs(w)) count(row, input_slot_, counted_inputs_);
    count(batch.targets[w], output_slot_, counted_outputs_);
    if (batch.negatives_per_input) {
      for (std::size_t i = batch.input_offsets[w]; i < batch.input_offsets[w + 1]; ++i) {
        for (std::uint32_t row : batch.input_negatives(i)) count(row, output_slot_, counted_outputs_);
      }
    } else {
      for (std::uint32_t row : batch.window_negatives(w)) count(row, output_slot_, counted_outputs_);
    }
    if (counted_inputs_.size() > max_input_rows || counted_outputs_.size() > max_output_rows) break;
  }
  EMBED_ASSERT(w > first);  // the plan's slots hold any one window's rows
  for (std::uint32_t row : counted_inputs_) input_slot_[row] = kUnused;
  for (std::uint32_t row : counted_outputs_) output_slot_[row] = kUnused;
  return w;
}

std::uint64_t RowRemapper::remap(std::span<const GloveRecord> records, LocalGloveBlock& local) {
  local.records.resize(records.size());
  local.word_rows.clear();
  local.context_rows.clear();
  std::uint64_t hot = 0;
  for (std::size_t i = 0; i < records.size(); ++i) {
    GloveRecord r = records[i];
    r.row = local_row(r.row, input_slot_, local.word_rows, hot);
    r.column = local_row(r.column, output_slot_, local.context_rows, hot);
    local.records[i] = r;
  }
  for (std::uint32_t row : local.word_rows) input_slot_[row] = kUnused;
  for (std::uint32_t row : local.context_rows) output_slot_[row] = kUnused;
  return hot;
}

namespace {

// The rows are scattered over a table far larger than the caches, and each is a few cache
// lines, so every row starts with a miss the hardware prefetcher cannot foresee: fetch the
// row a few ahead while this one is copied (bench-host-rows measures the difference).
constexpr std::size_t kPrefetchRows = 4;

void prefetch_row(const RowMatrix& table, std::span<const std::uint32_t> rows, std::size_t k, bool for_write) {
  if (k >= rows.size()) return;
  const char* row = reinterpret_cast<const char*>(table.row(rows[k]));
  const std::size_t bytes = table.stride() * sizeof(float);
  for (std::size_t b = 0; b < bytes; b += 64) {
    if (for_write) {
      __builtin_prefetch(row + b, 1);
    } else {
      __builtin_prefetch(row + b, 0);
    }
  }
}

}  // namespace

void gather_rows(const RowMatrix& table, std::span<const std::uint32_t> rows, DType storage, void* out) {
  const std::size_t stride = table.stride();
  if (storage == DType::f32) {
    for (std::size_t k = 0; k < rows.size(); ++k) {
      prefetch_row(table, rows, k + kPrefetchRows, false);
      std::memcpy(static_cast<float*>(out) + k * stride, table.row(rows[k]), stride * sizeof(float));
    }
    return;
  }
  EMBED_ASSERT(storage == DType::f16 || storage == DType::bf16);
  // Whole rows at a time through the vectorised conversions: a value at a time through
  // half.h's took 4.5x as long as the f32 copy (bench-host-rows --storage bf16).
  void (*convert)(const float*, std::uint16_t*, std::size_t) = storage == DType::f16 ? f32_to_f16_array : f32_to_bf16_array;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    prefetch_row(table, rows, k + kPrefetchRows, false);
    convert(table.row(rows[k]), static_cast<std::uint16_t*>(out) + k * stride, stride);
  }
}

void scatter_deltas(RowMatrix& table, std::span<const std::uint32_t> rows, DType storage, const void* updated,
                    const void* original, RowLocks* locks) {
  const std::size_t stride = table.stride();
  const std::size_t dim = table.dim();  // padding stays zero
  if (storage == DType::f32) {
    for (std::size_t k = 0; k < rows.size(); ++k) {
      prefetch_row(table, rows, k + kPrefetchRows, true);
      std::unique_lock<std::mutex> lock;
      if (locks) lock = std::unique_lock(locks->of(rows[k]));
      float* __restrict row = table.row(rows[k]);
      // Restrict-qualified: the staged copies never overlap the table, and without it GCC
      // checks for overlap per row before it vectorises.
      const float* __restrict now = static_cast<const float*>(updated) + k * stride;
      const float* __restrict before = static_cast<const float*>(original) + k * stride;
      for (std::size_t e = 0; e < dim; ++e) row[e] += now[e] - before[e];
    }
    return;
  }
  EMBED_ASSERT(storage == DType::f16 || storage == DType::bf16);
  // Each row's two copies widened to f32 first by the vectorised conversions (a value at
  // a time through half.h's took 3x as long as the f32 scatter: bench-host-rows).
  void (*to_f32)(const std::uint16_t*, float*, std::size_t) = storage == DType::f16 ? f16_to_f32_array : bf16_to_f32_array;
  std::vector<float> widened(2 * stride);
  float* __restrict now = widened.data();
  float* __restrict before = widened.data() + stride;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    prefetch_row(table, rows, k + kPrefetchRows, true);
    to_f32(static_cast<const std::uint16_t*>(updated) + k * stride, now, dim);
    to_f32(static_cast<const std::uint16_t*>(original) + k * stride, before, dim);
    std::unique_lock<std::mutex> lock;
    if (locks) lock = std::unique_lock(locks->of(rows[k]));
    float* __restrict row = table.row(rows[k]);
    for (std::size_t e = 0; e < dim; ++e) row[e] += now[e] - before[e];
  }
}

}  // namespace embed
