// The start of a fresh training run: reading the corpus, and for GloVe counting (or
// loading) its co-occurrences, then making the tables and the state before the first
// epoch.
#pragma once

#include <optional>

#include "core/atomic_output.h"
#include "train/checkpoint.h"
#include "train/cooc_file.h"

namespace embed {

struct TrainCommand;

// Skip-gram and CBOW: reads the corpus into `run` and makes its tables.
void start_word2vec_run(const TrainCommand& command, TrainingRun& run);

// GloVe's co-occurrence counts, from --cooc or counted from the corpus within
// command.memory bytes, into `run`: the settings the counts fix (window, symmetric,
// vocabulary limits), the vocabulary, and when `make_records`, the training records
// (log X and f(X) computed once). Written to `cooc_out` when given; counted entries
// stream there through the disk, so counting alone stays within the budget.
void glove_cooccurrences(const TrainCommand& command, TrainingRun& run, AtomicOutput* cooc_out, bool make_records);

// GloVe: makes the tables and the state before the first epoch (records shuffled),
// after checking that the tables fit in command.memory beside the records.
void start_glove_run(const TrainCommand& command, TrainingRun& run);

// The record of one count, and of many: log X and f(X) computed once.
GloveRecord glove_record(const CoocEntry& entry, double x_max, double alpha);
std::vector<GloveRecord> glove_records(std::span<const CoocEntry> entries, double x_max, double alpha);

}  // namespace embed
