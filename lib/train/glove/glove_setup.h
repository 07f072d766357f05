// The start of a fresh GloVe run: counting the corpus's co-occurrences (or loading
// them), shuffling them into the run's records file, then making the tables and the
// state before the first epoch.
#pragma once

#include <optional>

#include "core/atomic_output.h"
#include "train/glove/cooc_file.h"
#include "train/run/training_run.h"

namespace embed {

// Records a worker reads from disk at once when they stream (1 MB, a shuffle block): what streaming
// takes of --memory beside the tables, per thread.
inline constexpr std::size_t kStreamedReadRecords = 1 << 16;

// GloVe's co-occurrence counts, from input.cooc or counted from the corpus within
// input.memory bytes, into `run`: the settings the counts fix (window, symmetric,
// vocabulary limits), the vocabulary, and when `make_records`, the training records
// (log X and f(X) computed once) shuffled into the records file beside the output,
// and kept in memory as well when they fit input.memory beside the tables. Written to
// `cooc_out` when given; counted entries stream there through the disk, so counting
// alone stays within the budget.
void glove_cooccurrences(const TrainingInput& input, TrainingRun& run, AtomicOutput* cooc_out, bool make_records);

// GloVe: makes the tables and the state before the first epoch.
void start_glove_run(TrainingRun& run);

// The path of a run's records file: beside its output.
std::string glove_records_path(const std::string& output);

// The record of one count, and of many: log X and f(X) computed once.
GloveRecord glove_record(const CoocEntry& entry, double x_max, double alpha);
std::vector<GloveRecord> glove_records(std::span<const CoocEntry> entries, double x_max, double alpha);

}  // namespace embed
