#include "train/gpu/packed_batch.h"

#include <algorithm>
#include <cstring>

#include "core/error.h"

namespace embed {

PackedBatchShape pack_batch(const WindowBatch& batch, std::span<const std::uint32_t> input_rows,
                            std::span<const std::uint32_t> output_rows, std::uint32_t* out) {
  EMBED_ASSERT(batch.input_offsets.size() == batch.windows() + 1);
  EMBED_ASSERT(batch.negatives.size() ==
               (batch.negatives_per_input ? batch.inputs.size() : batch.windows()) * batch.negatives_per_window);
  PackedBatchShape shape;
  shape.windows = static_cast<std::uint32_t>(batch.windows());
  shape.inputs = static_cast<std::uint32_t>(batch.inputs.size());
  shape.negatives_per_window = static_cast<std::uint32_t>(batch.negatives_per_window);
  shape.negatives = static_cast<std::uint32_t>(batch.negatives.size());
  shape.input_rows = static_cast<std::uint32_t>(input_rows.size());
  shape.output_rows = static_cast<std::uint32_t>(output_rows.size());
  std::copy(batch.targets.begin(), batch.targets.end(), out + shape.targets_at());
  std::copy(batch.input_offsets.begin(), batch.input_offsets.end(), out + shape.offsets_at());
  std::copy(batch.inputs.begin(), batch.inputs.end(), out + shape.inputs_at());
  std::copy(batch.negatives.begin(), batch.negatives.end(), out + shape.negatives_at());
  std::copy(input_rows.begin(), input_rows.end(), out + shape.input_rows_at());
  std::copy(output_rows.begin(), output_rows.end(), out + shape.output_rows_at());
  return shape;
}

void pack_word_rows(std::span<const std::uint32_t> offsets, std::span<const std::uint32_t> rows, std::span<const float> gains,
                    PackedBatchShape& shape, std::uint32_t* out) {
  EMBED_ASSERT(offsets.size() == gains.size() + 1 && offsets.back() == rows.size());
  shape.words = static_cast<std::uint32_t>(gains.size());
  shape.listed = static_cast<std::uint32_t>(rows.size());
  if (shape.words == 0) return;
  std::copy(offsets.begin(), offsets.end(), out + shape.word_offsets_at());
  std::copy(rows.begin(), rows.end(), out + shape.word_rows_at());
  std::memcpy(out + shape.word_gains_at(), gains.data(), gains.size_bytes());
}

}  // namespace embed
