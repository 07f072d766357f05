// What the trainer hands a backend: a batch of windows in word2vec's orientation.
// Each window has input rows (the context words around a centre word), one target
// output row (the centre word, label 1) and `negatives_per_window` negative output rows
// (label 0). Skip-gram trains every input against the outputs, sharing the window's
// negatives among its inputs (as pWord2Vec's HogBatch does: a window touches 1 + K
// output rows, not C × (1 + K)) or, with `negatives_per_input`, each input against its
// own (--pair-negatives, word2vec's way); CBOW trains the inputs' mean against them.
// The same batch can be planned once and shipped to any backend: ids only, no vectors.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace embed {

struct WindowBatch {
  float learning_rate = 0;
  std::size_t negatives_per_window = 0;  // K; with negatives_per_input, per input
  bool negatives_per_input = false;
  std::vector<std::uint32_t> targets;           // per window: the output row labelled 1
  std::vector<std::uint32_t> input_offsets{0};  // window w's inputs: inputs[input_offsets[w], input_offsets[w+1])
  std::vector<std::uint32_t> inputs;            // input rows
  std::vector<std::uint32_t> negatives;         // negatives_per_window per window (or per input, in the
                                                // inputs' order); a negative equal to the target is
                                                // skipped, as word2vec skips it

  std::size_t windows() const { return targets.size(); }
  std::span<const std::uint32_t> window_inputs(std::size_t w) const {
    return {inputs.data() + input_offsets[w], input_offsets[w + 1] - input_offsets[w]};
  }
  std::span<const std::uint32_t> window_negatives(std::size_t w) const {
    return {negatives.data() + w * negatives_per_window, negatives_per_window};
  }
  // With negatives_per_input: the negatives of inputs[i].
  std::span<const std::uint32_t> input_negatives(std::size_t i) const {
    return {negatives.data() + i * negatives_per_window, negatives_per_window};
  }
  void clear() {
    targets.clear();
    input_offsets.assign(1, 0);
    inputs.clear();
    negatives.clear();
  }
};

// The output rows a positive (label 1) trains against: it, then `negatives` but those
// equal to it (word2vec skips such a negative, fastText draws again; both leave the
// positive out), into `out` (room for 1 + negatives.size()). Returns how many.
inline std::size_t list_output_rows(std::uint32_t positive, std::span<const std::uint32_t> negatives, std::uint32_t* out) {
  out[0] = positive;
  std::size_t n = 1;
  for (std::uint32_t negative : negatives) {
    if (negative != positive) out[n++] = negative;
  }
  return n;
}

}  // namespace embed
