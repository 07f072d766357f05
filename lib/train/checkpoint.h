// Checkpoints: everything a stopped run needs to go on as if it had not stopped.
//
// A tensor file (format/tensor_file.h: safetensors with a checksum): both tables with
// their padding (GloVe's with their optimizer state), the vocabulary and counts, what
// the epochs walk (the corpus as word ids, or GloVe's co-occurrence records in the
// order of the epoch under way), so a run whose corpus came from a pipe, or has since
// been deleted, can resume, each worker's position and random state, and in
// __metadata__ the settings, the output options and the schedule's position.
#pragma once

#include <string>

#include "train/corpus.h"
#include "train/glove_model.h"
#include "train/row_matrix.h"
#include "train/trainer.h"

namespace embed {

// Output options a resumed run must honour as the original would have.
struct OutputSettings {
  std::string output;        // the .emb to write
  std::string dtype = "f32";  // storage type of the vectors
  bool save_context = false;  // also write the output vectors
  std::uint64_t min_count = 5;
  std::uint64_t max_vocab = 0;
};

// A training run: what it trains on, its two tables and where the schedule stands.
// Exactly what a checkpoint holds. GloVe keeps only the corpus's vocabulary (its ids
// are spent once counted) and trains on `records`; its tables are W and W̃.
struct TrainingRun {
  TrainSettings settings;
  OutputSettings output;
  Corpus corpus;
  RowMatrix input, output_table;
  TrainState state;
  std::vector<GloveRecord> records;
};

// Writes atomically (temporary file and rename).
void save_checkpoint(const std::string& path, const TrainingRun& run);

// Throws embed::Error naming `path` for a file that is not a complete, intact checkpoint.
TrainingRun load_checkpoint(const std::string& path);

}  // namespace embed
