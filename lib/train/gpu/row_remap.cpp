#include "train/gpu/row_remap.h"

#include <atomic>
#include <cstring>
#include <mutex>
#include <vector>

#include "core/error.h"
#include "core/half_array.h"

namespace embed {
RowRemapper::RowRemapper(std::size_t table_rows, std::size_t hot_rows)
    : RowRemapper(table_rows, HotRows{hot_rows, {}, hot_rows}) {}

RowRemapper::RowRemapper(std::size_t table_rows, const HotRows& hot)
    : input_slot_(table_rows, kUnused),
      output_slot_(table_rows, kUnused),
      hot_inputs_(static_cast<std::uint32_t>(hot.inputs())),
      hot_outputs_(static_cast<std::uint32_t>(hot.output_rows)),
      hot_first_inputs_(static_cast<std::uint32_t>(hot.input_words)) {
  EMBED_ASSERT(hot.inputs() <= table_rows && hot.output_rows <= table_rows && table_rows < kCounted);
  const std::vector<std::uint32_t>& buckets = hot.input_buckets;
  for (std::size_t k = 0; k < buckets.size(); ++k) {
    EMBED_ASSERT(buckets[k] >= hot_first_inputs_ && buckets[k] < table_rows && (k == 0 || buckets[k] > buckets[k - 1]));
    input_slot_[buckets[k]] = hot_first_inputs_ + static_cast<std::uint32_t>(k);
  }
}

std::uint32_t RowRemapper::local_row(std::uint32_t row, std::vector<std::uint32_t>& slot, std::vector<std::uint32_t>& rows,
                                     std::uint64_t& hot) const {
  if (row < hot_first_rows(slot)) {
    ++hot;
    return row;
  }
  if (slot[row] == kUnused) {
    slot[row] = hot_rows(slot) + static_cast<std::uint32_t>(rows.size());
    rows.push_back(row);
  } else if (slot[row] < hot_rows(slot)) {
    ++hot;  // a hot bucket
  }
  return slot[row];
}

void RowRemapper::copy_windows(const WindowBatch& batch, std::size_t first, std::size_t end, LocalBatch& local) const {
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
  out.targets.assign(batch.targets.begin() + static_cast<std::ptrdiff_t>(first),
                     batch.targets.begin() + static_cast<std::ptrdiff_t>(end));
  out.inputs.assign(batch.inputs.begin() + input_base, batch.inputs.begin() + static_cast<std::ptrdiff_t>(inputs_end));
  out.negatives.assign(batch.negatives.begin() + static_cast<std::ptrdiff_t>(negatives_first),
                       batch.negatives.begin() + static_cast<std::ptrdiff_t>(negatives_end));
  local.input_rows.clear();
  local.output_rows.clear();
  local.words.clear();
}

std::uint64_t RowRemapper::remap(const WindowBatch& batch, std::size_t first, std::size_t end, LocalBatch& local) {
  copy_windows(batch, first, end, local);
  WindowBatch& out = local.batch;
  std::uint64_t hot = 0;
  for (std::uint32_t& row : out.inputs) row = local_row(row, input_slot_, local.input_rows, hot);
  for (std::uint32_t& row : out.targets) row = local_row(row, output_slot_, local.output_rows, hot);
  for (std::uint32_t& row : out.negatives) row = local_row(row, output_slot_, local.output_rows, hot);
  for (std::uint32_t row : local.input_rows) input_slot_[row] = kUnused;
  for (std::uint32_t row : local.output_rows) output_slot_[row] = kUnused;
  return hot;
}

std::uint64_t RowRemapper::remap_subwords(const WindowBatch& batch, std::size_t first, std::size_t end,
                                          const SubwordRows& subwords, bool skipgram, LocalBatch& local) {
  copy_windows(batch, first, end, local);
  WindowBatch& out = local.batch;
  if (word_slot_.size() < subwords.words()) word_slot_.assign(subwords.words(), kUnused);
  words_used_.clear();
  std::uint64_t hot = 0;
  LocalWordRows& words = local.words;
  auto local_word = [&](std::uint32_t word) {
    EMBED_ASSERT(word < subwords.words());
    if (word_slot_[word] == kUnused) {
      word_slot_[word] = static_cast<std::uint32_t>(words.words());
      words_used_.push_back(word);
      for (std::uint32_t row : subwords.of(word)) words.rows.push_back(local_row(row, input_slot_, local.input_rows, hot));
      words.offsets.push_back(static_cast<std::uint32_t>(words.rows.size()));
      words.gains.push_back(subwords.gain(word));
    }
    return word_slot_[word];
  };
  // Skip-gram averages its centres' rows and scores its contexts; CBOW averages its bag
  // (the inputs) and scores its centres.
  std::vector<std::uint32_t>& averaged = skipgram ? out.targets : out.inputs;
  std::vector<std::uint32_t>& scored = skipgram ? out.inputs : out.targets;
  for (std::uint32_t& word : averaged) word = local_word(word);
  for (std::uint32_t& row : scored) row = local_row(row, output_slot_, local.output_rows, hot);
  for (std::uint32_t& row : out.negatives) row = local_row(row, output_slot_, local.output_rows, hot);
  for (std::uint32_t row : local.input_rows) input_slot_[row] = kUnused;
  for (std::uint32_t row : local.output_rows) output_slot_[row] = kUnused;
  for (std::uint32_t word : words_used_) word_slot_[word] = kUnused;
  return hot;
}

void RowRemapper::count(std::uint32_t row, std::vector<std::uint32_t>& slot, std::vector<std::uint32_t>& counted) const {
  // Hot buckets' slots are never kUnused.
  if (row < hot_first_rows(slot) || slot[row] != kUnused) return;
  slot[row] = kCounted;
  counted.push_back(row);
}

void RowRemapper::count_negatives(const WindowBatch& batch, std::size_t w) {
  if (batch.negatives_per_input) {
    for (std::size_t i = batch.input_offsets[w]; i < batch.input_offsets[w + 1]; ++i) {
      for (std::uint32_t row : batch.input_negatives(i)) count(row, output_slot_, counted_outputs_);
    }
  } else {
    for (std::uint32_t row : batch.window_negatives(w)) count(row, output_slot_, counted_outputs_);
  }
}

std::size_t RowRemapper::subword_windows_within(const WindowBatch& batch, std::size_t first, const SubwordRows& subwords,
                                                bool skipgram, std::size_t max_input_rows, std::size_t max_output_rows,
                                                std::size_t max_words, std::size_t max_listed) {
  const std::size_t end = batch.windows();
  EMBED_ASSERT(first < end);
  if (word_slot_.size() < subwords.words()) word_slot_.assign(subwords.words(), kUnused);
  // Each window's new words (their lists and copied rows) and new copied output rows,
  // marked in the slot arrays (cleared after).
  counted_inputs_.clear();
  counted_outputs_.clear();
  words_used_.clear();
  std::size_t listed = 0;
  auto count_word = [&](std::uint32_t word) {
    if (word_slot_[word] != kUnused) return;
    word_slot_[word] = kCounted;
    words_used_.push_back(word);
    const auto rows = subwords.of(word);
    listed += rows.size();
    for (std::uint32_t row : rows) count(row, input_slot_, counted_inputs_);
  };
  std::size_t w = first;
  for (; w < end; ++w) {
    const auto inputs = batch.window_inputs(w);
    if (skipgram) {
      count_word(batch.targets[w]);
      for (std::uint32_t row : inputs) count(row, output_slot_, counted_outputs_);
    } else {
      for (std::uint32_t word : inputs) count_word(word);
      count(batch.targets[w], output_slot_, counted_outputs_);
    }
    count_negatives(batch, w);
    if (counted_inputs_.size() > max_input_rows || counted_outputs_.size() > max_output_rows || words_used_.size() > max_words ||
        listed > max_listed) {
      break;
    }
  }
  EMBED_ASSERT(w > first);  // the plan's slots hold any one window's rows
  for (std::uint32_t row : counted_inputs_) input_slot_[row] = kUnused;
  for (std::uint32_t row : counted_outputs_) output_slot_[row] = kUnused;
  for (std::uint32_t word : words_used_) word_slot_[word] = kUnused;
  return w;
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
  counted_inputs_.clear();
  counted_outputs_.clear();
  std::size_t w = first;
  for (; w < end; ++w) {
    for (std::uint32_t row : batch.window_inputs(w)) count(row, input_slot_, counted_inputs_);
    count(batch.targets[w], output_slot_, counted_outputs_);
    count_negatives(batch, w);
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
// row (and its count, row_versions.h) a few ahead while this one is copied
// (bench-host-rows measures the difference).
constexpr std::size_t kPrefetchRows = 4;

void prefetch_row(const RowMatrix& table, std::span<const std::uint32_t> rows, std::size_t k, bool for_write,
                  const RowVersions* versions) {
  if (k >= rows.size()) return;
  const auto* row = reinterpret_cast<const char*>(table.row_bytes_at(rows[k]));
  const std::size_t bytes = table.row_bytes();
  for (std::size_t b = 0; b < bytes; b += 64) {
    if (for_write) {
      __builtin_prefetch(row + b, 1);
    } else {
      __builtin_prefetch(row + b, 0);
    }
  }
  if (versions) __builtin_prefetch(&versions->of(rows[k]), 1);
}

// Calls copy_row(k) for each row, and with `versions` records in seen[k] the row's
// write count as the copy began (row_versions.h).
template <typename CopyRow>
void copy_rows_out(const RowMatrix& table, std::span<const std::uint32_t> rows, const RowVersions* versions, std::uint16_t* seen,
                   CopyRow copy_row) {
  for (std::size_t k = 0; k < rows.size(); ++k) {
    prefetch_row(table, rows, k + kPrefetchRows, false, versions);
    // Acquire: the copy sees every write the count counts.
    if (versions) seen[k] = versions->of(rows[k]).load(std::memory_order_acquire);
    copy_row(k);
  }
}

}  // namespace

void gather_rows(const RowMatrix& table, std::span<const std::uint32_t> rows, DType storage, void* out,
                 const RowVersions* versions, std::uint16_t* seen) {
  EMBED_ASSERT(!versions || seen);
  const std::size_t stride = table.stride();
  if (table.half()) {
    // f16 host tables (row_matrix.h) are staged as they are.
    EMBED_ASSERT(storage == DType::f16);
    const std::size_t bytes = table.row_bytes();
    copy_rows_out(table, rows, versions, seen, [&](std::size_t k) {
      std::memcpy(static_cast<std::byte*>(out) + k * bytes, table.row_bytes_at(rows[k]), bytes);
    });
    return;
  }
  if (storage == DType::f32) {
    copy_rows_out(table, rows, versions, seen, [&](std::size_t k) {
      std::memcpy(static_cast<float*>(out) + k * stride, table.row(rows[k]), stride * sizeof(float));
    });
    return;
  }
  EMBED_ASSERT(storage == DType::f16 || storage == DType::bf16);
  // Whole rows at a time through the vectorised conversions: a value at a time through
  // half.h's took 4.5x as long as the f32 copy (bench-host-rows --storage bf16).
  void (*convert)(const float*, std::uint16_t*, std::size_t) = storage == DType::f16 ? f32_to_f16_array : f32_to_bf16_array;
  copy_rows_out(table, rows, versions, seen,
                [&](std::size_t k) { convert(table.row(rows[k]), static_cast<std::uint16_t*>(out) + k * stride, stride); });
}

namespace {

// What a batch's write-back does to one table row from its staged copies (updated and
// original, rows of the table's stride in `storage`): set it to the trained copy, or add
// what training changed.
class RowChanges {
 public:
  RowChanges(RowMatrix& table, std::span<const std::uint32_t> rows, DType storage, const void* updated, const void* original)
      : table_(table),
        rows_(rows),
        storage_(storage),
        stride_(table.stride()),
        dim_(table.dim()),
        updated_(updated),
        original_(original),
        // bf16's copies widened to f32 first by the vectorised conversion (a value at a
        // time through half.h's took 3x as long as the f32 scatter: bench-host-rows);
        // f16's are widened in registers (half_array.h).
        widened_(storage == DType::bf16 ? 2 * table.stride() : 0) {
    EMBED_ASSERT(!table.half() || storage == DType::f16);
    EMBED_ASSERT(storage == DType::f32 || storage == DType::f16 || storage == DType::bf16);
  }

  // Row k becomes the trained copy (no other batch wrote it since the gather). The
  // padding stays zero.
  void set_row(std::size_t k) {
    if (storage_ == DType::f32) {
      std::memcpy(table_.row(rows_[k]), static_cast<const float*>(updated_) + k * stride_, dim_ * sizeof(float));
    } else if (table_.half()) {
      std::memcpy(table_.row_bytes_at(rows_[k]), trained16() + k * stride_, dim_ * sizeof(std::uint16_t));
    } else if (storage_ == DType::f16) {
      f16_to_f32_array(trained16() + k * stride_, table_.row(rows_[k]), dim_);
    } else {
      bf16_to_f32_array(trained16() + k * stride_, table_.row(rows_[k]), dim_);
    }
  }

  // Row k gets what training changed (updated - original) added.
  void add_change(std::size_t k) {
    if (storage_ == DType::f32) {
      float* __restrict row = table_.row(rows_[k]);
      // Restrict-qualified: the staged copies never overlap the table, and without it GCC
      // checks for overlap per row before it vectorises.
      const float* __restrict now = static_cast<const float*>(updated_) + k * stride_;
      const float* __restrict before = static_cast<const float*>(original_) + k * stride_;
      for (std::size_t e = 0; e < dim_; ++e) row[e] += now[e] - before[e];
    } else if (table_.half()) {
      // The sum rounded once: a row no other batch changed meanwhile becomes exactly the
      // batch's f16 row, as it would on the GPU.
      add_f16_change(reinterpret_cast<std::uint16_t*>(table_.row_bytes_at(rows_[k])), trained16() + k * stride_,
                     gathered16() + k * stride_, dim_);
    } else if (storage_ == DType::f16) {
      add_f16_change(table_.row(rows_[k]), trained16() + k * stride_, gathered16() + k * stride_, dim_);
    } else {
      float* __restrict now = widened_.data();
      float* __restrict before = widened_.data() + stride_;
      bf16_to_f32_array(trained16() + k * stride_, now, dim_);
      bf16_to_f32_array(gathered16() + k * stride_, before, dim_);
      float* __restrict row = table_.row(rows_[k]);
      for (std::size_t e = 0; e < dim_; ++e) row[e] += now[e] - before[e];
    }
  }

  // Asks for row k's staged copies ahead (mapped transfers' are written by the GPU, so
  // not in any cache).
  void prefetch_copies(std::size_t k) const {
    const std::size_t bytes = stride_ * dtype_size(storage_);
    const auto* now = static_cast<const char*>(updated_) + k * bytes;
    const auto* before = static_cast<const char*>(original_) + k * bytes;
    for (std::size_t b = 0; b < bytes; b += 64) {
      __builtin_prefetch(now + b, 0);
      __builtin_prefetch(before + b, 0);
    }
  }

 private:
  const std::uint16_t* trained16() const { return static_cast<const std::uint16_t*>(updated_); }
  const std::uint16_t* gathered16() const { return static_cast<const std::uint16_t*>(original_); }

  RowMatrix& table_;
  std::span<const std::uint32_t> rows_;
  DType storage_;
  std::size_t stride_, dim_;
  const void* updated_;
  const void* original_;
  std::vector<float> widened_;
};

}  // namespace

std::size_t scatter_deltas(RowMatrix& table, std::span<const std::uint32_t> rows, DType storage, const void* updated,
                           const void* original, RowLocks* locks, RowVersions* versions, const std::uint16_t* seen) {
  EMBED_ASSERT(!versions || (locks && seen));
  RowChanges changes(table, rows, storage, updated, original);
  std::size_t whole = 0;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    prefetch_row(table, rows, k + kPrefetchRows, true, versions);
    std::unique_lock<std::mutex> lock;
    if (locks) lock = std::unique_lock(locks->of(rows[k]));
    if (!versions) {
      changes.add_change(k);
      continue;
    }
    // The row's writes take turns under its stripe lock (row_versions.h).
    std::atomic<std::uint16_t>& count = versions->of(rows[k]);
    const std::uint16_t written = count.load(std::memory_order_relaxed);
    if (written == seen[k]) {
      changes.set_row(k);
      ++whole;
    } else {
      changes.add_change(k);
    }
    count.store(static_cast<std::uint16_t>(written + 1), std::memory_order_release);
  }
  return whole;
}

void add_deltas_at(RowMatrix& table, std::span<const std::uint32_t> rows, std::span<const std::uint32_t> at, DType storage,
                   const void* updated, const void* original, RowLocks& locks) {
  RowChanges changes(table, rows, storage, updated, original);
  for (std::size_t j = 0; j < at.size(); ++j) {
    if (j + kPrefetchRows < at.size()) {
      prefetch_row(table, rows, at[j + kPrefetchRows], true, nullptr);
      changes.prefetch_copies(at[j + kPrefetchRows]);
    }
    const std::size_t k = at[j];
    EMBED_ASSERT(k < rows.size());
    const std::lock_guard<std::mutex> lock(locks.of(rows[k]));
    changes.add_change(k);
  }
}

}  // namespace embed
