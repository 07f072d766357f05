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

// GloVe's co-occurrence counts: from --cooc, or counted from the corpus within
// command.memory bytes. Settings the counts fix (window, symmetric, vocabulary limits)
// are taken from them into `run`.
CoocMatrix glove_cooccurrences(const TrainCommand& command, TrainingRun& run);

// GloVe: turns the counts into shuffled records and makes the tables, after checking
// that they fit in command.memory.
void start_glove_run(const TrainCommand& command, CoocMatrix&& counts, TrainingRun& run);

// The records of `entries`, with log X and f(X) precomputed.
std::vector<GloveRecord> glove_records(std::span<const CoocEntry> entries, double x_max, double alpha);

}  // namespace embed
