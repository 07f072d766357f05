// The start of a fresh GloVe run: counting the corpus's co-occurrences (or loading
// them), then making the tables and the state before the first epoch.
#pragma once

#include <optional>

#include "core/atomic_output.h"
#include "train/glove/cooc_file.h"
#include "train/training_run.h"

namespace embed {

// GloVe's co-occurrence counts, from input.cooc or counted from the corpus within
// input.memory bytes, into `run`: the settings the counts fix (window, symmetric,
// vocabulary limits), the vocabulary, and when `make_records`, the training records
// (log X and f(X) computed once). Written to `cooc_out` when given; counted entries
// stream there through the disk, so counting alone stays within the budget.
void glove_cooccurrences(const TrainingInput& input, TrainingRun& run, AtomicOutput* cooc_out, bool make_records);

// GloVe: makes the tables and the state before the first epoch (records shuffled),
// after checking that the tables fit in input.memory beside the records.
void start_glove_run(const TrainingInput& input, TrainingRun& run);

// The record of one count, and of many: log X and f(X) computed once.
GloveRecord glove_record(const CoocEntry& entry, double x_max, double alpha);
std::vector<GloveRecord> glove_records(std::span<const CoocEntry> entries, double x_max, double alpha);

}  // namespace embed
