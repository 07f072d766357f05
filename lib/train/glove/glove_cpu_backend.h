// GloVe's CPU backend: trains blocks of co-occurrence records on the host tables in
// place, one step per record, by the layout's optimizer (Stanford GloVe's rules and ours).
#pragma once

#include <memory>
#include <span>

#include "train/engine/batch_loss.h"
#include "train/engine/optimizer.h"
#include "train/engine/row_matrix.h"
#include "train/engine/update_constants.h"
#include "train/glove/glove_backend.h"
#include "train/glove/glove_layout.h"

namespace embed {

// Trains `records` (in order) against the two tables: one step per record. Adds
// 0.5 f(X) (prediction - log X)² per record to `loss` (Stanford's cost). Records with a
// non-finite prediction are skipped, as the reference skips them. The rows of `words`
// that `locked` (empty, or one flag per row) marks 1 stay as they are (--lock-init).
// The optimizer is the layout's.
void train_glove_records(std::span<const GloveRecord> records, RowMatrix& words, RowMatrix& contexts, const GloveLayout& layout,
                         float learning_rate, BatchLoss& loss, std::span<const std::uint8_t> locked = {});

// The CPU: updates `words` and `contexts` (GloveLayout rows) in place, but not the word
// rows `locked` marks. With `summed_records`, each worker's rows step once per run of that
// many records, by their summed gradients (glove_summed_steps.h).
std::unique_ptr<GloveBackend> make_cpu_glove_backend(RowMatrix& words, RowMatrix& contexts, const GloveLayout& layout,
                                                     std::span<const std::uint8_t> locked = {}, std::size_t summed_records = 0);

}  // namespace embed
