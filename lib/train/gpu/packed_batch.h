// A WindowBatch flattened into one uint32 buffer, so that a GPU backend ships it to
// the device in a single copy: [targets | input_offsets | inputs | negatives (per
// window, or per input with negatives_per_input)], then
// for host-resident tables the unique input and output rows the batch touches, and with
// --subwords its words' lists (LocalWordRows: offsets, rows, gains as float bits). The
// shape says where each array starts; the kernels read the arrays at those offsets.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "train/word2vec/window_batch.h"

namespace embed {

struct PackedBatchShape {
  std::uint32_t windows = 0;
  std::uint32_t inputs = 0;
  std::uint32_t negatives_per_window = 0;  // per input with negatives_per_input
  std::uint32_t negatives = 0;             // in all
  std::uint32_t input_rows = 0;            // unique input rows appended (host-resident tables), else 0
  std::uint32_t output_rows = 0;           // unique output rows appended, else 0
  std::uint32_t words = 0;                 // --subwords, host-resident tables: the words listed, else 0
  std::uint32_t listed = 0;                // and their rows
  // Offsets, in uint32 words from the buffer's start.
  std::size_t targets_at() const { return 0; }
  std::size_t offsets_at() const { return windows; }
  std::size_t inputs_at() const { return offsets_at() + windows + 1; }
  std::size_t negatives_at() const { return inputs_at() + inputs; }
  std::size_t input_rows_at() const { return negatives_at() + negatives; }
  std::size_t output_rows_at() const { return input_rows_at() + input_rows; }
  std::size_t word_offsets_at() const { return output_rows_at() + output_rows; }
  std::size_t word_rows_at() const { return word_offsets_at() + (words == 0 ? 0 : words + 1); }
  std::size_t word_gains_at() const { return word_rows_at() + listed; }
  std::size_t size() const { return word_gains_at() + words; }  // in uint32 words
};

// The negatives of a window with at most `max_inputs` inputs: `negatives`, or with
// `negatives_per_input` as many per input.
inline std::size_t window_negatives_bound(std::size_t max_inputs, std::size_t negatives, bool negatives_per_input) {
  return negatives * (negatives_per_input ? max_inputs : 1);
}

// The words a packed batch of at most `windows` windows needs, each window with at
// most `max_inputs` inputs and its negatives (window_negatives_bound), plus
// `unique_rows` appended row ids.
inline std::size_t packed_words_bound(std::size_t windows, std::size_t max_inputs, std::size_t negatives,
                                      bool negatives_per_input, std::size_t unique_rows) {
  return windows * (2 + max_inputs + window_negatives_bound(max_inputs, negatives, negatives_per_input)) + 1 + unique_rows;
}

// Writes `batch` (and the unique rows, which may be empty) into `out`, which holds at
// least the returned shape's size().
PackedBatchShape pack_batch(const WindowBatch& batch, std::span<const std::uint32_t> input_rows,
                            std::span<const std::uint32_t> output_rows, std::uint32_t* out);
// --subwords: appends the words' lists after what `shape` holds (out as pack_batch's),
// and counts them in it.
void pack_word_rows(std::span<const std::uint32_t> offsets, std::span<const std::uint32_t> rows, std::span<const float> gains,
                    PackedBatchShape& shape, std::uint32_t* out);

}  // namespace embed
